"""Kernel sources the compile tests write into a temporary folder (real @triton.jit code): the shared vector
add, a matmul, a kernel that does not compile and a function that is no kernel."""

__all__ = ["ADD_SIGNATURE", "KERNELS", "MATMUL_CONSTEXPRS", "MATMUL_SIGNATURE"]

from tests.support.kernels import ADD_SIGNATURE, add_kernel_module

KERNELS = add_kernel_module() + '''

@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def broken_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets) + undefined_name)


def not_a_kernel(x):
    return x
'''

MATMUL_SIGNATURE = (
    "a_ptr=*fp16:16,b_ptr=*fp16:16,c_ptr=*fp16:16,M=i32,N=i32,K=i32,"
    "stride_am=i32,stride_ak=i32,stride_bk=i32,stride_bn=i32,stride_cm=i32,stride_cn=i32"
)
MATMUL_CONSTEXPRS = ["-c", "BLOCK_M=128", "-c", "BLOCK_N=128", "-c", "BLOCK_K=64"]
