"""Real kernel-cache entries and real IR dumps, made once per test session with the real Triton wheel.

No GPU is needed: triton.compile() compiles ahead of time for an explicit target (cuda:90 through
the wheel's own ptxas, hip:gfx942 through its LLVM AMDGPU backend) and writes the same cache
entries a kernel launch would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing has it from Python 3.11; only mypy reads it here

from tests.conftest import Cli, CliOptions
from tests.support.environ import child_environ
from tests.support.kernels import add_kernel_module
from tests.support.venvs import triton_venv

# A small kernel; the script compiles it for each target named on its command line and prints marker
# lines on stdout and stderr after each compile, so tests can tell the program's output from dumps.
KERNEL_SCRIPT = (
    """
import sys
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
"""
    + add_kernel_module()
    + """

@triton.jit
def scale_kernel(x_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


KERNELS = {
    "add_kernel": (add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}),
    "scale_kernel": (scale_kernel, {"x_ptr": "*fp32", "n": "i32", "factor": "fp32"}),
}

print("program: start", flush=True)
for spec in sys.argv[1:]:
    name, target = spec.split("@")
    backend, arch = target.split(":")
    gpu = GPUTarget("cuda", int(arch), 32) if backend == "cuda" else GPUTarget("hip", arch, 64)
    fn, signature = KERNELS[name]
    compiled = triton.compile(ASTSource(fn=fn, signature=signature, constexprs={"BLOCK": 128}), target=gpu)
    print(f"program: compiled {name} for {target}", flush=True)
    print(f"program-stderr: done {name} {target}", file=sys.stderr, flush=True)
sys.exit(int(__import__("os").environ.get("KERNEL_SCRIPT_EXIT", "0")))
"""
)

# A launcher-like shared object built by Triton's own build helper (as cuda_utils and the launchers
# are on a GPU machine): a cache entry without kernel metadata.
MODULE_SCRIPT = """
from triton.runtime.build import compile_so_from_src
print(compile_so_from_src("int tritondev_probe(void) { return 7; }\\n", "cuda_utils"))
"""


def quiet_env(**extra: str) -> dict[str, str]:
    env = child_environ("MLIR_", "LLVM_")
    env["TRITON_DEFAULT_FP_FUSION"] = "1"  # silences a deprecation warning of Triton 3.9
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def triton_python() -> Path:
    return triton_venv()


@pytest.fixture(scope="session")
def kernel_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("script") / "kernels.py"
    path.write_text(KERNEL_SCRIPT)
    return path


@pytest.fixture(scope="session")
def pristine_cache(tmp_path_factory: pytest.TempPathFactory, triton_python: Path, kernel_script: Path) -> Path:
    """A cache made by real compiles: add_kernel for cuda:90 and hip:gfx942, scale_kernel for cuda:80, one module."""
    cache = tmp_path_factory.mktemp("pristine") / "cache"
    env = quiet_env(TRITON_CACHE_DIR=str(cache))
    subprocess.run(
        [str(triton_python), str(kernel_script), "add_kernel@cuda:90", "add_kernel@hip:gfx942", "scale_kernel@cuda:80"],
        check=True,
        env=env,
        capture_output=True,
    )
    subprocess.run([str(triton_python), "-c", MODULE_SCRIPT], check=True, env=env, capture_output=True)
    return cache


@pytest.fixture
def real_cache(pristine_cache: Path, tmp_path: Path) -> Path:
    """A private copy of the real cache that a test may age, prune or clear."""
    copy = tmp_path / "cache"
    shutil.copytree(pristine_cache, copy, symlinks=True)
    return copy


def age_entry(folder: Path, seconds: float) -> None:
    """Make an entry look `seconds` old, as if written then (Triton never rewrites an entry)."""
    when = time.time() - seconds
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (when, when))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "ws"


@pytest.fixture
def cli(cli: Cli, workspace: Path) -> Cli:
    """The shared CLI runner with a workspace of the test's own (never one found upward from /tmp)."""

    def _run(
        *args: str, env: dict[str, str] | None = None, **options: Unpack[CliOptions]
    ) -> subprocess.CompletedProcess[str]:
        return cli(*args, env={"TRITONDEV_WORKSPACE": str(workspace), **(env or {})}, **options)

    return _run
