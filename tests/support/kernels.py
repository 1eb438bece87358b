"""The vector add every kernel test compiles, launches or captures, written once.

`add_kernel_source()` is the @triton.jit function's source (masked loads and store, one BLOCK-wide program
per block of `n` elements); test programs put it after their imports, under the name they use.
"""

from __future__ import annotations

import ast
from pathlib import Path

# The kernels `tritondev verify` runs: the tests compile its matmul rather than a copy of it.
SAMPLES = Path(__file__).resolve().parents[2] / "bootstrap/core/target/scripts/tritondev_samples.py"
IMPORTS = "import triton\nimport triton.language as tl\n"

_ADD_KERNEL = """@triton.jit
def {name}(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)
"""

ADD_SIGNATURE = "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32"


def add_kernel_source(name: str = "add_kernel") -> str:
    """The vector add's @triton.jit source, its function named `name`."""
    return _ADD_KERNEL.format(name=name)


def add_kernel_module(name: str = "add_kernel") -> str:
    """A module of its own: the imports, then the vector add."""
    return f"{IMPORTS}\n\n{add_kernel_source(name)}"


def sample_kernel_source(name: str) -> str:
    """The @triton.jit source (decorator included) of kernel `name` of the samples `tritondev verify` runs."""
    text = SAMPLES.read_text()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            lines = text.splitlines(keepends=True)
            return "".join(lines[node.decorator_list[0].lineno - 1 : node.end_lineno])
    raise LookupError(f"no kernel {name} in {SAMPLES}")
