"""Returns without writing y: incorrect, the poison survives."""
import torch


def launch(args, params):
    return None
