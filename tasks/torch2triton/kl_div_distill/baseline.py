"""kl_div_distill - baseline: forward-KL logit distillation in PyTorch, as
training code writes it (log-softmax in float32, F.kl_div with log_target),
with the gradient of the batch-mean loss written out."""
import torch
import torch.nn.functional as F


def launch(args, params):
    student, teacher, loss, grad = args
    rows, vocab = params
    log_ps = torch.log_softmax(student.float(), dim=-1)
    log_pt = torch.log_softmax(teacher.float(), dim=-1)
    loss.copy_(F.kl_div(log_ps, log_pt, reduction="none", log_target=True).sum(-1))
    grad.copy_((log_ps.exp() - log_pt.exp()) / rows)
