"""Real IR dumps of the real Triton, made once per session through `tritondev run --dump-ir`, and a
workspace whose Triton (the test world's) has a triton-opt.

No GPU is needed: tritondev's own ahead-of-time compile script (bootstrap/core/target/scripts/tritondev_aot.py,
what `tritondev compile` runs) compiles a vector add for cuda:90 and hip:gfx942 inside the cached
venvs of Triton 3.9 and 3.2.0 (tests/support/venvs.py), with MLIR_ENABLE_DUMP=1 from `run --dump-ir`.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.integration.build.harness import base_env, setup_args, tritondev
from tests.support.run_shared import current_run_folder, warm_ccache
from tests.support.venvs import shared_venv, triton_venv, workspace_venv
from tests.world.world import World

REPO = Path(__file__).resolve().parents[3]
AOT = REPO / "bootstrap" / "core" / "target" / "scripts" / "tritondev_aot.py"

# Not the shared vector add (tests/support/kernels.py): the loads are named (x, y) and the program id kept, so
# that the dumps with line info name their values after them.
KERNEL = """
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
"""

TARGETS = {
    "cuda:90": {"label": "cuda:90", "backend": "cuda", "arch": 90, "warp_size": 32, "folder": "cuda-90"},
    "hip:gfx942": {"label": "hip:gfx942", "backend": "hip", "arch": "gfx942", "warp_size": 64, "folder": "hip-gfx942"},
}


@dataclass(frozen=True)
class Dumps:
    """Dump folders written by `tritondev run --dump-ir`, by name."""

    folders: dict[str, Path]
    kernel_file: Path

    def __getitem__(self, name: str) -> Path:
        return self.folders[name]


def clean_environment(home: Path) -> dict[str, str]:
    # The run's shared ccache inside the test suite; a benchmark (tests/perf) runs outside it, with its own.
    ccache = warm_ccache() if current_run_folder() is not None else home / "ccache"
    env = base_env(home, xdg=home / ".cache", ccache_dir=ccache)
    env["TRITON_DEFAULT_FP_FUSION"] = "1"  # silences a deprecation warning of Triton 3.9
    return env


def dump_with_run(
    python: Path, kernel_file: Path, target: str, num_warps: int, folder: Path, env: dict[str, str], *extra: str
) -> subprocess.CompletedProcess[str]:
    """`tritondev run --dump-ir --dump-dir FOLDER [extra] -- python tritondev_aot.py REQUEST` for one target."""
    request = folder.with_suffix(".request.json")
    request.write_text(
        json.dumps(
            {
                "source": str(kernel_file),
                "kernel": "add_kernel",
                "params": [
                    {"name": n, "type": t}
                    for n, t in (("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n", "i32"))
                ],
                "constexprs": {"BLOCK": 1024},
                "targets": [TARGETS[target]],
                "out": str(folder.with_suffix(".out")),
                "options": {"num_warps": num_warps},
            }
        )
    )
    backend = "amd" if target.startswith("hip") else "nvidia"
    return tritondev(
        "run",
        "--dump-ir",
        "--dump-dir",
        str(folder),
        "--backend",
        backend,
        *extra,
        "--",
        str(python),
        str(AOT),
        str(request),
        env=env,
        timeout=600,
    )


@pytest.fixture(scope="session")
def real_dumps(tmp_path_factory: pytest.TempPathFactory) -> Dumps:
    root = tmp_path_factory.mktemp("real-dumps")
    kernel_file = root / "add.py"
    kernel_file.write_text(KERNEL)
    env = clean_environment(root / "home")
    new, old = triton_venv(), shared_venv("triton-3.2.0", ["triton==3.2.0"])
    plan = {
        "3.9-cuda90-w4": (new, "cuda:90", 4),
        "3.9-cuda90-w8": (new, "cuda:90", 8),
        "3.9-hip-w4": (new, "hip:gfx942", 4),
        "3.2-cuda90-w4": (old, "cuda:90", 4),
    }
    folders = {}
    for name, (python, target, warps) in plan.items():
        folder = root / name
        proc = dump_with_run(python, kernel_file, target, warps, folder, env)
        assert proc.returncode == 0, f"{name}: {proc.stderr[-3000:]}"
        folders[name] = folder
    return Dumps(folders, kernel_file)


@dataclass(frozen=True)
class MiniWorkspace:
    """A workspace set up (for real) from the test world: its Triton's build folder has bin/triton-opt."""

    root: Path
    env: dict[str, str]
    world: World

    @property
    def build_dir(self) -> Path:
        return next((self.root / "src" / "triton" / "build").glob("cmake.*"))

    @property
    def triton_src(self) -> Path:
        return self.root / "src" / "triton"

    def cli(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        return tritondev(*args, "--workspace", str(self.root), env=self.env, timeout=timeout)


@pytest.fixture(scope="session")
def mini_workspace(world: World, tmp_path_factory: pytest.TempPathFactory) -> MiniWorkspace:
    root = tmp_path_factory.mktemp("opt-world")
    env = clean_environment(root / "home")
    workspace_venv(root / "ws")  # made ahead: making it is the setup tests' subject
    proc = tritondev(*setup_args(world, root / "ws", "main"), env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return MiniWorkspace(root / "ws", env, world)


def parse_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The one JSON document a --json run prints on stdout."""
    data: dict[str, Any] = json.loads(proc.stdout)
    return data
