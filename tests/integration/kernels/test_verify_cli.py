"""`tritondev verify` against the real triton 3.9.0 wheel on a machine without a GPU.

The kernels run under Triton's interpreter (TRITON_INTERPRET=1) on CPU torch and are checked against
torch; the ahead-of-time compile uses the real compilers. Environments without triton, torch or
numpy are real venvs (the last two see the triton venv's packages minus the one left out).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HAS_GPU
from tests.integration.kernels.conftest import RunCli, bare_venv
from tests.support.cli import tritondev_argv


@pytest.fixture(scope="module")
def verified(tdv: RunCli, triton_python: Path) -> dict[str, Any]:
    proc = tdv("verify", "--python", str(triton_python), "--json")
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


@pytest.mark.skipif(HAS_GPU, reason="checks the interpreter path, taken only without a GPU")
def test_verify_passes_under_the_interpreter(verified: dict[str, Any], triton_python: Path) -> None:
    assert verified["ok"] is True and verified["mode"] == "interpreter"
    triton = verified["triton"]
    assert triton["version"] == "3.9.0"
    assert triton["file"].startswith(str(triton_python.parent.parent))
    assert [(d["name"], d["version"], d["editable"]) for d in triton["distributions"]] == [("triton", "3.9.0", False)]
    assert triton["commit"] is None and triton["source_build"] is False
    assert {"nvidia", "amd"} <= set(triton["backends"])
    assert triton["active"] is None and triton["active_error"]  # no GPU driver here
    assert verified["torch"]["gpu"] is False and verified["numpy"]["version"]
    checks = {c["name"]: c for c in verified["checks"]}
    for kernel in ("vector_add", "softmax", "matmul"):
        assert checks[kernel]["ok"] is True
        assert checks[kernel]["max_abs_err"] <= checks[kernel]["tolerance"]
    assert verified["targets"] == ["cuda:80", "cuda:90", "hip:gfx942"]
    for label in verified["targets"]:
        check = checks[f"compile {label}"]
        assert check["ok"] is True
        expected = ["ttir", "ttgir", "llir", "ptx", "cubin", "sass"] if label.startswith("cuda") else [
            "ttir", "ttgir", "llir", "amdgcn", "hsaco"]  # fmt: skip
        assert check["stages"] == expected
    assert verified["bandwidth"] is None  # measured only on a GPU


def test_failed_target_compile_exits_1_with_the_reason(tdv: RunCli, triton_python: Path) -> None:
    # No LLVM or ptxas knows sm_99: a real compiler failure (LLVM aborts the process on the matmul's
    # Hopper instructions), reported as a failed check; the next target still compiles.
    proc = tdv("verify", "--python", str(triton_python), "--target", "cuda:99", "--target", "cuda:80")
    assert proc.returncode == 1, proc.stderr
    assert "FAIL compile cuda:99" in proc.stdout and "sm_99a" in proc.stdout
    assert "ok   compile cuda:80" in proc.stdout
    assert "verify failed: compile cuda:99" in proc.stderr
    for kernel in ("vector_add", "softmax", "matmul"):
        assert f"ok   {kernel}" in proc.stdout


def test_bad_target_is_usage_error(tdv: RunCli, triton_python: Path) -> None:
    proc = tdv("verify", "--python", str(triton_python), "--target", "cuda:volta", "--json")
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["exit_code"] == 2


def _venv_without(base_python: Path, tmp_path: Path, left_out: tuple[str, ...]) -> Path:
    """A real venv that sees every package of `base_python`'s venv except `left_out` (by top-level name)."""
    base_site = next((base_python.parent.parent / "lib").glob("python3*/site-packages"))
    view = tmp_path / "view"
    view.mkdir()
    for entry in base_site.iterdir():
        if not entry.name.lower().startswith(left_out):
            (view / entry.name).symlink_to(entry)
    py = bare_venv(tmp_path / "venv")
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    (site / "view.pth").write_text(f"{view}\n")
    return py


def test_target_without_triton_exits_3(tdv: RunCli, tmp_path: Path) -> None:
    bare = bare_venv(tmp_path / "bare")
    proc = tdv("verify", "--python", str(bare))
    assert proc.returncode == 3
    assert "triton is not installed" in proc.stderr and f"{bare} -m pip install triton" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(HAS_GPU, reason="without a GPU torch and numpy are both needed")
@pytest.mark.parametrize("module", ["torch", "numpy"])
def test_target_without_torch_or_numpy_exits_3_naming_it(
    tdv: RunCli, triton_python: Path, tmp_path: Path, module: str
) -> None:
    py = _venv_without(triton_python, tmp_path, (module,))
    proc = tdv("verify", "--python", str(py), "--json")
    assert proc.returncode == 3, proc.stderr
    error = json.loads(proc.stdout)
    assert error["exit_code"] == 3 and module in error["message"]
    assert error["fix"].startswith(f"{py} -m pip install {module}")
    assert "Traceback" not in proc.stderr


def test_help_lists_the_options() -> None:
    import subprocess

    proc = subprocess.run(tritondev_argv("verify", "--help"), capture_output=True, text=True)
    assert proc.returncode == 0
    for option in ("--target", "--json", "--python", "--workspace", "--verbose"):
        assert option in proc.stdout


@pytest.mark.skipif(HAS_GPU, reason="the interpreter path; on a GPU the kernels run there")
def test_verify_really_compiles_yet_leaves_the_triton_cache_alone(
    kernel_env: dict[str, str], kernel_file: Path, triton_python: Path
) -> None:
    """A verify that compiles with the ptxas Triton finds by itself (a build's TRITON_PTXAS_PATH, here a
    broken one, is not what a fresh shell has), and writes nothing into ~/.triton/cache; asked to,
    it uses that cache."""
    from tests.conftest import run_cli

    env = {k: v for k, v in kernel_env.items() if k != "TRITON_CACHE_DIR"}
    env["TRITON_PTXAS_PATH"] = str(kernel_file.parent / "no-such-ptxas")
    cache = Path(env["HOME"]) / ".triton" / "cache"
    args = ("verify", "--python", str(triton_python), "--target", "cuda:80", "--json")
    proc = run_cli(*args, env=env, cwd=kernel_file.parent, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    checks = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}
    bundled = triton_python.parent.parent / "lib"  # the wheel's own backends/nvidia/bin/ptxas
    ptxas = checks["ptxas"]
    assert ptxas["ok"] and ptxas["lookup"] == "triton.knobs.nvidia", ptxas
    assert ptxas["tools"]["ptxas"]["path"].startswith(str(bundled)), ptxas["tools"]
    assert ptxas["tools"]["ptxas"]["path"].endswith("triton/backends/nvidia/bin/ptxas")
    assert checks["compile cuda:80"]["ok"] and "cubin" in checks["compile cuda:80"]["stages"]  # ptxas ran
    assert not cache.exists(), sorted(p.name for p in cache.parent.iterdir())
    used = run_cli(*args, "--use-triton-cache", env=env, cwd=kernel_file.parent, timeout=600)
    assert used.returncode == 0, used.stderr[-3000:]
    assert cache.is_dir() and any(cache.iterdir())
