"""ptxas and the arch, against real Triton wheels from the package index and the CUDA 13 toolkit here.

- triton 3.5.1 bundles ptxas 12.8, which does not know sm_121a (DGX Spark, triton#8539); the CUDA 13.0
  ptxas in /usr/local/cuda does. Doctor must prove that and propose exactly that variable.
- triton 3.2.0's LLVM does not know sm_121 and its PTX-version table rejects CUDA 13: no ptxas helps,
  so the fix is a newer Triton, never a ptxas variable.
- triton 3.9.0 compiles for sm_121 with what it bundles: no false alarm.
No GPU is needed: the proof is an ahead-of-time compile for the arch.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, Cli
from tests.integration.doctor.conftest import checks_of
from tests.support.environ import child_environ
from tests.support.kernels import add_kernel_module
from tests.support.venvs import shared_venv, triton_venv

CUDA_PTXAS = Path("/usr/local/cuda/bin/ptxas")

pytestmark = pytest.mark.skipif(not CUDA_PTXAS.exists(), reason="needs the CUDA 13 toolkit's ptxas")

KERNEL = add_kernel_module("add")


def triton_351() -> Path:
    return shared_venv("triton-3.5.1", ["triton==3.5.1"])


def triton_320() -> Path:
    return shared_venv("triton-3.2.0", ["triton==3.2.0"])


@pytest.mark.slow
def test_bundled_ptxas_too_old_for_sm_121_is_proved_and_fixed(cli: Cli, tmp_path: Path) -> None:
    py = triton_351()
    ws = tmp_path / "ws"
    args = ("doctor", "--python", str(py), "--workspace", str(ws), "--arch", "sm_121", "--check", "ptxas.arch")
    temporary = tmp_path / "tmpdir"
    temporary.mkdir()
    result = cli(*args, "--json", env={"TMPDIR": str(temporary)})
    assert result.returncode == 1, result.stderr
    # The failed proof's .ptx, which Triton leaves in its temporary folder, went with doctor's own folders.
    assert list(temporary.iterdir()) == []
    check = checks_of(result.stdout)["ptxas.arch"]
    assert check["status"] == "error"
    assert "Triton 3.5.1" in check["summary"] and "ptxas 12.8" in check["summary"]
    assert f"export TRITON_PTXAS_PATH={CUDA_PTXAS}" in check["fix"] and check["auto_fixable"]
    assert any("'sm_121a' is not defined" in d for d in check["details"])
    assert any(d.startswith(f"{CUDA_PTXAS} (CUDA 13.0): compiles") for d in check["details"])

    # --fix writes the proven variable into the workspace env file that `tritondev env` prints.
    fixed = cli(*args, "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert f"wrote TRITON_PTXAS_PATH={CUDA_PTXAS}" in fixed.stdout
    exports = cli("env", "--workspace", str(ws))
    assert exports.returncode == 0, exports.stderr
    assert f"TRITON_PTXAS_PATH={CUDA_PTXAS}" in exports.stdout

    # Until the shell loads it, doctor says exactly that.
    again = checks_of(cli(*args, "--json").stdout)["ptxas.arch"]
    # The command repeats the workspace and interpreter this doctor was given (bootstrap.core.fixlines).
    assert again["status"] == "error" and again["fix"].startswith(f'eval "$(tritondev env --workspace {ws} --python ')
    # With it loaded, the same check passes, reporting the override.
    loaded = checks_of(cli(*args, "--json", env={"TRITON_PTXAS_PATH": str(CUDA_PTXAS)}).stdout)["ptxas.arch"]
    assert loaded["status"] == "ok" and "override ptxas 13.0" in loaded["summary"]

    # And the user's real workflow: eval the env, then cross-compile for cuda:121.
    (tmp_path / "kernel.py").write_text(KERNEL)
    tritondev = f"{shlex.quote(sys.executable)} -m bootstrap"
    compile_cmd = (
        f"{tritondev} compile kernel.py::add --signature 'x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32'"
        f" --constexpr BLOCK=128 --target cuda:121 --python {shlex.quote(str(py))} --out out"
        f" --workspace {shlex.quote(str(ws))}"
    )
    env = child_environ()
    env["PYTHONPATH"] = str(REPO)
    env["HOME"] = str(tmp_path / "home")
    env["TRITON_CACHE_DIR"] = str(tmp_path / "triton-cache")
    before = subprocess.run(["bash", "-c", compile_cmd], cwd=tmp_path, env=env, capture_output=True, text=True)
    # Without the fix the bundled ptxas fails for sm_121a; compile then proves the toolkit's by compiling with
    # it, and names the variable doctor --fix wrote.
    assert before.returncode == 0, before.stderr
    assert f"does not know sm_121a: compiled with {CUDA_PTXAS}" in before.stderr
    assert f"export TRITON_PTXAS_PATH={CUDA_PTXAS}" in before.stderr
    after = subprocess.run(
        ["bash", "-c", f'eval "$({tritondev} env --workspace {shlex.quote(str(ws))})" && {compile_cmd}'],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert after.returncode == 0, after.stdout + after.stderr
    assert "compiled with" not in after.stderr  # with the variable loaded, Triton's own ptxas is the toolkit's
    assert list((tmp_path / "out").rglob("*.cubin")), "the compile wrote no cubin"


def test_triton_too_old_for_the_arch_gets_an_upgrade_not_a_ptxas(cli: Cli, tmp_path: Path) -> None:
    py = triton_320()
    ws = tmp_path / "ws"
    args = ("doctor", "--python", str(py), "--workspace", str(ws), "--arch", "sm_121", "--check", "ptxas.arch")
    temporary = tmp_path / "tmpdir"
    temporary.mkdir()
    result = cli(*args, "--json", env={"TMPDIR": str(temporary)})
    assert result.returncode == 1, result.stderr
    # The failed proof's .ptx, which Triton leaves in its temporary folder, went with doctor's own folders.
    assert list(temporary.iterdir()) == []
    check = checks_of(result.stdout)["ptxas.arch"]
    assert check["status"] == "error" and "too old for this arch" in check["summary"]
    assert "triton>=3.7.1" in check["fix"] and "TRITON_PTXAS_PATH=" not in check["fix"]
    assert not check["auto_fixable"]
    # the CUDA 13 ptxas was tried and rejected by this Triton's PTX-version table
    assert any("only support CUDA 10.0 or higher" in d for d in check["details"])
    fixed = cli(*args, "--fix", "--json")
    assert json.loads(fixed.stdout)["fixes"] == [] and not (ws / "env.sh").exists()


def test_current_triton_compiles_for_new_and_old_archs(cli: Cli, tmp_path: Path) -> None:
    py = triton_venv()
    for arch in ("sm_121", "sm_90a"):
        result = cli(
            "doctor",
            "--python",
            str(py),
            "--workspace",
            str(tmp_path / "ws"),
            "--arch",
            arch,
            "--check",
            "ptxas",
            "--json",
        )
        checks = checks_of(result.stdout)
        assert checks["ptxas.arch"]["status"] == "ok", checks["ptxas.arch"]
        assert "Triton 3.9.0 compiles" in checks["ptxas.arch"]["summary"]
        assert result.returncode == 0


def test_an_override_that_does_not_run_is_named(cli: Cli, tmp_path: Path) -> None:
    broken = tmp_path / "ptxas"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    py = triton_351()
    result = cli(
        "doctor",
        "--python",
        str(py),
        "--workspace",
        str(tmp_path / "ws"),
        "--arch",
        "sm_90",
        "--check",
        "ptxas",
        "--json",
        env={"TRITON_PTXAS_PATH": str(broken)},
    )
    checks = checks_of(result.stdout)
    assert checks["ptxas.overrides"]["status"] == "error"
    assert "silently falls back" in checks["ptxas.overrides"]["summary"]
    # Triton itself falls back to its bundled ptxas, which handles sm_90a fine.
    assert checks["ptxas.arch"]["status"] == "ok" and "bundled ptxas 12.8" in checks["ptxas.arch"]["summary"]


def test_a_ptxas_variable_this_triton_does_not_read_for_the_arch_is_named(cli: Cli, tmp_path: Path) -> None:
    # Triton 3.9 uses ptxas-blackwell for sm_121: the old recipe's TRITON_PTXAS_PATH changes nothing.
    result = cli(
        "doctor",
        "--python",
        str(triton_venv()),
        "--workspace",
        str(tmp_path / "ws"),
        "--arch",
        "sm_121",
        "--check",
        "ptxas",
        "--json",
        env={"TRITON_PTXAS_PATH": str(CUDA_PTXAS)},
    )
    check = checks_of(result.stdout)["ptxas.overrides"]
    assert check["status"] == "warn"
    assert "TRITON_PTXAS_PATH has no effect for sm_121 on Triton 3.9.0" in check["summary"]
    assert f"TRITON_PTXAS_BLACKWELL_PATH={CUDA_PTXAS}" in check["fix"]
    assert result.returncode == 0


def test_triton_3_3s_ptxas_tuple_is_read_not_skipped(cli: Cli, tmp_path: Path) -> None:
    """Triton 3.3 (PyTorch 2.7): get_ptxas(arch) returns _path_to_binary's (path, version) tuple, not a
    knobs.NvidiaTool; for sm_100 it is ptxas-blackwell, whose override 3.3 reads as
    TRITON_PTXAS-BLACKWELL_PATH (third_party/nvidia/backend/compiler.py @ 96316ce5)."""
    py = shared_venv("triton-3.3.1", ["triton==3.3.1"])
    ws = tmp_path / "ws"
    result = cli(
        "doctor", "--python", str(py), "--workspace", str(ws), "--arch", "sm_90", "--check", "ptxas.arch", "--json"
    )
    check = checks_of(result.stdout)["ptxas.arch"]
    assert check["status"] == "ok", check
    assert "Triton 3.3.1" in check["summary"] or "3.3.1" in json.dumps(check), check
    blackwell = cli(
        "doctor", "--python", str(py), "--workspace", str(ws), "--arch", "sm_100", "--check", "ptxas.arch", "--json"
    )
    found = checks_of(blackwell.stdout)["ptxas.arch"]
    assert found["status"] != "skipped", found
    assert "TRITON_PTXAS-BLACKWELL_PATH" in json.dumps(found) or found["status"] == "ok", found
    if "TRITON_PTXAS-BLACKWELL_PATH" in (found.get("fix") or ""):
        assert not (found.get("fix") or "").startswith("export") and not found["auto_fixable"]
