"""A forked child does the work (it shares y's memory): rejected, the
filter forbids new processes in a host runner."""
import os

import torch


def launch(args, params):
    x, y = args
    if os.fork() == 0:
        torch.mul(x, 1.0 / 24.0, out=y)
        y.add_(1.0 / 6.0).mul_(x)
        y.add_(0.5).mul_(x)
        y.add_(1.0).mul_(x)
        y.add_(1.0)
        os._exit(0)
