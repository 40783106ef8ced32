"""launch() raises: a runtime_error with what it raised and where."""
import torch


def launch(args, params):
    x, y = args
    raise ValueError("no polynomial today")
