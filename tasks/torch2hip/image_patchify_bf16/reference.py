"""image_patchify_bf16 - reference: float64, one rounding to bf16."""
import torch


def launch(args, params):
    pixels, mean, std, out = args
    b, h, w, p = params
    x = pixels.permute(0, 3, 1, 2).double() / 255.0
    x = (x - mean.double()[:, None, None]) / std.double()[:, None, None]
    x = x.reshape(b, 3, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5)
    out.copy_(x.reshape(b, (h // p) * (w // p), 3 * p * p).float().to(torch.bfloat16))
