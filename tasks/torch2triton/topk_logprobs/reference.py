"""topk_logprobs - reference: log-softmax in float64, sorted, values rounded
once to float32; the rank by exact comparison of the logits."""
import torch


def launch(args, params):
    logits, token, topk_logprobs, token_logprob, token_rank = args
    rows, vocab, k = params
    lp = torch.log_softmax(logits.double(), dim=-1)
    topk_logprobs.copy_(torch.sort(lp, dim=-1, descending=True).values[:, :k].float())
    token_logprob.copy_(lp.gather(-1, token[:, None]).squeeze(-1).float())
    t = logits.gather(-1, token[:, None])
    token_rank.copy_(((logits > t).sum(-1) + 1).to(torch.int32))
