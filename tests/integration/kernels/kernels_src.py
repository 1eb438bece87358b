"""Kernel sources the compile tests write into a temporary folder (real @triton.jit code): the shared vector
add, the matmul `tritondev verify` runs, a kernel that does not compile and a function that is no kernel."""

__all__ = ["ADD_SIGNATURE", "KERNELS", "MATMUL_CONSTEXPRS", "MATMUL_SIGNATURE"]

from tests.support.kernels import ADD_SIGNATURE, add_kernel_module, sample_kernel_source

KERNELS = (
    add_kernel_module()
    + "\n\n"
    + sample_kernel_source("matmul_kernel")
    + """

@triton.jit
def broken_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets) + undefined_name)


def not_a_kernel(x):
    return x
"""
)

MATMUL_SIGNATURE = (
    "a_ptr=*fp16:16,b_ptr=*fp16:16,c_ptr=*fp16:16,M=i32,N=i32,K=i32,"
    "stride_am=i32,stride_ak=i32,stride_bk=i32,stride_bn=i32,stride_cm=i32,stride_cn=i32"
)
MATMUL_CONSTEXPRS = ["-c", "BLOCK_M=128", "-c", "BLOCK_N=128", "-c", "BLOCK_K=64"]
