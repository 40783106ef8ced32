"""Does not parse: a compile_error naming the line."""
import torch


def launch(args, params)
    x, y = args
