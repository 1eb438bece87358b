"""`tritondev test NAME` planned from upstream's own Makefiles (abridged to their test targets, lines
verbatim): main after #11098 (@1d2da15d) runs triton._test_runner with the Makefile's NUM_GPUS and
NUM_PROCS defaults, 3.8 (@5838701f) its NUM_PROCS ?= 8 whatever the machine, 3.3 (@96316ce5) its
literal -n 8; before the Makefile (3.0-3.2) cpp is ninja then ctest; any target runs by its name; and
what each command's exit status and report mean."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.pipeline.testing import run, targets
from bootstrap.pipeline.testing.counts import Counts
from bootstrap.pipeline.testing.reports import report_env, verdict
from bootstrap.pipeline.testing.run import plan_tests

MAIN = """\
PYTHON ?= python3
ROOT_DIR := $(realpath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD_DIR := $(shell PYTHONPATH="$(ROOT_DIR)/python" $(PYTHON) -c 'from build_helpers import get_cmake_dir; print(get_cmake_dir())')
TRITON_OPT := $(BUILD_DIR)/bin/triton-opt
PYTEST := $(PYTHON) -m pytest
LLVM_BUILD_PATH ?= "$(ROOT_DIR)/.llvm-project/build"
NUM_PROCS ?= 8
NUM_GPUS ?= 1
WARMUP_PROCS ?= $(NUM_PROCS)

.PHONY: all
all:
\tninja -C $(BUILD_DIR)

.PHONY: test-unit
test-unit: all
\t$(PYTHON) -m triton._test_runner suite unit --num-gpus $(NUM_GPUS) --num-procs $(NUM_PROCS)

.PHONY: test-gluon
test-gluon: all
\t$(PYTHON) -m triton._test_runner suite gluon --num-gpus $(NUM_GPUS) --num-procs $(NUM_PROCS)

.PHONY: test-gsan
test-gsan: all
\t$(PYTHON) -m triton._test_runner suite gsan --num-gpus $(NUM_GPUS) --num-procs $(NUM_PROCS)

.PHONY: test-regression
test-regression: all
\tTRITON_CI_CACHE_PHASE=regression $(PYTEST) -p triton._compile_warmup -n $(NUM_PROCS) python/test/regression
"""  # noqa: E501
V38 = """\
PYTHON ?= python3
ROOT_DIR := $(realpath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD_DIR := $(shell PYTHONPATH="$(ROOT_DIR)/python" $(PYTHON) -c 'from build_helpers import get_cmake_dir; print(get_cmake_dir())')
PYTEST := $(PYTHON) -m pytest
NUM_PROCS ?= 8
TRITON_KERNELS_PATH := $(ROOT_DIR)/python/triton_kernels$(if $(PYTHONPATH),:$(PYTHONPATH))

.PHONY: all
all:
\tninja -C $(BUILD_DIR)

.PHONY: test-unit
test-unit: all
\tcd python/test/unit && $(PYTEST) -n $(NUM_PROCS) --ignore-glob='plugins/*'
\t$(PYTEST) -n 6 python/triton_kernels/tests/

.PHONY: test-gluon
test-gluon: all
\t$(PYTEST) -n $(NUM_PROCS) python/test/gluon/ python/tutorials/gluon/
\tPYTHONPATH="$(TRITON_KERNELS_PATH)" $(PYTEST) -n 2 python/examples/gluon/

.PHONY: test-python
test-python: test-unit test-gluon

.PHONY: golden-samples
golden-samples: triton-opt
\t$(TRITON_OPT) test/TritonGPU/samples/a.mlir.in -tritongpu-pipeline -canonicalize | \\
\t\t$(PYTHON) utils/generate-test-checks.py --source test/TritonGPU/samples/a.mlir.in --source_delim_regex="\\bmodule" \\
\t\t-o test/TritonGPU/samples/a.mlir
"""  # noqa: E501
V33 = """\
PYTHON ?= python
BUILD_DIR := $(shell cd python; $(PYTHON) -c 'from build_helpers import get_cmake_dir; print(get_cmake_dir())')
PYTEST := $(PYTHON) -m pytest

.PHONY: test-python
test-unit: all
\tcd python/test/unit && $(PYTEST) -s -n 8 --ignore=cuda/test_flashattention.py \\
\t\t--ignore=language/test_line_info.py --ignore=language/test_subprocess.py --ignore=test_debug.py
\t$(PYTEST) -s -n 8 python/test/unit/test_debug.py --forked
\t# Run cuda/test_flashattention.py separately to avoid out of gpu memory
\t$(PYTEST) -s python/test/unit/cuda/test_flashattention.py

.PHONY: test-interpret
test-interpret: all
\tcd python/test/unit && TRITON_INTERPRET=1 $(PYTEST) -s -n 16 -m interpreter cuda language/test_core.py \\
\t\tlanguage/test_tuple.py runtime/test_autotuner.py::test_kwargs[False] \\
\t\t../../tutorials/06-fused-attention.py::test_op --device=cpu
"""
PY = Path("/ws/venv/bin/python")


def plan(
    tmp_path: Path, makefile: str | None, name: str, *args: str, env: dict[str, str] | None = None, cores: int = 64
) -> run.TestPlan:
    checkout = tmp_path / "triton"
    checkout.mkdir(exist_ok=True)
    if makefile is not None:
        (checkout / "Makefile").write_text(makefile)
    return plan_tests(
        run.TestRequest(name, args, False, tmp_path),
        checkout,
        checkout / "build" / "cmake.x",
        PY,
        env or {},
        cores,
        lambda p: f"/abs/{p}",
    )


def test_main_runs_upstreams_test_runner_with_the_makefiles_own_defaults(tmp_path: Path) -> None:
    """Acceptance: no `$(NUM_GPUS)` refusal; `NUM_GPUS ?= 1`, `NUM_PROCS ?= 8` as make would."""
    for name in ("unit", "gluon", "gsan"):
        steps = plan(tmp_path, MAIN, name).steps
        assert steps[-1].kind == "runner" and steps[-1].counter == "junit-dir"
        assert steps[-1].argv == (
            str(PY),
            "-m",
            "triton._test_runner",
            "suite",
            name,
            "--num-gpus",
            "1",
            "--num-procs",
            "8",
        )
    # make's precedence: the user's -n as `make NUM_PROCS=2`; the environment before `?=`.
    two = plan(tmp_path, MAIN, "unit", "-n", "2", "-k", "add", env={"NUM_GPUS": "2"}).steps[-1]
    assert two.argv[-4:] == ("--num-gpus", "2", "--num-procs", "2")
    assert dict(two.env)["PYTEST_ADDOPTS"] == "-k add"  # pytest's options reach the runner's pytest runs
    with pytest.raises(UsageError, match="takes no test paths"):
        plan(tmp_path, MAIN, "unit", "python/test/unit/language/test_core.py")
    regression = plan(tmp_path, MAIN, "regression").steps[-1]
    assert regression.kind == "pytest" and regression.env == (("TRITON_CI_CACHE_PHASE", "regression"),)
    assert regression.argv[3:] == ("-p", "triton._compile_warmup", "-n", "8", "python/test/regression")


def test_num_procs_is_the_makefiles_not_the_machines_and_a_small_machine_is_told(tmp_path: Path) -> None:
    big = plan(tmp_path, V38, "unit", cores=64)
    assert big.steps[1].argv[3:5] == ("-n", "8") and big.notes == ()
    small = plan(tmp_path, V38, "unit", cores=2)
    assert small.steps[1].argv[3:5] == ("-n", "8")
    assert small.notes == (
        "test unit starts 8 pytest workers (the Makefile's -n/NUM_PROCS) on a machine with 2"
        " cores; fewer: tritondev test unit -- -n 2",
    )
    asked = plan(tmp_path, V38, "unit", "-n", "2", cores=2)
    assert asked.steps[1].argv[3:5] == ("-n", "2") and asked.steps[1].argv[-2:] == ("-n", "2") and asked.notes == ()


def test_3_3_keeps_its_literal_workers_its_node_ids_and_skips_recipe_comments(tmp_path: Path) -> None:
    unit = plan(tmp_path, V33, "unit").steps
    assert [s.argv[3:6] for s in unit] == [
        ("-s", "-n", "8"),
        ("-s", "-n", "8"),
        ("-s", "python/test/unit/cuda/test_flashattention.py"),
    ]
    assert unit[1].argv[-1] == "--forked"
    interpret = plan(tmp_path, V33, "interpret", "-n", "2").steps[0]
    assert "runtime/test_autotuner.py::test_kwargs[False]" in interpret.argv and interpret.argv[-2:] == ("-n", "2")
    assert "-n" in interpret.argv[:8] and interpret.argv[interpret.argv.index("-n") + 1] == "16"


def test_the_3_8_kernels_path_follows_pythonpath_as_make_evaluates_it(tmp_path: Path) -> None:
    root = tmp_path / "triton"
    examples = plan(tmp_path, V38, "gluon", env={"PYTHONPATH": "/mine"}).steps[-1]
    assert examples.env == (("PYTHONPATH", f"{root}/python/triton_kernels:/mine"),)
    assert plan(tmp_path, V38, "gluon").steps[-1].env == (("PYTHONPATH", f"{root}/python/triton_kernels"),)


def test_any_target_by_its_name_and_an_unknown_one_lists_them(tmp_path: Path) -> None:
    python = plan(tmp_path, V38, "python")
    assert python.makefile_target == "test-python" and python.reads_only
    assert [s.argv[-1] for s in python.steps if s.kind == "pytest"][-1] == "python/examples/gluon/"
    golden = plan(tmp_path, V38, "golden-samples")
    assert golden.makefile_target == "golden-samples" and golden.steps[-1].kind == "shell"
    assert golden.steps[-1].argv[:2] == ("/bin/sh", "-c") and "generate-test-checks.py" in golden.steps[-1].argv[2]
    assert not plan(tmp_path, V38, "all").reads_only  # a build: the workspace lock taken exclusive
    with pytest.raises(UsageError, match=r"no target test-pyton or pyton .*its test targets: gluon, python, unit"):
        plan(tmp_path, V38, "pyton")


def test_before_the_makefile_cpp_is_ninja_then_ctest(tmp_path: Path) -> None:
    """3.0-3.2 have no check-triton-unit-tests (#5150 came in 3.3): plain add_test, run by ctest."""
    build = tmp_path / "triton" / "build" / "cmake.x"
    cpp = plan(tmp_path, None, "cpp").steps
    assert [s.argv for s in cpp] == [("ninja", "-C", str(build)), ("ctest", "--output-on-failure")]
    assert cpp[1].cwd == build and cpp[1].counter == "ctest"
    nogpu = plan(tmp_path, None, "nogpu").steps
    assert [s.argv[-1] for s in nogpu] == ["check-triton-lit-tests", str(build), "--output-on-failure"]
    assert not any("check-triton-unit-tests" in s.argv for s in (*cpp, *nogpu))
    with pytest.raises(UsageError, match="no Makefile at this commit"):
        plan(tmp_path, None, "unit")


PYTEST_STEP = targets.TestStep("pytest", (str(PY), "-m", "pytest", "-qq"), Path("/src"))
LIT_STEP = targets.TestStep("ninja", ("ninja", "-C", "/b", "check-triton-lit-tests"), Path("/b"))
CTEST_STEP = targets.TestStep("ctest", ("ctest", "--output-on-failure", "-R", "nomatch"), Path("/b"))
BUILD_STEP = targets.TestStep("ninja", ("ninja", "-C", "/b"), Path("/b"))


def test_a_failing_test_is_never_a_build_error_and_no_test_is_a_failure() -> None:
    assert verdict(PYTEST_STEP, 1, Counts(2, 1)) == "tests-failed"
    assert verdict(PYTEST_STEP, 1, None) == "tests-failed"  # -p no:junitxml: no report, pytest's own exit 1
    assert verdict(PYTEST_STEP, 5, None) == "no-tests"
    assert verdict(PYTEST_STEP, 5, Counts()) == "no-tests"
    assert verdict(PYTEST_STEP, 4, None) == "failed"  # a usage error of pytest's
    assert verdict(CTEST_STEP, 0, Counts()) == "no-tests"  # "No tests were found!!!", exit 0
    assert verdict(LIT_STEP, 1, Counts(4, 1)) == "tests-failed"
    assert verdict(LIT_STEP, 1, None) == "failed"  # ninja failed before lit wrote its report: the build
    assert verdict(BUILD_STEP, 1, None) == "failed" and verdict(BUILD_STEP, 0, None) == "passed"
    assert verdict(PYTEST_STEP, 0, Counts(0, 0, 3)) == "passed"  # all skipped is not "none ran"
    runner = targets.TestStep("runner", (str(PY), "-m", "triton._test_runner", "suite", "unit"), Path("/src"))
    assert verdict(runner, 1, None) == "failed"  # it stopped before any pytest wrote a report
    assert verdict(runner, 1, Counts(3, 1)) == "tests-failed"


def test_each_runner_is_asked_for_its_report_keeping_the_users_options(tmp_path: Path) -> None:
    env, path = report_env(PYTEST_STEP, {"PYTEST_ADDOPTS": "-x"}, tmp_path)
    assert env == {"PYTEST_ADDOPTS": f"-x --junitxml={tmp_path / 'pytest.xml'}"} and path == tmp_path / "pytest.xml"
    env, path = report_env(LIT_STEP, {}, tmp_path)
    assert env == {"LIT_OPTS": f"--xunit-xml-output={tmp_path / 'lit.xml'}"}
    runner = targets.TestStep("runner", (str(PY), "-m", "triton._test_runner", "suite", "unit"), Path("/src"))
    assert report_env(runner, {}, tmp_path) == ({"TRITON_TEST_JUNIT_DIR": str(tmp_path)}, tmp_path)
    own = targets.TestStep("pytest", (str(PY), "-m", "pytest", "--junitxml=mine.xml"), Path("/src"))
    assert report_env(own, {}, tmp_path) == ({}, Path("/src/mine.xml"))
    assert report_env(CTEST_STEP, {}, tmp_path) == ({}, None)  # its per-test lines are read
