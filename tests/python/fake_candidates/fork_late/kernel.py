"""A forked child does the work after launch() returned (a GPU runner of
a Triton task may start processes, since Triton runs ptxas and a C
compiler): a child is alive at the reply, rejected."""
import os
import time

import torch


def launch(args, params):
    x, y = args
    if os.fork() == 0:
        time.sleep(0.5)
        torch.mul(x, 1.0 / 24.0, out=y)
        y.add_(1.0 / 6.0).mul_(x)
        y.add_(0.5).mul_(x)
        y.add_(1.0).mul_(x)
        y.add_(1.0)
        os._exit(0)
