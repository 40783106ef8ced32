"""topk_logprobs - baseline: the logprobs step of vLLM's Sampler in PyTorch
(log_softmax, topk, gather), with the rank counted on the logits."""
import torch


def launch(args, params):
    logits, token, topk_logprobs, token_logprob, token_rank = args
    rows, vocab, k = params
    logprobs = torch.log_softmax(logits, dim=-1)
    topk_logprobs.copy_(torch.topk(logprobs, k, dim=-1).values)
    token_logprob.copy_(logprobs.gather(-1, token.unsqueeze(-1)).squeeze(-1))
    tok_logit = logits.gather(-1, token.unsqueeze(-1))
    token_rank.copy_((logits > tok_logit).sum(-1) + 1)
