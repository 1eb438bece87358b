"""`opt`, `ir diff` and `run --reproducer` on dumps and reproducers of the real Triton (3.9 and 3.2.0),
made in this session without a GPU; and every bad input refused the house way."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.build.harness import tritondev
from tests.integration.ir_tools.conftest import AOT, Dumps, clean_environment, dump_with_run, parse_json
from tests.support.snapshot import diff, snapshot
from tests.support.venvs import shared_venv, triton_venv


def _coalesce_file(folder: Path) -> Path:
    return next(folder.glob("*-TritonGPUCoalesce.mlir"))


def test_opt_dry_run_writes_the_ir_before_coalescing_and_names_the_command(real_dumps: Dumps, tmp_path: Path) -> None:
    dump = real_dumps["3.9-cuda90-w4"]
    workspace = tmp_path / "ws"
    proc = tritondev(
        "opt",
        "tritongpu-coalesce",
        "--dump",
        str(dump),
        "--dry-run",
        "--json",
        "--workspace",
        str(workspace),
        env=clean_environment(tmp_path / "home"),
    )
    assert proc.returncode == 0, proc.stderr
    data = parse_json(proc)
    written = Path(str(data["input"]))
    dumped = _coalesce_file(dump).read_text().split("\n", 1)[1]  # the dump file without its header line
    text = written.read_text()
    assert text.split("\n", 1)[1] == dumped.rstrip() + "\n"
    assert 'ttg.target = "cuda:90"' in text and "#ttg.blocked<" in text and "ttg.convert_layout" not in text
    output = str(data["output"])
    assert data["command"] == ["triton-opt", str(written), "-tritongpu-coalesce", "-o", output]
    assert data["pass"]["argument"] == "tritongpu-coalesce" and data["kernel"] == "add_kernel"
    assert data["pass"]["target"] == "cuda:90"
    assert any("no Triton build in this workspace" in note for note in data["notes"])
    # The compile's own diff across the pass: the real coalescing put layout conversions in.
    pass_diff = Path(str(data["pass_diff"])).read_text()
    assert "+    %" in pass_diff and "ttg.convert_layout" in pass_diff
    assert data["ran"] is False and not Path(output).exists()
    assert not workspace.exists()


def test_ir_diff_of_two_num_warps_names_convert_triton_to_tritongpu(real_dumps: Dumps, tmp_path: Path) -> None:
    env = clean_environment(tmp_path / "home")
    proc = tritondev(
        "ir", "diff", str(real_dumps["3.9-cuda90-w4"]), str(real_dumps["3.9-cuda90-w8"]), "--json", env=env
    )
    assert proc.returncode == 0, proc.stderr
    data = parse_json(proc)
    assert data["verdict"] == "pass" and data["pass"] == "convert-triton-to-tritongpu"
    assert "num-warps=4 in a, 8 in b" in str(data["summary"])
    assert "warpsPerCTA = [4]" in str(data["diff"]) and "warpsPerCTA = [8]" in str(data["diff"])
    human = tritondev("ir", "diff", str(real_dumps["3.9-cuda90-w4"]), str(real_dumps["3.9-cuda90-w8"]), env=env)
    assert human.stdout.startswith("pass: convert-triton-to-tritongpu is the first pass whose output differs")


def test_ir_diff_across_triton_versions_and_targets(real_dumps: Dumps, tmp_path: Path) -> None:
    env = clean_environment(tmp_path / "home")
    versions = parse_json(
        tritondev("ir", "diff", str(real_dumps["3.2-cuda90-w4"]), str(real_dumps["3.9-cuda90-w4"]), "--json", env=env)
    )
    assert versions["verdict"] == "frontend"  # 3.2's code generator wrote other TTIR for the same kernel
    assert versions["pipeline_differences"]  # and the two pipelines differ (passes added and removed)
    targets = parse_json(
        tritondev("ir", "diff", str(real_dumps["3.9-cuda90-w4"]), str(real_dumps["3.9-hip-w4"]), "--json", env=env)
    )
    assert targets["verdict"] in ("pass", "pipeline")
    assert "hip:gfx942" in str(targets["diff"])


def _broken_dump(dump: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "broken"
    shutil.copytree(dump, copy)
    index = copy / "index.json"
    index.write_text(index.read_text()[: len(index.read_text()) // 2])
    return copy


# name -> (arguments given the real dump folder and a scratch folder, exit code, words of the error)
BAD: dict[str, tuple[Callable[[Path, Path], list[str]], int, str]] = {
    "unknown-pass": (
        lambda d, t: ["opt", "tritongpu-colesce", "--dump", str(d)],
        2,
        "unknown pass 'tritongpu-colesce' (did you mean 'tritongpu-coalesce'?)",
    ),
    "no-dump-in-workspace": (lambda d, t: ["opt", "tritongpu-coalesce"], 2, "no IR dump in"),
    "dump-missing": (lambda d, t: ["opt", "tritongpu-coalesce", "--dump", str(t / "nope")], 2, "does not exist"),
    "kernel-not-in-dump": (
        lambda d, t: ["opt", "tritongpu-coalesce", "--dump", str(d), "--kernel", "add_kernl"],
        2,
        "kernel 'add_kernl' is not in the dump",
    ),
    "malformed-dump": (
        lambda d, t: ["opt", "tritongpu-coalesce", "--dump", str(_broken_dump(d, t))],
        2,
        "is not valid JSON",
    ),
    "no-triton-opt-no-build": (
        lambda d, t: ["opt", "tritongpu-coalesce", "--dump", str(d)],
        2,
        "no Triton build in workspace",
    ),
    "occurrence-too-high": (
        lambda d, t: ["opt", "tritongpu-coalesce", "--dump", str(d), "--occurrence", "2"],
        2,
        "tritongpu-coalesce ran 1 time(s)",
    ),
    "no-pass": (lambda d, t: ["opt", "--dump", str(d)], 2, "no PASS given"),
    "not-a-reproducer": (lambda d, t: ["opt", "--reproducer", str(_coalesce_file(d))], 2, "is not an MLIR reproducer"),
    "reproducer-with-dump": (
        lambda d, t: ["opt", "--reproducer", str(_coalesce_file(d)), "--dump", str(d)],
        2,
        "--reproducer replays a file",
    ),
    "ir-diff-missing": (lambda d, t: ["ir", "diff", str(d), str(t / "nope")], 2, "does not exist"),
    "ir-diff-not-a-dump": (lambda d, t: ["ir", "diff", str(d), str(AOT)], 2, "holds no IR dump"),
    "test-lit-no-build": (lambda d, t: ["test", "lit"], 2, "no Triton build in workspace"),
    "reproducer-folder-is-a-file": (
        lambda d, t: ["run", "--reproducer", str(AOT), "--", "true"],
        2,
        "is a file, not a folder",
    ),
}


NO_JSON = {"reproducer-folder-is-a-file"}  # `run` passes its command's output through: it has no --json


@pytest.mark.parametrize(
    ("case", "json_mode"), [(c, j) for c in sorted(BAD) for j in (False, True) if not (j and c in NO_JSON)]
)
def test_bad_input(case: str, json_mode: bool, real_dumps: Dumps, tmp_path: Path) -> None:
    make_args, code, words = BAD[case]
    workspace = tmp_path / "ws"
    dump = tmp_path / "dump"
    shutil.copytree(real_dumps["3.9-cuda90-w4"], dump)
    args = make_args(dump, tmp_path)
    before = snapshot(dump, workspace, tmp_path / "broken")
    proc = tritondev(
        *args,
        "--workspace",
        str(workspace),
        *(["--json"] if json_mode else []),
        env=clean_environment(tmp_path / "home"),
    )
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    assert diff(before, snapshot(dump, workspace, tmp_path / "broken")) == []
    if json_mode:
        error = json.loads(proc.stdout)  # exactly one document
        assert error["exit_code"] == code and words in error["message"] and error["fix"]
    else:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert lines[0].startswith("error: ") and words in proc.stderr.replace("\n", " ")
        assert any(line.startswith("fix: ") for line in lines)


def test_run_reproducer_writes_what_opt_replays(tmp_path: Path, real_dumps: Dumps) -> None:
    env = clean_environment(tmp_path / "home")
    for attempt in ("first", "cached"):  # the second compile would be a cache hit without TRITON_ALWAYS_COMPILE
        repro = tmp_path / f"repro-{attempt}"
        proc = dump_with_run(
            triton_venv(),
            real_dumps.kernel_file,
            "cuda:90",
            4,
            tmp_path / f"dump-{attempt}",
            env,
            "--reproducer",
            str(repro),
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert sorted(p.name for p in repro.iterdir()) == [
            "triton.make_llir.repro.mlir",
            "triton.make_ttgir.repro.mlir",
            "triton.make_ttir.repro.mlir",
        ]
    assert f"reproducers go to {repro}/triton.<stage>.repro.mlir" in proc.stderr
    data = parse_json(
        tritondev(
            "opt",
            "--reproducer",
            str(repro / "triton.make_ttgir.repro.mlir"),
            "--dry-run",
            "--json",
            "--workspace",
            str(tmp_path / "ws"),
            env=env,
        )
    )
    pipeline = data["pipeline"]
    assert isinstance(pipeline, list) and pipeline[:2] == ["convert-triton-to-tritongpu", "tritongpu-coalesce"]
    assert data["command"][1:3] == [str(repro / "triton.make_ttgir.repro.mlir"), "--run-reproducer"]
    # Triton before 3.6 writes one file, the prefix itself (the last stage's).
    old = tmp_path / "repro-3.2"
    proc = dump_with_run(
        shared_venv("triton-3.2.0", ["triton==3.2.0"]),
        real_dumps.kernel_file,
        "cuda:90",
        4,
        tmp_path / "dump-3.2",
        env,
        "--reproducer",
        str(old),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert [p.name for p in old.iterdir()] == ["triton"]
    assert "mlir_reproducer" in (old / "triton").read_text()
