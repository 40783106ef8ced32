"""Masks banned token ids in place (arena's test fixture in AgentKernelArena's
vllm task layout), written as a loop so that there is something to
optimize."""
import torch


def _mask_logits_kernel(logits, ids):
    for b in range(logits.shape[0]):
        for j in range(ids.shape[1]):
            logits[b, ids[b, j]] = float("-inf")


def mask_logits(logits, ids):
    if ids.shape[1] > 64:
        raise ValueError("at most 64 banned ids per row")
    _mask_logits_kernel(logits, ids)
