"""Upstream's test targets read from a Makefile: the rules, each recipe line as a command (variables,
`cd DIR &&`, NAME=value), the user's pytest arguments, and any Makefile text read without a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.core.errors import UsageError
from bootstrap.pipeline.testing import makevars
from bootstrap.pipeline.testing.targets import (
    Variables,
    ctest_steps,
    parse_makefile,
    split_args,
    step_of,
    target_steps,
    with_user_args,
)

# The shape of triton-lang/triton's Makefile at 5838701f (3.8), its test targets abridged.
MAKEFILE = """\
PYTHON ?= python3
ROOT_DIR := $(realpath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD_DIR := $(shell PYTHONPATH="$(ROOT_DIR)/python" $(PYTHON) -c 'from build_helpers import get_cmake_dir; \
    print(get_cmake_dir())')
PYTEST := $(PYTHON) -m pytest
NUM_PROCS ?= 8

.PHONY: all
all:
\tninja -C $(BUILD_DIR)

.PHONY: test-lit
test-lit:
\tninja -C $(BUILD_DIR) check-triton-lit-tests

.PHONY: test-cpp
test-cpp:
\tninja -C $(BUILD_DIR) check-triton-unit-tests

.PHONY: test-unit
test-unit: all
\tcd python/test/unit && $(PYTEST) -n $(NUM_PROCS) --ignore-glob='plugins/*'
\t# Run attention separately to avoid out of gpu memory
\tTRITON_ALWAYS_COMPILE=1 TRITON_DISABLE_LINE_INFO=0 \\
\t\t$(PYTEST) --capture=tee-sys -rfs -vvv python/test/unit/instrumentation/test_gpuhello.py

.PHONY: test-interpret
test-interpret: all
\tcd python/test/unit && TRITON_INTERPRET=1 $(PYTEST) -n 16 -m interpreter cuda language/test_core.py \\
\t\t--device=cpu

.PHONY: test-nogpu
test-nogpu: test-lit test-cpp
"""
PY = Path("/ws/venv/bin/python")
ROOT = Path("/src/triton")
BUILD = ROOT / "build" / "cmake.linux-x86_64-cpython-3.12"
VARS = Variables(PY, BUILD, ROOT, makevars.parse_assignments(MAKEFILE))


def test_rules_prerequisites_and_joined_recipe_lines() -> None:
    rules = parse_makefile(MAKEFILE)
    assert set(rules) == {"all", "test-lit", "test-cpp", "test-unit", "test-interpret", "test-nogpu"}
    assert rules["test-nogpu"].prerequisites == ("test-lit", "test-cpp") and rules["test-nogpu"].recipe == ()
    unit = rules["test-unit"]
    assert unit.prerequisites == ("all",) and len(unit.recipe) == 2  # the comment line is not a command
    assert unit.recipe[1].startswith("TRITON_ALWAYS_COMPILE=1 TRITON_DISABLE_LINE_INFO=0 $(PYTEST) --capture")


def test_interpret_runs_in_its_folder_with_the_interpreter_on_the_cpu() -> None:
    steps = target_steps(parse_makefile(MAKEFILE), "test-interpret", VARS)
    assert [s.kind for s in steps] == ["ninja", "pytest"]
    assert steps[0].argv == ("ninja", "-C", str(BUILD))
    interpret = steps[1]
    assert interpret.cwd == ROOT / "python" / "test" / "unit" and interpret.env == (("TRITON_INTERPRET", "1"),)
    assert interpret.argv == (
        str(PY),
        "-m",
        "pytest",
        "-n",
        "16",
        "-m",
        "interpreter",
        "cuda",
        "language/test_core.py",
        "--device=cpu",
    )
    assert interpret.counter == "pytest"


def test_nogpu_is_lit_then_cpp_each_counted_by_its_runner() -> None:
    steps = target_steps(parse_makefile(MAKEFILE), "test-nogpu", VARS)
    assert [s.argv[-1] for s in steps] == ["check-triton-lit-tests", "check-triton-unit-tests"]
    assert [s.counter for s in steps] == ["lit", "ctest"]


def test_variables_nothing_defines_or_tritondev_cannot_evaluate_are_refused() -> None:
    with pytest.raises(UsageError, match=r"uses \$\(LLVM_PASS_PLUGIN\), which neither"):
        step_of("$(PYTEST) $(LLVM_PASS_PLUGIN)", VARS)
    with pytest.raises(UsageError, match=r"make function \$\(shell"):
        step_of("$(PYTEST) $(shell ls)", VARS)
    assert step_of("$(PYTEST) $(if $(NUM_PROCS),a)", VARS).argv[-1] == "a"  # $(if ...) is evaluated


def test_a_line_with_other_shell_syntax_runs_as_make_runs_it() -> None:
    step = step_of("$(PYTEST) a | tee log", VARS)
    assert step.kind == "shell" and step.argv == ("/bin/sh", "-c", f"{PY} -m pytest a | tee log")


def test_user_options_go_to_every_pytest_run_and_paths_replace_the_targets_own() -> None:
    steps = target_steps(parse_makefile(MAKEFILE), "test-unit", VARS)
    opts = with_user_args(steps, ["-k", "add", "-x"], PY, {})
    assert [s.argv[-3:] for s in opts if s.kind == "pytest"] == [("-k", "add", "-x")] * 2
    one = with_user_args(
        steps,
        ["language/test_core.py::test_add", "-k", "add"],
        PY,
        {"language/test_core.py::test_add": "/abs/test_core.py::test_add"},
    )
    pytest_runs = [s for s in one if s.kind == "pytest"]
    assert len(pytest_runs) == 1 and pytest_runs[0].argv == (
        str(PY),
        "-m",
        "pytest",
        "-n",
        "8",
        "--ignore-glob=plugins/*",
        "/abs/test_core.py::test_add",
        "-k",
        "add",
    )


def test_cpp_with_arguments_builds_then_runs_ctest_in_the_build() -> None:
    steps = ctest_steps(BUILD, ["-R", "Analysis"])
    assert [s.argv for s in steps] == [("ninja", "-C", str(BUILD)), ("ctest", "--output-on-failure", "-R", "Analysis")]
    assert steps[1].cwd == BUILD and steps[1].counter == "ctest"


@given(st.lists(st.sampled_from(["-k", "x", "-n", "4", "--tb=short", "a.py", "-m", "-s", "b::c"]), max_size=12))
def test_split_args_keeps_every_word_once(words: list[str]) -> None:
    options, paths = split_args(words)
    assert sorted(options + paths) == sorted(words)


@given(st.text(alphabet=st.sampled_from(list("ab:-\t\\\n $()#.=")), max_size=200))
def test_any_makefile_text_is_read_without_a_crash(text: str) -> None:
    rules = parse_makefile(text)
    assert all(rule.name for rule in rules.values())


def test_make_precedence_overrides_then_the_makefile_then_the_environment() -> None:
    assignments = makevars.parse_assignments("A ?= 1\nB := $(A)-x\nC = $(D)\nE ?= \\\n  5\nF := $(if $(G),y,n)\n")
    assert [(a.name, a.operator, a.value) for a in assignments][3] == ("E", "?=", "5")
    values = makevars.evaluate(assignments, {}, {"A": "env", "B": "env"})
    assert (values["A"], values["B"], values["C"], values["F"]) == ("env", "env-x", "", "n")
    values = makevars.evaluate(assignments, {"A": "cli"}, {"G": "1"})
    assert (values["A"], values["B"], values["F"]) == ("cli", "cli-x", "y")


@given(st.text(alphabet=st.sampled_from(list("$(){}, ifAB:=")), max_size=60))
def test_any_reference_is_expanded_or_refused_never_a_crash(text: str) -> None:
    try:
        makevars.expand(text, {"A": "1", "B": makevars.Unevaluable("x")})
    except (makevars.Unevaluable, KeyError):
        pass
