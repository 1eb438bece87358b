"""`tritondev repro` with the real Triton 3.9 wheel and CPU torch: kernels launched under the interpreter
(TRITON_INTERPRET=1) and ahead-of-time compiles that fail for a GPU target, captured, made standalone,
replayed and proven, without a GPU."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.integration.repro.conftest import Tdv, json_of, run_repro, write_program
from tests.integration.repro.programs import ADD, AOT_FAILURE, AOT_FIXED_ASM, AUTOTUNED, NAN
from tests.support.snapshot import diff, snapshot

INTERPRET = {"TRITON_INTERPRET": "1"}


def _capture(
    tdv: Tdv, python: Path, program: Path, *options: str, env: dict[str, str] | None = None, args: tuple[str, ...] = ()
) -> dict[str, Any]:
    proc = tdv(
        "repro", "capture", "--python", str(python), "--json", *options, "--", str(python), str(program), *args, env=env
    )
    document: dict[str, Any] = json_of(proc)
    assert document["returncode"] == proc.returncode
    return document


@pytest.mark.slow  # about 40 s: two snapshots of the whole venv (torch included) around the capture
def test_an_interpreted_kernel_is_captured_made_standalone_and_replays(
    tdv: Tdv, triton_python: Path, tmp_path: Path
) -> None:
    program = write_program(tmp_path, "add.py", ADD)
    venv = triton_python.parent.parent
    before = snapshot(venv)
    document = _capture(tdv, triton_python, program, "--save-io", env=INTERPRET)
    assert diff(before, snapshot(venv)) == [], "the capture changed the target environment"
    assert document["returncode"] == 0 and not document["hook_errors"] and not document["unreadable"]
    rows = {row["kernel"]: row for row in document["kernels"]}
    assert set(rows) == {"add_kernel", "scale_kernel"}
    add = rows["add_kernel"]
    assert add["launches"] == 3 and add["grid"] == [4, 1, 1] and add["status"] == "launched"
    assert add["args"] == [
        "x_ptr: float32[1000]",
        "y_ptr: float32[1000]",
        "out_ptr: float32[1000]",
        "n=1000",
        "BLOCK=256",
    ]
    made = json_of(tdv("repro", "make", "add_kernel", "--check", "--json", "--python", str(triton_python)))
    folder = Path(made["folder"])
    assert sorted(made["files"]) == ["io/0.in", "io/1.in", "io/2.in", "io/2.out", "kernel.py", "repro.py"]
    assert made["check"]["reproduces"] is False, made["check"]
    assert made["check"]["summary"] == "reproduces: no (out_ptr matches the recording: 1000 elements)"
    kernel = (folder / "kernel.py").read_text()
    # The helper and the constexpr global travel with the kernel; nothing but triton is imported.
    assert "def _twice(x):" in kernel and "SCALE = tl.constexpr(2.0)" in kernel
    tops = {a.name.split(".")[0] for node in ast.parse(kernel).body if isinstance(node, ast.Import) for a in node.names}
    assert tops == {"triton"}
    repro = (folder / "repro.py").read_text()
    assert f"# Compile:  tritondev compile {folder}/kernel.py::add_kernel --signature" in repro
    assert f"# Dump IR:  tritondev run --dump-ir -- python {folder}/repro.py" in repro
    # The kernel with a wrong mask (what a miscompile does) reproduces the mismatch; the bisect exit code is 1.
    (folder / "kernel.py").write_text(kernel.replace("mask = offs < n\n", "mask = offs < n - 37\n"))
    broken = run_repro(triton_python, folder)
    assert broken.returncode == 1, broken.stderr
    assert broken.stdout.startswith("reproduces: yes (mismatch in out_ptr: 37 of 1000 elements, max abs err ")
    finding = json.loads(run_repro(triton_python, folder, "--json").stdout)["findings"][0]
    assert (finding["kind"], finding["arg"], finding["count"], finding["total"]) == ("mismatch", "out_ptr", 37, 1000)


def test_an_in_place_kernel_replays_from_its_recorded_input(tdv: Tdv, triton_python: Path, tmp_path: Path) -> None:
    program = write_program(tmp_path, "add.py", ADD)
    _capture(tdv, triton_python, program, "--save-io", "--kernel", "scale_*", env=INTERPRET)
    listing = json_of(tdv("repro", "ls", "--json"))
    assert [row["kernel"] for row in listing["kernels"]] == ["scale_kernel"]  # --kernel kept only it
    made = json_of(tdv("repro", "make", "1", "--check", "--json", "--python", str(triton_python)))
    assert (
        made["check"]["reproduces"] is False and "x_ptr matches the recording: 64 elements" in made["check"]["summary"]
    )


def test_nan_from_finite_inputs_reproduces_and_the_correct_kernel_runs_clean(
    tdv: Tdv, triton_python: Path, tmp_path: Path
) -> None:
    program = write_program(tmp_path, "nan.py", NAN)
    _capture(tdv, triton_python, program, "--save-io", env=INTERPRET)
    nan = json_of(tdv("repro", "make", "nan_kernel", "--check", "--json", "--python", str(triton_python)))["check"]
    assert nan["reproduces"] is True and nan["findings"][0]["kind"] == "nonfinite", nan
    assert "as in the capture" in nan["summary"]
    good = json_of(tdv("repro", "make", "good_kernel", "--check", "--json", "--python", str(triton_python)))["check"]
    assert good["reproduces"] is False, good


def test_a_compile_that_fails_for_a_target_is_captured_and_replayed_without_a_gpu(
    tdv: Tdv, triton_python: Path, tmp_path: Path
) -> None:
    program = write_program(tmp_path, "aot.py", AOT_FAILURE)
    document = _capture(tdv, triton_python, program)
    assert document["returncode"] == 1  # the program's own failure, passed through
    (row,) = document["kernels"]
    assert row["status"] == "compile-failed" and row["error"] == "PTXASError" and row["target"] == "cuda:90"
    shown = json_of(tdv("repro", "show", "bad_asm", "--json"))
    error = shown["launch"]["error"]
    assert error["stages_done"] == ["ttir", "ttgir", "llir", "ptx"] and error["failed_stage"] == "cubin"
    assert error["ir_file"] == "last-ir.ptx"
    assert "bogus.op.f32" in (Path(shown["folder"]) / "last-ir.ptx").read_text()
    made = json_of(tdv("repro", "make", "bad_asm", "--check", "--json", "--python", str(triton_python)))
    check = made["check"]
    assert check["reproduces"] is True and check["findings"][0]["kind"] == "compile_error", check
    assert "PTXASError" in check["summary"] and "error   : Unknown modifier '.op'" in check["summary"], check
    folder = Path(made["folder"])
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace('"bogus.op.f32 $0, $1;"', AOT_FIXED_ASM))
    fixed = run_repro(triton_python, folder)
    assert fixed.returncode == 0 and fixed.stdout.startswith("reproduces: no (compiles for cuda:90"), fixed
    # The test world's mini Triton: a package with only __version__, llvm_commit() and compile_vector_add()
    # (tests/world/templates/triton/common/python/triton/__init__.py; the real one needs the world's builds,
    # so a package of that surface stands in for it here). There a repro cannot run: 125, a bisect's skip.
    mini = tmp_path / "mini-world-site" / "triton"
    mini.mkdir(parents=True)
    mini.joinpath("__init__.py").write_text(
        '__version__ = "3.5.0+git0123abcd"\n'
        "def llvm_commit():\n    return '0' * 40\n"
        "def compile_vector_add(**kwargs):\n    return {}\n"
    )
    skipped = run_repro(triton_python, folder, env={**os.environ, "PYTHONPATH": str(mini.parent)})
    assert skipped.returncode == 125, skipped
    assert skipped.stdout.startswith("cannot run here: this triton (") and "has no triton.jit" in skipped.stdout


def test_autotuner_benchmark_launches_are_marked_and_the_chosen_config_is_made(
    tdv: Tdv, triton_python: Path, tmp_path: Path
) -> None:
    program = write_program(tmp_path, "tuned.py", AUTOTUNED)
    document = _capture(tdv, triton_python, program, env=INTERPRET)
    rows = document["kernels"]
    assert len(rows) == 2 and sorted(r["autotuning"] for r in rows) == [False, True], rows
    chosen = next(r for r in rows if not r["autotuning"])
    made = json_of(tdv("repro", "make", "copy_kernel", "--json"))
    assert made["id"] == chosen["id"]
