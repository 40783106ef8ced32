"""merge_attn_states_bf16 - reference: float64, one rounding of out to
bf16 and of out_lse to float32."""
import torch


def launch(args, params):
    p_out, p_lse, s_out, s_lse, out, out_lse = args
    pl, sl = p_lse.double(), s_lse.double()
    m = torch.maximum(pl, sl)
    a, b = torch.exp(pl - m), torch.exp(sl - m)
    wa = (a / (a + b)).t().unsqueeze(-1)          # [tokens, heads, 1]
    wb = (b / (a + b)).t().unsqueeze(-1)
    o = p_out.double() * wa + s_out.double() * wb
    out.copy_(o.float().to(torch.bfloat16))
    out_lse.copy_((torch.log(a + b) + m).float())
