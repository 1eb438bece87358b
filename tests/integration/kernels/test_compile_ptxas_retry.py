"""`compile --target cuda:110` when the ptxas Triton picks does not know the arch: Triton compiles the target
again with the toolkit's ptxas, the report says which one and the variable that makes Triton use it, and
the PTX Triton prints on the way is written to a file, never shown in the message.

The seed case is Triton 3.6 on a CUDA 13 machine: its bundled ptxas-blackwell (CUDA 12.9) stops with
"Value 'sm_110a' is not defined for option 'gpu-name'" while /usr/local/cuda/bin/ptxas (13.0) knows it.
The normal suite runs the real Triton 3.9 wheel, whose own ptxas-blackwell (13.4) knows sm_110a and
whose LLVM refuses to write PTX 8.8 for sm_110a before any 12.9 ptxas runs: no real ptxas can make
3.9 fail the way 3.6 does. So a small shell script stands in for the bundled ptxas: it answers
--version as the 13.4 ptxas does (so Triton writes PTX it accepts) and refuses sm_110a/sm_107a with
ptxas's own message, through TRITON_PTXAS_BLACKWELL_PATH (what 3.9's knobs read for the arch). The
toolkit ptxas is the machine's real /usr/local/cuda/bin/ptxas where it knows sm_110a, and else a
CUDA_HOME whose bin/ptxas runs the wheel's real 13.4 ptxas. The real case, with no stand-in, is the
gpu-marked test at the end.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.kernels.conftest import RunCli

SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
MACHINE_PTXAS = Path("/usr/local/cuda/bin/ptxas")
PTX_LINE = re.compile(r"^\s*\.(b8|version|target|address_size|visible|entry|reg|param)\b")


def _wheel_ptxas(triton_python: Path) -> Path:
    site = next(triton_python.parent.parent.glob("lib/python3*/site-packages"))
    return site / "triton" / "backends" / "nvidia" / "bin" / "ptxas-blackwell"


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def _bundled_that_refuses(tmp_path: Path, real: Path) -> Path:
    return _script(
        tmp_path / "bundled" / "ptxas-blackwell",
        f"""case " $* " in
  *" --version "*) exec {real} --version ;;
  *sm_110a*) echo "ptxas-blackwell fatal   : Value 'sm_110a' is not defined for option 'gpu-name'" >&2; exit 255 ;;
  *sm_107a*) echo "ptxas-blackwell fatal   : Value 'sm_107a' is not defined for option 'gpu-name'" >&2; exit 255 ;;
