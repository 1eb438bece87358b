"""The dump of a real launch on the GPU (the JIT path, not the ahead-of-time one): `ir diff` of two
launches with other num_warps, and `opt --dry-run` on it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.integration.build.harness import tritondev
from tests.integration.ir_tools.conftest import clean_environment, parse_json
from tests.support.kernels import IMPORTS, add_kernel_source
from tests.support.venvs import triton_venv

LAUNCH = f"""
import sys
import torch
{IMPORTS}

{add_kernel_source()}

x = torch.rand(4096, device="cuda")
y = torch.rand(4096, device="cuda")
out = torch.empty_like(x)
add_kernel[(4,)](x, y, out, 4096, BLOCK=1024, num_warps=int(sys.argv[1]))
torch.cuda.synchronize()
assert torch.allclose(out, x + y)
print(triton.runtime.driver.active.get_current_target())
"""


@pytest.mark.gpu
def test_dumps_of_real_launches(tmp_path: Path) -> None:
    python = Path(sys.executable) if importlib.util.find_spec("triton") else triton_venv()
    script = tmp_path / "launch.py"
    script.write_text(LAUNCH)
    env = clean_environment(tmp_path / "home")
    for warps in (4, 8):
        proc = tritondev(
            "run",
            "--dump-ir",
            "--dump-dir",
            str(tmp_path / f"w{warps}"),
            "--",
            str(python),
            str(script),
            str(warps),
            env=env,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
    data = parse_json(tritondev("ir", "diff", str(tmp_path / "w4"), str(tmp_path / "w8"), "--json", env=env))
    assert data["verdict"] == "pass" and data["pass"] == "convert-triton-to-tritongpu"
    opt = parse_json(
        tritondev(
            "opt",
            "tritongpu-coalesce",
            "--dump",
            str(tmp_path / "w4"),
            "--dry-run",
            "--json",
            "--workspace",
            str(tmp_path / "ws"),
            env=env,
        )
    )
    assert 'ttg.target = "cuda:' in Path(str(opt["input"])).read_text()
