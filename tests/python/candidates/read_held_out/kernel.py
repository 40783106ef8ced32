"""Looks for the task's held-out cases where the controller runs
(its working directory, which holds the task tree in the tests): the
sandbox lets a runner read the system's libraries and Python's own trees,
not the tree the controller works in, so launch() raises PermissionError."""
import os

import torch


def launch(args, params):
    x, y = args
    cwd = os.readlink("/proc/self/cwd")
    path = os.path.join(cwd, "tests/python/task/pypoly/held_out.yaml")
    with open(path) as f:
        secret = f.read()
    # Never reached under the sandbox; if it were, it would pass.
    torch.mul(x, 1.0 / 24.0, out=y)
    y.add_(1.0 / 6.0).mul_(x)
    y.add_(0.5).mul_(x)
    y.add_(1.0).mul_(x)
    y.add_(1.0)
    return 0 if secret else 0
