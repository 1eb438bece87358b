"""`tritondev test` on the test world's main (its Makefile as upstream's after #11098): the test
runner's NUM_GPUS/NUM_PROCS from the Makefile's own `?=` lines, test-nogpu with its frontend pytest
files, counts from the runners' own reports whatever pytest prints, zero tests a failure, any target by
its name, `test lit --update` for real and what it refuses, and the workspace lock shared by test runs
and refused during a build. One workspace (mini_workspace), built once per session."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.integration.build.harness import setup_args, tritondev
from tests.integration.ir_tools.conftest import MiniWorkspace, clean_environment, parse_json
from tests.support.venvs import workspace_venv
from tests.world.build import LLVMBuild
from tests.world.world import World

REPO = Path(__file__).resolve().parents[3]
GOLDEN = "test/TritonGPU/samples/simulated-grouped-gemm.mlir"
FAILING = "import pytest\n\n\n@pytest.mark.interpreter\ndef test_fails_on_purpose():\n    assert 1 == 2\n"


def cli(ws: MiniWorkspace, *args: str) -> subprocess.CompletedProcess[str]:
    """tritondev ARGS in the workspace, --workspace before any `--` (what follows it is pytest's)."""
    split = args.index("--") if "--" in args else len(args)
    return tritondev(*args[:split], "--workspace", str(ws.root), *args[split:], env=ws.env)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def ws(mini_workspace: MiniWorkspace) -> MiniWorkspace:
    """The workspace with the test requirements installed (pytest, pytest-xdist: what test-nogpu needs)."""
    proc = cli(mini_workspace, "test", "interpret", "--install-requirements", "--json", "--", "-n", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return mini_workspace


def test_main_plans_the_test_runner_with_the_makefiles_defaults(ws: MiniWorkspace) -> None:
    """Acceptance: `test unit --dry-run` on main's Makefile plans `--num-gpus 1 --num-procs 8` (no GPU here:
    a dry run shows the plan on any machine), and says no counts."""
    proc = cli(ws, "test", "unit", "--dry-run")
    assert proc.returncode == 0, proc.stderr[-2000:]
    runner = [line for line in proc.stderr.splitlines() if "triton._test_runner" in line]
    assert runner and runner[0].endswith("-m triton._test_runner suite unit --num-gpus 1 --num-procs 8"), runner
    assert " passed" not in proc.stdout + proc.stderr  # no counts for what did not run
    assert f"PATH={ws.root / 'venv' / 'bin'}:$PATH " in runner[0]  # not the whole inherited PATH
    two = parse_json(cli(ws, "test", "gluon", "--dry-run", "--json", "--", "-n", "2"))
    assert two["steps"][-1]["argv"][-5:] == ["gluon", "--num-gpus", "1", "--num-procs", "2"]
    assert two["counts"] is None and two["dry_run"] is True


def test_nogpu_is_the_makefiles_target_with_its_frontend_files(ws: MiniWorkspace) -> None:
    data = parse_json(cli(ws, "test", "nogpu", "--json"))
    kinds = [(s["kind"], s["counts"] is not None) for s in data["steps"]]
    assert kinds == [("ninja", True), ("ninja", True), ("pytest", True), ("pytest", True)], kinds
    lit_tests = len(list((ws.triton_src / "test").rglob("*.mlir")))
    # lit's report, ctest's lines (the device test skips without a GPU), two frontend tests.
    assert data["counts"] == {"passed": lit_tests + 2 + 2, "failed": 0, "skipped": 1, "errors": 0}
    assert data["steps"][2]["env"] == {"TRITON_CI_CACHE_PHASE": "gluon-frontend"}


@pytest.mark.parametrize("quiet", [["-qq"], ["-p", "no:terminal"]])
def test_counts_come_from_pytests_report_whatever_it_prints(ws: MiniWorkspace, quiet: list[str]) -> None:
    proc = cli(ws, "test", "interpret", "--", "-n", "2", *quiet)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1].endswith("test interpret: 3 passed, 0 failed, 1 skipped"), proc.stderr[
        -500:
    ]


@contextmanager
def failing_test(ws: MiniWorkspace) -> Iterator[Path]:
    path = ws.triton_src / "python" / "test" / "unit" / "language" / "test_fails_here.py"
    path.write_text(FAILING)
    try:
        yield path
    finally:
        path.unlink()


def test_a_failing_test_is_exit_1_never_a_build_error(ws: MiniWorkspace) -> None:
    with failing_test(ws) as path:
        quiet = cli(ws, "test", "interpret", "--", "-qq", str(path))
        blind = cli(ws, "test", "interpret", "--", "-p", "no:junitxml", "-qq", str(path))
    assert quiet.returncode == 1, quiet.stderr[-2000:]
    assert "test interpret: 0 passed, 1 failed, 0 skipped" in quiet.stderr
    assert blind.returncode == 1 and "counts unknown" in blind.stderr, blind.stderr[-2000:]


def test_zero_tests_run_is_a_failure(ws: MiniWorkspace) -> None:
    cpp = cli(ws, "test", "cpp", "--", "-R", "nomatch")
    assert cpp.returncode == 1 and "no test ran" in cpp.stderr, cpp.stderr[-2000:]
    interpret = cli(ws, "test", "interpret", "--", "-k", "nomatch")
    assert interpret.returncode == 1 and "no test ran" in interpret.stderr, interpret.stderr[-2000:]


def test_any_makefile_target_runs_by_its_name(ws: MiniWorkspace) -> None:
    plugins = parse_json(cli(ws, "test", "plugins", "--dry-run", "--json"))
    assert plugins["makefile_target"] == "test-plugins"
    assert plugins["steps"][-1]["argv"][-2:] == ["-vvv", "python/test/unit/plugins"]
    python = parse_json(cli(ws, "test", "python", "--dry-run", "--json"))
    assert python["makefile_target"] == "test-python"
    assert [s["argv"][2] for s in python["steps"] if s["kind"] in ("pytest", "runner")][:2] == [
        "triton._test_runner",
        "pytest",
    ]
    before = git(ws.triton_src, "status", "--porcelain")
    golden = cli(ws, "test", "golden-samples")
    assert golden.returncode == 0, golden.stderr[-2000:]
    assert "test golden-samples: 2 command(s) ran, none of them a test runner that counts" in golden.stderr
    assert git(ws.triton_src, "status", "--porcelain") == before  # the sample regenerated as committed
    unknown = cli(ws, "test", "pyton")
    assert unknown.returncode == 2 and "no target test-pyton or pyton" in unknown.stderr


def test_lit_pattern_ends_with_the_counts_and_names_the_rerun(ws: MiniWorkspace) -> None:
    proc = cli(ws, "test", "lit", "TritonGPU/coalesce.mlir")
    assert proc.returncode == 0 and proc.stderr.strip().endswith("test lit: 1 passed, 0 failed, 0 skipped")
    test = ws.triton_src / "test" / "Triton" / "reproducer.mlir"
    original = test.read_text()
    try:
        test.write_text(original.replace("CHECK", "CHECK-NOT", 1))
        failed = cli(ws, "test", "lit")
    finally:
        test.write_text(original)
    assert failed.returncode == 1, failed.stderr[-2000:]
    assert f"re-run one: tritondev test lit --workspace {ws.root} Triton/reproducer.mlir" in failed.stderr


def test_update_regenerates_the_readme_example_for_real(ws: MiniWorkspace) -> None:
    """The README's `test lit --update test/TritonGPU/samples/simulated-grouped-gemm.mlir`: a stale
    golden test (staged, so git keeps what it was) comes back as upstream's script makes it, and passes."""
    test = ws.triton_src / GOLDEN
    committed = test.read_text()
    test.write_text(committed.replace("// CHECK:           tt.return\n", ""))
    git(ws.triton_src, "add", GOLDEN)
    try:
        unstaged = cli(ws, "test", "lit", "--update", GOLDEN, "--dry-run")
        assert unstaged.returncode == 0 and "+// CHECK:           tt.return" in unstaged.stdout
        proc = cli(ws, "test", "lit", "--update", GOLDEN)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert test.read_text() == committed
        assert cli(ws, "test", "lit", GOLDEN).returncode == 0
    finally:
        git(ws.triton_src, "checkout", "HEAD", "--", GOLDEN)


def test_update_refuses_what_it_must_not_write(ws: MiniWorkspace) -> None:
    src = ws.triton_src
    hand = cli(ws, "test", "lit", "--update", "TritonGPU/coalesce.mlir")
    assert hand.returncode == 2 and "written by hand" in hand.stderr and "--hand-written" in hand.stderr
    test = src / GOLDEN
    test.write_text(test.read_text() + "// my own note\n")
    try:
        dirty = cli(ws, "test", "lit", "--update", GOLDEN)
        assert dirty.returncode == 6 and "changes git does not have" in dirty.stderr
        assert test.read_text().endswith("// my own note\n")
    finally:
        git(src, "checkout", "HEAD", "--", GOLDEN)
    # A crafted RUN line that would write outside the test: refused, dry run or not, nothing written.
    evil = src / "test" / "TritonGPU" / "samples" / "evil.mlir"
    evil.write_text(
        "// NOTE: Assertions have been autogenerated by utils/generate-test-checks.py\n"
        "// RUN: triton-opt %s -tritongpu-coalesce -o ../victim.txt | FileCheck %s\nmodule {\n}\n"
    )
    git(src, "add", str(evil.relative_to(src)))
    try:
        for extra in ([], ["--dry-run"]):
            proc = cli(ws, "test", "lit", "--update", str(evil), *extra)
            assert proc.returncode == 2 and "`-o`, which is no pass" in proc.stderr, proc.stderr[-2000:]
    finally:
        git(src, "rm", "-q", "-f", str(evil.relative_to(src)))
    assert not list(src.parent.rglob("victim.txt")) and not list(ws.root.rglob("victim.txt"))


def test_a_hand_written_test_regenerated_twice_gets_one_note(ws: MiniWorkspace) -> None:
    """upstream's script keeps a source's old note (`if line == note`); tritondev drops it first."""
    relative = "test/TritonGPU/combine.mlir"
    try:
        first = cli(ws, "test", "lit", "--update", relative, "--hand-written")
        assert first.returncode == 0, first.stderr[-2000:]
        git(ws.triton_src, "add", relative)
        again = cli(ws, "test", "lit", "--update", relative, "--hand-written")
        assert again.returncode == 0 and "already up to date" in again.stderr, again.stdout[-2000:]
        text = (ws.triton_src / relative).read_text()
        assert text.count("NOTE: Assertions have been autogenerated") == 1
        assert cli(ws, "test", "lit", relative).returncode == 0
    finally:
        git(ws.triton_src, "checkout", "HEAD", "--", relative)


HOLD = """
import sys, time
from pathlib import Path
from bootstrap.core.io.workspace import Workspace
with Workspace(Path(sys.argv[1])).lock(sys.argv[2], shared=sys.argv[3] == "shared"):
    print("held", flush=True)
    sys.stdin.read()
"""


@contextmanager
def holding(ws: MiniWorkspace, command: str, mode: str) -> Iterator[None]:
    """Another process holding the workspace lock, through the same code as tritondev's commands."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(ws.root), command, mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**ws.env, "PYTHONPATH": str(REPO)},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        yield
    finally:
        proc.communicate("", timeout=30)


def test_test_runs_share_the_lock_and_a_build_excludes_them(ws: MiniWorkspace) -> None:
    with holding(ws, "build", "exclusive"):
        refused = cli(ws, "test", "lit", "TritonGPU/coalesce.mlir")
        cpp = cli(ws, "test", "cpp")
    assert refused.returncode == 6 and "is locked by another tritondev (pid" in refused.stderr
    assert " build)" in refused.stderr and cpp.returncode == 6
    with holding(ws, "test nogpu", "shared"):
        shared = cli(ws, "test", "lit", "TritonGPU/coalesce.mlir")
        build = cli(ws, "build")
    assert shared.returncode == 0, shared.stderr[-2000:]
    assert build.returncode == 6 and "test nogpu (shared)" in build.stderr
    assert json.loads(cli(ws, "test", "cpp", "--json").stdout)["counts"]["passed"] == 2


@pytest.mark.slow
def test_before_the_makefile_cpp_builds_then_runs_ctest(world: World, mini_llvm: LLVMBuild, tmp_path: Path) -> None:
    """Triton 3.1 has no Makefile and no check-triton-unit-tests (#5150 came in 3.3): test cpp and nogpu
    build with ninja, then run ctest --output-on-failure in the build folder; lit keeps its check target."""
    env = clean_environment(tmp_path / "home")
    workspace = tmp_path / "ws"
    workspace_venv(workspace)  # made ahead: making it is the setup tests' subject
    proc = tritondev(
        *setup_args(world, workspace, "python-dir-3.1", "--llvm", str(mini_llvm.build), "--skip-verify"), env=env
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    cpp = tritondev("test", "cpp", "--workspace", str(workspace), "--json", env=env)
    assert cpp.returncode == 0, cpp.stderr[-3000:]
    data = json.loads(cpp.stdout)
    assert data["makefile_target"] is None and [s["argv"][0] for s in data["steps"]] == ["ninja", "ctest"]
    assert "No rule to make target" not in cpp.stderr and "unknown target" not in cpp.stderr
    # The device test runs on a machine with a GPU, else it skips (its exit 77).
    device = Path("/dev/nvidiactl").exists() or Path("/dev/kfd").exists()
    assert (data["counts"]["passed"], data["counts"]["skipped"]) == ((3, 0) if device else (2, 1))
    nogpu = json.loads(tritondev("test", "nogpu", "--workspace", str(workspace), "--json", env=env).stdout)
    assert nogpu["steps"][0]["argv"][-1] == "check-triton-lit-tests"
    assert nogpu["steps"][-1]["argv"][:2] == ["ctest", "--output-on-failure"] and nogpu["counts"]["failed"] == 0
