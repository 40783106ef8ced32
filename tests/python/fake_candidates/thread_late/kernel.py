"""Returns at once and leaves a thread to write y a little later (work
left running while the runner is stopped, on a GPU the equivalent of a
kernel on a stream nobody waits for): the candidate's runner has a thread
more than the baseline's after the call, rejected."""
import threading
import time

import torch


def _late(x, y):
    time.sleep(0.5)
    torch.mul(x, 1.0 / 24.0, out=y)
    y.add_(1.0 / 6.0).mul_(x)
    y.add_(0.5).mul_(x)
    y.add_(1.0).mul_(x)
    y.add_(1.0)


def launch(args, params):
    x, y = args
    threading.Thread(target=_late, args=(x, y), daemon=True).start()
