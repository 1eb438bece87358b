"""`tritondev cache ls` over the entries a real kernel launch creates on the GPU."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.integration.cache_env_run.conftest import quiet_env
from tests.support.venvs import triton_venv

# No tensors needed: a kernel with scalar arguments is compiled for the GPU, and Triton builds its
# driver utilities and launcher, exactly as for any launch.
LAUNCH = """
import triton
import triton.language as tl


@triton.jit
def noop_kernel(n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK > 0)


noop_kernel[(1,)](3, BLOCK=64)
print(triton.runtime.driver.active.get_current_target())
"""


def gpu_python() -> Path:
    """The interpreter running the tests when it has Triton (a GPU machine's own stack), else the shared venv."""
    return Path(sys.executable) if importlib.util.find_spec("triton") else triton_venv()


@pytest.mark.gpu
def test_ls_over_entries_of_a_real_launch(cli: Cli, tmp_path: Path) -> None:
    python = gpu_python()
    cache = tmp_path / "cache"
    script = tmp_path / "launch.py"  # @triton.jit needs the source in a file
    script.write_text(LAUNCH)
    launched = subprocess.run(
        [str(python), str(script)], env=quiet_env(TRITON_CACHE_DIR=str(cache)), capture_output=True, text=True
    )
    assert launched.returncode == 0, launched.stderr
    result = cli("cache", "ls", "--json", "--python", str(python), env={"TRITON_CACHE_DIR": str(cache)})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True, text=True, check=True
    )
    expected = sorted({"cuda:" + line.strip().replace(".", "") for line in smi.stdout.splitlines() if line.strip()})
    assert sorted(data["local_targets"]) == expected
    kernels = [e for e in data["entries"] if e["kind"] == "kernel"]
    assert [k["name"] for k in kernels] == ["noop_kernel"]
    kernel = kernels[0]
    assert kernel["target"] in expected and not kernel["stale"], kernel["stale_reasons"]
    assert kernel["triton_version"] == data["installed_triton"] is not None
    assert isinstance(kernel["n_regs"], int)
    assert [e for e in data["entries"] if e["kind"] == "module"], "the launch builds its driver utilities"

    # The same kernel as if built for another GPU: stale, and the listing says why.
    other = "cuda:80" if kernel["target"] != "cuda:80" else "cuda:90"
    copy = cache / ("A" * 52)
    shutil.copytree(kernel["path"], copy)
    meta = json.loads((copy / "noop_kernel.json").read_text())
    meta["target"]["arch"] = int(other.split(":")[1])
    (copy / "noop_kernel.json").write_text(json.dumps(meta))
    data = json.loads(
        cli("cache", "ls", "--json", "--python", str(python), env={"TRITON_CACHE_DIR": str(cache)}).stdout
    )
    stale = [e for e in data["entries"] if e["stale"]]
    assert [e["key"] for e in stale] == [copy.name]
    assert stale[0]["stale_reasons"] == [f"built for {other}, this machine has {', '.join(expected)}"]
