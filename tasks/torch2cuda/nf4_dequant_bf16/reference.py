"""nf4_dequant_bf16 - reference: the NF4 table lookup and the scale in
float64, one rounding to bf16."""
import torch

NF4 = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
       -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
       0.07958029955625534, 0.16093020141124725, 0.24611230194568634,
       0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
       0.7229568362236023, 1.0]


def launch(args, params):
    qweight, absmax, w = args
    n, k = params
    q = qweight.long()
    codes = torch.stack([q >> 4, q & 15], dim=-1).reshape(-1)
    table = torch.tensor(NF4, dtype=torch.float64, device=qweight.device)
    v = table[codes] * absmax.double().repeat_interleave(64)
    w.copy_(v.reshape(n, k).float().to(torch.bfloat16))
