"""rope_hf_bf16 - baseline: Hugging Face transformers' apply_rotary_pos_emb
(models/llama/modeling_llama.py), in bf16 as the model runs it."""
import torch


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def launch(args, params):
    q, k, cos, sin, q_out, k_out = args
    q_embed, k_embed = apply_rotary_pos_emb(q, k, cos, sin)
    q_out.copy_(q_embed)
    k_out.copy_(k_embed)
