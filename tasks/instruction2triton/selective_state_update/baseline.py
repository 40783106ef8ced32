"""selective_state_update - baseline: vLLM's/mamba_ssm's Triton kernel in
its plain form: one program per (BLOCK_P rows of headdim, sequence, head),
each holding a BLOCK_P x dstate tile of the state."""
import torch
import triton
import triton.language as tl


@triton.jit
def _ssu(s_ptr, x_ptr, dt_ptr, dtb_ptr, a_ptr, b_ptr, c_ptr, d_ptr, z_ptr, o_ptr,
         nheads, headdim, dstate, ngroups,
         BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_p = tl.program_id(0)
    b = tl.program_id(1)
    h = tl.program_id(2)
    g = h // (nheads // ngroups)
    offs_p = pid_p * BLOCK_P + tl.arange(0, BLOCK_P)
    offs_n = tl.arange(0, BLOCK_N)
    pm = offs_p < headdim
    nm = offs_n < dstate
    bh = b * nheads + h
    s_off = (bh.to(tl.int64) * headdim + offs_p[:, None]) * dstate + offs_n[None, :]
    sm = pm[:, None] & nm[None, :]
    s = tl.load(s_ptr + s_off, mask=sm, other=0.0)
    x = tl.load(x_ptr + bh * headdim + offs_p, mask=pm, other=0.0).to(tl.float32)
    z = tl.load(z_ptr + bh * headdim + offs_p, mask=pm, other=0.0).to(tl.float32)
    dt = tl.load(dt_ptr + bh).to(tl.float32) + tl.load(dtb_ptr + h)
    dt = tl.where(dt <= 20.0, tl.log(1.0 + tl.exp(dt)), dt)
    dA = tl.exp(tl.load(a_ptr + h) * dt)
    bv = tl.load(b_ptr + (b * ngroups + g) * dstate + offs_n, mask=nm, other=0.0).to(tl.float32)
    cv = tl.load(c_ptr + (b * ngroups + g) * dstate + offs_n, mask=nm, other=0.0).to(tl.float32)
    s = s * dA + (dt * x)[:, None] * bv[None, :]
    tl.store(s_ptr + s_off, s, mask=sm)
    o = tl.sum(s * cv[None, :], axis=1) + tl.load(d_ptr + h) * x
    o = o * z * tl.sigmoid(z)
    tl.store(o_ptr + bh * headdim + offs_p, o.to(tl.bfloat16), mask=pm)


def launch(args, params):
    state, x, dt, dt_bias, A, B, C, D, z, out = args
    batch, nheads, headdim, dstate, ngroups = params
    grid = (triton.cdiv(headdim, 16), batch, nheads)
    _ssu[grid](state, x, dt, dt_bias, A, B, C, D, z, out,
               nheads, headdim, dstate, ngroups,
               BLOCK_P=16, BLOCK_N=max(16, triton.next_power_of_2(dstate)),
               num_warps=4)
