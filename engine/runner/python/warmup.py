"""A trivial Triton kernel that the GPU runner compiles and runs before its
sandbox (arena_runner_py.prepare_cuda), so that Triton's compiler, its
launcher and whatever threads they keep exist alike in every GPU runner -
a PyTorch baseline's as a Triton candidate's - and Triton's driver module
is built while it may still run the C compiler freely.  Trusted code; its
own module, so that Triton reads its source from a file of its own."""
import triton
import triton.language as tl


@triton.jit
def arena_warm(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(p + offs, tl.load(p + offs, mask=m) + 1.0, mask=m)
