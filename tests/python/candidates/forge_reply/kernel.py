"""Writes its own reply to the controller on the runner's control channel
(fd 3) before the real one: rejected, a protocol violation."""
import os

import torch


def launch(args, params):
    x, y = args
    y.copy_(1.0 + x)
    os.write(3, b"ok 1 0 1000\n")
