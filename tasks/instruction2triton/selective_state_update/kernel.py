"""selective_state_update - write Mamba-2's decode-step state update in
Triton (README.md is the specification).

launch(args, params): args = [state, x, dt, dt_bias, A, B, C, D, z, out]
(GPU tensors, shapes and dtypes in TASK.md; state is updated in place),
params = [batch, nheads, headdim, dstate, ngroups]; write every element of
out and of state.  The rule of this task: no library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("selective_state_update: write the Triton kernel")
