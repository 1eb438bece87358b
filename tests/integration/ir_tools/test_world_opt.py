"""`opt`, `test lit` and `--sanitize address` against a workspace set up from the test world, whose Triton
builds a triton-opt (the world's miniature, with mlir-opt's command line) and lit tests; the IR is
real Triton 3.9's."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from bootstrap.core.errors import ToolMissing
from bootstrap.core.process.runner import Runner
from bootstrap.pipeline.host.sanitizer import check_sanitizer
from tests.integration.build.harness import setup_args, tritondev
from tests.integration.ir_tools.conftest import Dumps, MiniWorkspace, clean_environment, parse_json
from tests.support.venvs import workspace_venv
from tests.world.world import World

# Most tests read the session's workspace, set up for real at first use (a build), and one builds its own.
pytestmark = pytest.mark.slow


def test_opt_replays_a_real_pass_with_the_workspace_triton_opt(
    real_dumps: Dumps, mini_workspace: MiniWorkspace, tmp_path: Path
) -> None:
    proc = mini_workspace.cli(
        "opt",
        "tritongpu-coalesce",
        "--dump",
        str(real_dumps["3.9-cuda90-w4"]),
        "--out",
        str(tmp_path / "replay"),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    data = parse_json(proc)
    triton_opt = mini_workspace.build_dir / "bin" / "triton-opt"
    assert data["command"][:3] == [str(triton_opt), str(tmp_path / "replay/input.mlir"), "-tritongpu-coalesce"]
    assert data["ran"] is True and data["returncode"] == 0
    output = Path(str(data["output"])).read_text()
    assert "%coalesced0 = ttg.convert_layout %8 : tensor<1024x!tt.ptr<f32>, #blocked>" in output
    assert "+    %coalesced0 = ttg.convert_layout" in Path(str(data["replay_diff"])).read_text()
    assert data["diff"] == data["replay_diff"]
    # The printed command, re-run by hand, does the same.
    again = tmp_path / "by-hand.mlir"
    words = [w if w != str(data["output"]) else str(again) for w in shlex.split(str(data["shell"]))]
    subprocess.run(words, check=True)
    assert again.read_text() == output
    human = mini_workspace.cli(
        "opt", "tritongpu-coalesce", "--dump", str(real_dumps["3.9-cuda90-w4"]), "--out", str(tmp_path / "replay")
    )
    assert f"ran: {triton_opt} " in human.stdout and "+    %coalesced0 = ttg.convert_layout" in human.stdout


@pytest.mark.parametrize(
    ("pass_name", "debug_type", "says"),
    [
        ("tritongpu-coalesce", "tritongpu-coalesce", "[tritongpu-coalesce]: Considering op: %9 = tt.load %8, %6"),
        ("tritongpu-assign-latencies", "triton-loop-pipeline", "[triton-loop-pipeline]: No loop to pipeline"),
        ("tritongpu-accelerate-matmul", None, None),
    ],
)
def test_debug_only_uses_the_debug_type_of_the_source(
    pass_name: str,
    debug_type: str | None,
    says: str | None,
    real_dumps: Dumps,
    mini_workspace: MiniWorkspace,
    tmp_path: Path,
) -> None:
    proc = mini_workspace.cli(
        "opt", pass_name, "--debug", "--dump", str(real_dumps["3.9-cuda90-w4"]), "--out", str(tmp_path), "--json"
    )
    assert proc.returncode == 0, proc.stderr
    data = parse_json(proc)
    notes = " ".join(str(n) for n in data["notes"])
    command = data["command"]
    assert isinstance(command, list)
    if debug_type is None:
        assert not any(str(w).startswith("-debug-only") for w in command)
        assert f"{pass_name} defines no DEBUG_TYPE in " in notes
        return
    assert f"-debug-only={debug_type}" in command
    assert says is not None
    # A default workspace builds what upstream's `pip install -e .` builds (TritonRelBuildWithAsserts):
    # no NDEBUG, so the pass's LLVM_DEBUG code is there (llvm/Support/Debug.h compiles it out under NDEBUG).
    pass_file = data["sources"][0]["source"]
    entries = json.loads((mini_workspace.build_dir / "compile_commands.json").read_text())
    line = next(e["command"].split() for e in entries if e["file"].endswith(pass_file))
    assert "-DNDEBUG" not in line and "-O2" in line and "-g" in line
    assert says in (tmp_path / "triton-opt.stderr").read_text()
    if debug_type != pass_name:
        assert f"{pass_name} logs under DEBUG_TYPE '{debug_type}'" in notes
    source = data["sources"][0]
    assert source["debug_type"] == debug_type and source["source"].startswith("lib/Dialect/TritonGPU/Transforms/")


def test_a_missing_triton_opt_is_built_first(real_dumps: Dumps, mini_workspace: MiniWorkspace, tmp_path: Path) -> None:
    binary = mini_workspace.build_dir / "bin" / "triton-opt"
    binary.unlink()
    proc = mini_workspace.cli(
        "opt", "tritongpu-coalesce", "--dump", str(real_dumps["3.9-cuda90-w4"]), "--out", str(tmp_path), "--json"
    )
    assert proc.returncode == 0, proc.stderr
    data = parse_json(proc)
    assert binary.is_file() and data["returncode"] == 0
    assert any(c["argv"][-1] == "triton-opt" and c["argv"][0] == "ninja" for c in data["build"])


def test_reproducers_are_replayed(real_dumps: Dumps, mini_workspace: MiniWorkspace, tmp_path: Path) -> None:
    # A local reproducer as MLIR writes one when a pass fails: the IR before it, and a one-pass pipeline.
    module = next(real_dumps["3.9-cuda90-w4"].glob("*-TritonGPUCoalesce.mlir")).read_text().split("\n", 1)[1]
    local = tmp_path / "local.mlir"
    local.write_text(
        module + "\n{-#\n  external_resources: {\n    mlir_reproducer: {\n"
        '      pipeline: "builtin.module(any(tritongpu-coalesce))",\n      disable_threading: true,\n'
        "      verify_each: true\n    }\n  }\n#-}\n"
    )
    proc = mini_workspace.cli("opt", "--reproducer", str(local), "--debug", "--json")
    assert proc.returncode == 0, proc.stderr
    data = parse_json(proc)
    assert data["pipeline"] == ["tritongpu-coalesce"] and "-debug-only=tritongpu-coalesce" in data["command"]
    assert "ttg.convert_layout" in (tmp_path / "local.mlir.replay" / "output.mlir").read_text()
    # Real Triton's whole make_ttgir pipeline names passes the miniature does not have: triton-opt says so.
    whole = tmp_path / "whole.mlir"
    pipeline = "builtin.module(any(convert-triton-to-tritongpu{num-warps=4},tritongpu-coalesce))"
    whole.write_text(
        module + "\n{-#\n  external_resources: {\n    mlir_reproducer: {\n"
        f'      pipeline: "{pipeline}",'
        "\n      disable_threading: false,\n      verify_each: false\n    }\n  }\n#-}\n"
    )
    failed = mini_workspace.cli("opt", "--reproducer", str(whole), "--json")
    assert failed.returncode == 4
    report = json.loads(failed.stdout)  # one document: the report, with triton-opt's status
    assert report["returncode"] == 1
    assert "'convert-triton-to-tritongpu' does not refer to a registered pass" in report["stderr_tail"]
    human = mini_workspace.cli("opt", "--reproducer", str(whole))
    assert human.returncode == 4 and "error: triton-opt failed with exit status 1" in human.stderr
    assert "does not refer to a registered pass" in human.stderr and "fix: re-run it by hand: " in human.stderr


def test_lit_tests_of_the_workspace_build(mini_workspace: MiniWorkspace) -> None:
    every = mini_workspace.cli("test", "lit", "--json")
    assert every.returncode == 0, every.stderr
    data = parse_json(every)
    tests = sorted(p for p in (mini_workspace.triton_src / "test").rglob("*.mlir"))
    # Counted from lit's own summary, the same keys for every test target (docs/contributing.md).
    assert data["counts"] == {"passed": len(tests), "failed": 0, "skipped": 0, "errors": 0}
    assert data["makefile_target"] == "test-lit" and data["steps"][-1]["argv"][-1] == "check-triton-lit-tests"
    one = parse_json(mini_workspace.cli("test", "lit", "test/TritonGPU/coalesce.mlir", "--json"))
    assert one["counts"] == {"passed": 1, "failed": 0, "skipped": 0, "errors": 0} and one["pattern"]
    # Counted from lit's xUnit report: what the filter left out is "excluded", not skipped.
    filtered = parse_json(mini_workspace.cli("test", "lit", "pipeline-debug", "--json"))
    assert filtered["counts"] == {"passed": 1, "failed": 0, "skipped": 0, "errors": 0, "excluded": len(tests) - 1}
    test = mini_workspace.triton_src / "test" / "TritonGPU" / "coalesce.mlir"
    original = test.read_text()
    try:
        test.write_text(original.replace("%coalesced0 = ttg", "%coalesced9 = ttg"))
        failing = mini_workspace.cli("test", "lit", "TritonGPU")
    finally:
        test.write_text(original)
    assert failing.returncode == 1
    assert "error: test lit: 1 failed, 0 errors: TritonGPU/coalesce.mlir" in failing.stderr


def test_sanitize_address_builds_triton_opt_with_asan(world: World, real_dumps: Dumps, tmp_path: Path) -> None:
    env = clean_environment(tmp_path / "home")
    workspace = tmp_path / "ws"
    workspace_venv(workspace)  # made ahead: making it is the setup tests' subject
    # gcc: its libasan is installed with it; this machine's clang may lack compiler-rt (proved below).
    proc = tritondev(*setup_args(world, workspace, "main", "--sanitize", "address", "--no-lld", "--json"), env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = parse_json(proc)
    install = next(c for c in report["commands"] if c["step"] == "triton-install")
    assert install["env"]["TRITON_BUILD_WITH_ASAN"] == "1"
    build = next((workspace / "src/triton/build").glob("cmake.*"))
    assert "-fsanitize=address" in (build / "CMakeCache.txt").read_text()
    assert "GPU programs do not run under ASAN" in json.dumps(report)
    data = parse_json(
        tritondev(
            "opt",
            "tritongpu-coalesce",
            "--dump",
            str(real_dumps["3.9-cuda90-w4"]),
            "--out",
            str(tmp_path / "replay"),
            "--json",
            "--workspace",
            str(workspace),
            env=env,
        )
    )
    assert data["env"] == {"ASAN_OPTIONS": "detect_leaks=0,alloc_dealloc_mismatch=0"} and data["returncode"] == 0
    assert "ttg.convert_layout" in (tmp_path / "replay" / "output.mlir").read_text()
    back = parse_json(
        tritondev("build", "--sanitize", "none", "--dry-run", "--json", "--workspace", str(workspace), env=env)
    )
    pip = [c for c in back["commands"] if "pip" in " ".join(c["argv"])]
    assert pip and "TRITON_BUILD_WITH_ASAN" not in pip[0]["env"]


def test_a_compiler_without_its_asan_runtime_is_caught_before_the_build(tmp_path: Path) -> None:
    # clang++ pointed at an empty resource folder: a real clang that has no compiler-rt, as on machines
    # where the runtime package is not installed.
    empty = tmp_path / "resource"
    empty.mkdir()
    wrapper = tmp_path / "clang++"
    wrapper.write_text(f'#!/bin/sh\nexec clang++ -resource-dir={empty} "$@"\n')
    wrapper.chmod(0o755)
    with pytest.raises(ToolMissing) as caught:
        check_sanitizer(Runner(), str(wrapper), True, "address")
    assert "cannot link a program with -fsanitize=address" in caught.value.message
    assert "libclang-rt" in (caught.value.fix or "")
    check_sanitizer(Runner(), "g++", False, "address")  # gcc with its libasan links
    check_sanitizer(Runner(), str(wrapper), True, None)  # nothing asked, nothing probed
