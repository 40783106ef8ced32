"""jsd_loss - reference: the loss in float64 and its gradient by autograd,
rounded once (loss to float32, gradient to bf16)."""
import torch


def launch(args, params):
    student, teacher, loss, grad = args
    rows, vocab = params
    s = student.double().requires_grad_(True)
    with torch.enable_grad():
        lq = torch.log_softmax(s, dim=-1)
        lp = torch.log_softmax(teacher.double(), dim=-1)
        lm = torch.log(0.5 * lp.exp() + 0.5 * lq.exp())
        per_row = 0.5 * (lp.exp() * (lp - lm)).sum(-1) + 0.5 * (lq.exp() * (lq - lm)).sum(-1)
        (per_row.sum() / rows).backward()
    loss.copy_(per_row.detach().float())
    grad.copy_(s.grad.float().to(torch.bfloat16))
