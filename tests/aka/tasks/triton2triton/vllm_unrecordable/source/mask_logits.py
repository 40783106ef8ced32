"""Masks banned token ids in place (arena's test fixture in AgentKernelArena's
vllm task layout): the ids come wrapped in a BanList."""
import torch


def _mask_logits_kernel(logits, ids):
    for b in range(logits.shape[0]):
        for j in range(ids.shape[1]):
            logits[b, ids[b, j]] = float("-inf")


class BanList:
    def __init__(self, ids):
        self.ids = ids


def mask_logits(logits, bans):
    _mask_logits_kernel(logits, bans.ids)
