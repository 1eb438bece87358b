"""`tritondev run`: the command gets the env-file and dump variables, its status comes back, dumps are split."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bootstrap.env.envfile import update_env_file
from tests.conftest import Cli

SHOW_ENV = "import os, sys; print(os.environ.get('TRITON_PTXAS_PATH')); print('err-line', file=sys.stderr); sys.exit(7)"


def test_runs_with_env_file_and_passes_status(cli: Cli, workspace: Path) -> None:
    workspace.mkdir()
    update_env_file(workspace / "env.sh", {"TRITON_PTXAS_PATH": "/opt/my ptxas"})
    result = cli("run", "--", sys.executable, "-c", SHOW_ENV)
    assert result.returncode == 7
    assert result.stdout == "/opt/my ptxas\n"
    assert "err-line" in result.stderr


def test_signal_becomes_128_plus_n(cli: Cli) -> None:
    result = cli("run", "--", sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    assert result.returncode == 128 + 15


def test_stdin_reaches_the_command(cli: Cli) -> None:
    result = cli("run", "--", sys.executable, "-c", "import sys; print(sys.stdin.read().upper())", input_text="hello")
    assert result.returncode == 0 and result.stdout == "HELLO\n"


def test_dry_run_runs_nothing(cli: Cli, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    result = cli("run", "--dry-run", "--dump-ir", "--", "touch", str(marker))
    assert result.returncode == 0
    assert not marker.exists()
    assert "[dry-run]" in result.stderr and "MLIR_ENABLE_DUMP=1" in result.stderr


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        ([], 2, "no command"),
        (["--", "/nonexistent/tool"], 3, "does not exist"),
        (["--", "no-such-tool-anywhere"], 3, "not on PATH"),
    ],
)
def test_errors(cli: Cli, args: list[str], code: int, needle: str) -> None:
    result = cli("run", *args)
    assert result.returncode == code, result.stderr
    assert needle in result.stderr and "Traceback" not in result.stderr


def test_dump_dir_must_be_new_or_empty(cli: Cli, tmp_path: Path) -> None:
    used = tmp_path / "dumps"
    used.mkdir()
    (used / "0001-mine.mlir").write_text("earlier work")
    result = cli("run", "--dump-ir", "--dump-dir", str(used), "--", sys.executable, "-c", "pass")
    assert result.returncode == 2 and "not empty" in result.stderr
    assert [p.name for p in used.iterdir()] == ["0001-mine.mlir"]


def test_dump_ir_splits_a_real_kernel_compile(
    cli: Cli, triton_python: Path, kernel_script: Path, tmp_path: Path, workspace: Path
) -> None:
    cache = tmp_path / "triton-cache"
    result = cli(
        "run",
        "--dump-ir",
        "--",
        str(triton_python),
        str(kernel_script),
        "add_kernel@cuda:90",
        env={"TRITON_CACHE_DIR": str(cache), "TRITON_DEFAULT_FP_FUSION": "1", "KERNEL_SCRIPT_EXIT": "5"},
    )
    assert result.returncode == 5, result.stderr
    # The program's own output, on its own streams, without dump text.
    assert result.stdout == "program: start\nprogram: compiled add_kernel for cuda:90\n"
    assert "program-stderr: done add_kernel cuda:90" in result.stderr
    assert "IR Dump" not in result.stdout + result.stderr and ".version" not in result.stdout
    folders = list((workspace / "dumps").iterdir())
    assert len(folders) == 1
    folder = folders[0]
    index = json.loads((folder / "index.json").read_text())
    assert index["returncode"] == 5 and index["command"][-1] == "add_kernel@cuda:90"
    passes = index["passes"]
    files = sorted(p.name for p in folder.iterdir() if p.name not in ("index.json", "index.txt"))
    assert [p["file"] for p in passes] == files  # numbered in order, one file per pass
    assert [p["number"] for p in passes] == list(range(1, len(passes) + 1))
    assert files[0].startswith("0001-") and files[0].endswith(".mlir")
    assert {p["kernel"] for p in passes} == {"add_kernel"}
    # The pipeline in order: TTIR passes, layout conversion to TTGIR, lowering to LLVM, then PTX.
    names = [p["pass"] for p in passes]
    assert names.index("ConvertTritonToTritonGPU") < names.index("ConvertTritonGPUToLLVM") < names.index("NVPTX")
    assert passes[-1]["pass"] == "NVPTX" and passes[-1]["file"].endswith(".ptx")
    ptx = (folder / passes[-1]["file"]).read_text()
    assert ".entry add_kernel" in ptx and ".target sm_90a" in ptx
    for p in passes:
        text = (folder / p["file"]).read_text()
        assert text.count("\n") == p["lines"]
    first = (folder / passes[0]["file"]).read_text()
    assert first.startswith("// -----// IR Dump Before") and "tt.func public @add_kernel" in first
    table = (folder / "index.txt").read_text().splitlines()
    assert len(table) == len(passes) + 1 and table[1].split()[-1] == passes[0]["file"]
    assert "IR dumps" in result.stderr and str(folder) in result.stderr


def test_dump_ir_without_kernels_says_so(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "d"
    result = cli("run", "--dump-ir", "--dump-dir", str(folder), "--", sys.executable, "-c", "print('hi')")
    assert result.returncode == 0 and result.stdout == "hi\n"
    assert "no IR dump was captured" in result.stderr
    assert json.loads((folder / "index.json").read_text())["passes"] == []