esac
exec {real} "$@"
""",
    )


def _machine_ptxas_knows(arch: str) -> bool:
    if not os.access(MACHINE_PTXAS, os.X_OK):
        return False
    shown = subprocess.run([str(MACHINE_PTXAS), "--help"], capture_output=True, text=True).stdout
    return arch in shown


@pytest.mark.parametrize("toolkit", ["machine", "stand-in"])
def test_a_toolkit_ptxas_compiles_the_target_and_is_named(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path, toolkit: str
) -> None:
    real = _wheel_ptxas(triton_python)
    bundled = _bundled_that_refuses(tmp_path, real)
    env = {"TRITON_PTXAS_BLACKWELL_PATH": str(bundled), "NVPTX_ENABLE_DUMP": "1"}  # Triton prints the PTX too
    if toolkit == "machine":
        if not _machine_ptxas_knows("sm_110a"):
            pytest.skip("no /usr/local/cuda/bin/ptxas that knows sm_110a on this machine")
        expected = str(MACHINE_PTXAS)
    else:
        cuda = tmp_path / "cuda"
        expected = str(_script(cuda / "bin" / "ptxas", f'exec {real} "$@"\n'))
        env["CUDA_HOME"] = str(cuda)
    out = tmp_path / "out"
    args = (
        "compile",
        f"{kernel_file}::add_kernel",
        "-s",
        SIGNATURE,
        "-t",
        "cuda:110",
        "-t",
        "cuda:90",
        "-o",
        str(out),
        "--python",
        str(triton_python),
    )
    # Each run with its own Triton cache: a kernel compiled with the toolkit's ptxas is a cache hit after.
    proc = tdv(*args, "--json", env={**env, "TRITON_CACHE_DIR": str(tmp_path / "cache-1")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    (retry,) = report["ptxas_retries"]
    assert retry["target"] == "cuda:110" and retry["gpu_name"] == "sm_110a"
    assert retry["failed_with"].startswith(str(bundled)) and retry["used"] == expected
    assert retry["variables"] == ["TRITON_PTXAS_BLACKWELL_PATH"]
    assert retry["exports"] == [f"export TRITON_PTXAS_BLACKWELL_PATH={expected}"]
    targets = {t["target"]: t for t in report["targets"]}
    assert targets["cuda:110"]["ok"] and ".target sm_110a" in (out / "cuda-110" / "add_kernel.ptx").read_text()
    assert (out / "cuda-110" / "add_kernel.cubin").stat().st_size > 0
    assert (out / "cuda-110" / "add_kernel.sass").is_file()
    failed_ptx = Path(retry["failed_ptx"])
    assert failed_ptx == out / "cuda-110.failed.ptx" and ".target sm_110a" in failed_ptx.read_text()
    assert not retry["tried"]  # the first toolkit ptxas worked
    # The text report: which ptxas, the export line, the files; never a line of PTX.
    shutil.rmtree(out)
    text = tdv(*args, env={**env, "TRITON_CACHE_DIR": str(tmp_path / "cache-2")})
    assert text.returncode == 0, text.stderr[-3000:]
    assert f"compiled with {expected}" in text.stderr
    assert f"export TRITON_PTXAS_BLACKWELL_PATH={expected}" in text.stderr
    assert str(out / "cuda-110.failed.ptx") in text.stderr
    assert [line for line in (text.stdout + text.stderr).splitlines() if PTX_LINE.match(line)] == []


def test_no_ptxas_that_knows_the_arch_is_one_error_without_ptx(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path
) -> None:
    """sm_107a: no ptxas on the machine compiles it for Triton (the toolkit's is tried and fails too). Triton
    leaves the PTX of each failed ptxas in its temporary folder: tritondev's TMPDIR holds nothing after."""
    bundled = _bundled_that_refuses(tmp_path, _wheel_ptxas(triton_python))
    refusing_toolkit = tmp_path / "cuda"
    _script(refusing_toolkit / "bin" / "ptxas", f'exec {bundled} "$@"\n')
    out = tmp_path / "out"
    temporary = tmp_path / "tmpdir"
    temporary.mkdir()
    proc = tdv(
        "compile",
        f"{kernel_file}::add_kernel",
        "-s",
        SIGNATURE,
        "-t",
        "cuda:107",
        "-o",
        str(out),
        "--python",
        str(triton_python),
        env={"TRITON_PTXAS_BLACKWELL_PATH": str(bundled), "CUDA_HOME": str(refusing_toolkit), "TMPDIR": str(temporary)},
    )
    assert proc.returncode == 4, proc.stderr[-3000:]
    assert list(temporary.iterdir()) == []  # nothing left: no .ptx of Triton's, no folder of tritondev's
    assert "fix: no ptxas on this machine knows sm_107a" in proc.stderr
    assert "Value 'sm_107a' is not defined" in proc.stderr  # ptxas's own line is kept
    assert [line for line in proc.stderr.splitlines() if PTX_LINE.match(line)] == [], proc.stderr
    assert ".target sm_107a" in (out / "cuda-107.failed.ptx").read_text()
    assert not (out / "cuda-107").exists()


def test_the_failed_ptx_is_never_written_through_a_link(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path
) -> None:
    """A link already at <out>/<target>.failed.ptx (or .failed.txt) to a file of the user's: that file keeps its
    bytes, the link stays a link, and the report says the PTX was not kept and why."""
    bundled = _bundled_that_refuses(tmp_path, _wheel_ptxas(triton_python))
    refusing_toolkit = tmp_path / "cuda"
    _script(refusing_toolkit / "bin" / "ptxas", f'exec {bundled} "$@"\n')
    out, mine = tmp_path / "out", tmp_path / "mine.txt"
    mine.write_text("my notes\n")
    out.mkdir()
    (out / "cuda-107.failed.ptx").symlink_to(mine)
    proc = tdv(
        "compile",
        f"{kernel_file}::add_kernel",
        "-s",
        SIGNATURE,
        "-t",
        "cuda:107",
        "-o",
        str(out),
        "--python",
        str(triton_python),
        env={"TRITON_PTXAS_BLACKWELL_PATH": str(bundled), "CUDA_HOME": str(refusing_toolkit)},
    )
    assert proc.returncode == 4, proc.stderr[-3000:]
    assert mine.read_text() == "my notes\n" and (out / "cuda-107.failed.ptx").is_symlink()
    assert f"the failed attempt's PTX was not kept: {out / 'cuda-107.failed.ptx'} is a symbolic link" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.gpu
def test_real_triton_on_a_cuda_13_machine_compiles_sm_110a(tdv: RunCli, kernel_file: Path, tmp_path: Path) -> None:
    """The seed case as it is: the system's torch and triton (3.6 with torch 2.11), the CUDA 13 toolkit's
    ptxas, nothing set. With a Triton whose bundled ptxas does not know sm_110a the report must name the
    toolkit's ptxas and the variable; with one that does, the target compiles as it is."""
    if not _machine_ptxas_knows("sm_110a"):
        pytest.skip("needs /usr/local/cuda/bin/ptxas from a CUDA 13 toolkit")
    out = tmp_path / "out"
    proc = tdv(
        "compile",
        f"{kernel_file}::add_kernel",
        "-s",
        SIGNATURE,
        "-t",
        "cuda:110",
        "-o",
        str(out),
        "--python",
        sys.executable,
        "--json",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["targets"][0]["ok"] and (out / "cuda-110" / "add_kernel.cubin").stat().st_size > 0
    if report["triton_version"].startswith("3.6"):
        (retry,) = report["ptxas_retries"]
        assert retry["used"] and os.path.realpath(retry["used"]) == os.path.realpath(MACHINE_PTXAS), retry
        assert retry["exports"] and retry["variables"], retry
    assert [line for line in proc.stderr.splitlines() if PTX_LINE.match(line)] == []
