"""w4a16_gptq_gemm - reference: the nibbles unpacked with integer shifts,
the weight dequantised and the product summed in float64, one rounding to
float16."""
import torch


def launch(args, params):
    x, qweight, scales, out = args
    m, n, k, group = params
    shifts = torch.arange(0, 32, 4, device=x.device, dtype=torch.int32)
    q = (qweight[:, None, :] >> shifts[None, :, None]) & 15      # [k/8, 8, n]
    q = q.reshape(k, n).double()
    s = scales.double().repeat_interleave(group, dim=0)           # [k, n]
    w = (q - 8.0) * s
    out.copy_(torch.matmul(x.double(), w).float().to(torch.float16))
