"""rope_hf_bf16 - reference: the same formula in float64, one rounding to
bf16."""
import torch


def launch(args, params):
    q, k, cos, sin, q_out, k_out = args
    c = cos.double().unsqueeze(1)
    s = sin.double().unsqueeze(1)
    for x, o in ((q, q_out), (k, k_out)):
        xd = x.double()
        h = xd.shape[-1] // 2
        rot = torch.cat((-xd[..., h:], xd[..., :h]), dim=-1)
        o.copy_((xd * c + rot * s).float().to(torch.bfloat16))
