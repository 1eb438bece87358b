"""Upstream's test targets, read from the checkout's own Makefile: what `tritondev test NAME` runs.

Triton's Makefile (from January 2025, #5516; 3.3 on) names the commands contributors run:
`test-lit` = `ninja -C $(BUILD_DIR) check-triton-lit-tests`, `test-cpp` = `... check-triton-unit-tests`,
`test-unit`, `test-interpret` (`cd python/test/unit && TRITON_INTERPRET=1 $(PYTEST) ... -m interpreter
... --device=cpu`), `test-regression`, `test-gluon` (3.4 on), `test-proton`, `test-nogpu` (= test-lit
test-cpp). Which targets exist, their folders and their variables change between commits, so they are
read from the checkout as it stands, never assumed: each recipe line becomes one command, with the
Makefile's own variables (bootstrap.pipeline.testing.makevars: $(PYTHON) the target environment's
interpreter, $(BUILD_DIR) setup.py's build folder, the others as the Makefile defines them:
`NUM_PROCS ?= 8`), its `cd DIR &&` and its `NAME=value` assignments.

Everything here is pure: the Makefile's text in, the commands out.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bootstrap.core.errors import UsageError
from bootstrap.pipeline.testing import makevars

NEEDS_GPU: frozenset[str] = frozenset(
    {
        "test-unit",
        "test-regression",
        "test-gluon",
        "test-proton",
        "test-gsan",
        "test-distributed",
        "test-plugins",
        "test-warmup",
    }
)
StepKind = Literal["ninja", "pytest", "runner", "ctest", "lit", "command", "shell"]
Counter = Literal["pytest", "junit-dir", "lit", "ctest", "none"]
LIT_TARGET = "check-triton-lit-tests"
UNIT_TARGET = "check-triton-unit-tests"
TEST_RUNNER = "triton._test_runner"  # main after #11098: `$(PYTHON) -m triton._test_runner suite unit ...`
# pytest options whose value is the next word (`-k expr`, `-n 8`); any other word after an option is a path.
_VALUED = frozenset(
    {
        "-k",
        "-m",
        "-n",
        "-p",
        "-c",
        "-o",
        "-W",
        "--deselect",
        "--ignore",
        "--ignore-glob",
        "--rootdir",
        "--maxfail",
        "--tb",
        "--junitxml",
        "--junit-xml",
        "--device",
        "--durations",
        "--basetemp",
        "--confcutdir",
        "--dist",
        "--capture",
        "--numprocesses",
    }
)
_RULE = re.compile(r"^([A-Za-z0-9_.-]+)\s*:(?!=)\s*(.*)$")
_SHELL_WORDS = ("&&", "||", ";", "|", ">", ">>", "<", "2>", "2>&1", "&")


@dataclass(frozen=True)
class MakeRule:
    name: str
    prerequisites: tuple[str, ...]
    recipe: tuple[str, ...]  # logical lines: continuations joined, the tab and `@` dropped, comments left out


@dataclass(frozen=True)
class TestStep:
    kind: StepKind
    argv: tuple[str, ...]
    cwd: Path
    env: tuple[tuple[str, str], ...] = ()
    line: str = ""  # the Makefile line it comes from ("" when tritondev made it)

    @property
    def counter(self) -> Counter:
        """Whose report gives this step's counts: pytest's JUnit XML, the test runner's JUnit folder,
        lit's xUnit XML (LIT_OPTS), ctest's per-test lines; none for a build or any other command."""
        if self.kind == "pytest":
            return "pytest"
        if self.kind == "runner":
            return "junit-dir"
        if self.kind == "ctest" or (self.kind == "ninja" and UNIT_TARGET in self.argv):
            return "ctest"
        return "lit" if self.kind == "lit" or (self.kind == "ninja" and LIT_TARGET in self.argv) else "none"

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "argv": list(self.argv),
            "cwd": str(self.cwd),
            "env": dict(self.env),
            "makefile_line": self.line,
        }


@dataclass(frozen=True)
class Variables:
    """What the Makefile's variables stand for in this workspace (bootstrap.pipeline.testing.makevars)."""

    python: Path
    build_dir: Path
    root: Path
    assignments: tuple[makevars.Assignment, ...] = ()
    overrides: tuple[tuple[str, str], ...] = ()  # NUM_PROCS from the user's -n N, as `make NUM_PROCS=N`
    environment: tuple[tuple[str, str], ...] = ()  # what the commands run with

    def values(self) -> dict[str, str | makevars.Unevaluable]:
        fixed = {
            "PYTHON": shlex.quote(str(self.python)),
            "BUILD_DIR": shlex.quote(str(self.build_dir)),
            "ROOT_DIR": shlex.quote(str(self.root)),
            **dict(self.overrides),
        }
        values = makevars.evaluate(self.assignments, fixed, dict(self.environment))
        # Two the Makefile defines from $(BUILD_DIR) and $(PYTHON): the same values where it does not.
        values.setdefault("PYTEST", f"{fixed['PYTHON']} -m pytest")
        values.setdefault("TRITON_OPT", shlex.quote(str(self.build_dir / "bin" / "triton-opt")))
        return values


def parse_makefile(text: str) -> dict[str, MakeRule]:
    """The rules of a Makefile (targets, prerequisites, recipe lines). Pure; anything else is skipped."""
    rules: dict[str, MakeRule] = {}
    current: MakeRule | None = None
    pending = ""
    for raw in text.splitlines():
        if current is not None and (raw.startswith("\t") or pending):
            line = pending + raw.lstrip("\t")
            if line.endswith("\\"):
                pending = line[:-1].rstrip() + " "
                continue
            pending = ""
            line = line.strip().lstrip("@").strip()
            if line and not line.startswith("#"):
                current = MakeRule(current.name, current.prerequisites, (*current.recipe, line))
                rules[current.name] = current
            continue
        match = _RULE.match(raw)
        if match is None or raw.startswith("."):
            current = None if raw.strip() and not raw.startswith("#") else current
            continue
        name, after = match.group(1), match.group(2).split("#", 1)[0]
        current = MakeRule(name, tuple(after.split()), ())
        rules[name] = current
    return rules


def step_of(
    line: str, variables: Variables, values: Mapping[str, str | makevars.Unevaluable] | None = None
) -> TestStep:
    """One recipe line as a command: `cd DIR &&`, `NAME=value` words, then the program. A line with
    other shell syntax (a pipeline, `;`, a redirection) runs as make runs every line: `sh -c LINE`."""
    text = makevars.expand_line(line, variables.values() if values is None else values)
    try:
        words = shlex.split(text)
    except ValueError:
        raise UsageError(
            f"the Makefile line `{line}` is not shell words tritondev can read",
            fix="run that target with make yourself",
        ) from None
    cwd = variables.root
    if len(words) > 3 and words[0] == "cd" and words[2] == "&&":
        cwd = (variables.root / words[1]).resolve()
        words = words[3:]
    if any(w in _SHELL_WORDS for w in words) or any(w.startswith(("1>", "2>", ">")) for w in words):
        return TestStep("shell", ("/bin/sh", "-c", text), variables.root, (), line)
    env: list[tuple[str, str]] = []
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        name, _, value = words.pop(0).partition("=")
        env.append((name, value))
    if not words:
        raise UsageError(f"the Makefile line `{line}` runs nothing", fix="run that target with make yourself")
    python = str(variables.python)
    kind: StepKind = "command"
    if words[0] == "ninja":
        kind = "ninja"
    elif words[:3] == [python, "-m", "pytest"]:
        kind = "pytest"
    elif words[:3] == [python, "-m", TEST_RUNNER]:
        kind = "runner"
    return TestStep(kind, tuple(words), cwd, tuple(env), line)


def target_steps(rules: Mapping[str, MakeRule], target: str, variables: Variables) -> tuple[TestStep, ...]:
    """The commands of `target`, its prerequisites' first (each once), as make runs them."""
    seen: set[str] = set()
    steps: list[TestStep] = []
    values = variables.values()

    def visit(name: str) -> None:
        if name in seen or name not in rules:
            return
        seen.add(name)
        rule = rules[name]
        for prerequisite in rule.prerequisites:
            visit(prerequisite)
        steps.extend(step for step in (step_of(line, variables, values) for line in rule.recipe) if step not in steps)

    visit(target)
    return tuple(steps)


def split_args(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """pytest's words as (options with their values, test paths). Pure."""
    options: list[str] = []
    paths: list[str] = []
    takes_value = False
    for word in words:
        if takes_value:
            options.append(word)
            takes_value = False
        elif word.startswith("-"):
            options.append(word)
            takes_value = word in _VALUED
        else:
            paths.append(word)
    return options, paths


def workers(words: Sequence[str]) -> str | None:
    """The N of pytest-xdist's `-n N` / `-nN` / `--numprocesses=N` among the user's words (the last one)."""
    found = None
    for index, word in enumerate(words):
        if word in ("-n", "--numprocesses") and index + 1 < len(words):
            found = words[index + 1]
        elif word.startswith("--numprocesses="):
            found = word.partition("=")[2]
        elif word.startswith("-n") and len(word) > 2 and not word.startswith("--"):
            found = word[2:].lstrip("=")
    return found


def with_user_args(
    steps: Sequence[TestStep], args: Sequence[str], python: Path, locate: Mapping[str, str]
) -> tuple[TestStep, ...]:
    """The user's pytest arguments added: options to every pytest command (and, through PYTEST_ADDOPTS,
    to the pytest processes of upstream's test runner); test paths (already made absolute in `locate`)
    replace the paths of the first pytest command, which then runs alone."""
    options, paths = split_args(args)
    runs: list[TestStep] = []
    prefix = (str(python), "-m", "pytest")
    for step in steps:
        if step.kind == "runner":
            if paths:
                raise UsageError(
                    f"`{step.line}` runs upstream's test runner, which takes no test paths",
                    fix="run one file with pytest itself: tritondev run -- python -m pytest PATH",
                )
            addopts = " ".join(shlex.quote(o) for o in _without_workers(options))
            runs.append(
                TestStep(step.kind, step.argv, step.cwd, (*step.env, ("PYTEST_ADDOPTS", addopts)), step.line)
                if addopts
                else step
            )
            continue
        if step.kind != "pytest":
            runs.append(step)
            continue
        if paths:
            if any(s.kind == "pytest" for s in runs):
                continue
            own, _ = split_args(step.argv[3:])
            runs.append(
                TestStep(
                    "pytest", (*prefix, *own, *(locate[p] for p in paths), *options), step.cwd, step.env, step.line
                )
            )
        else:
            runs.append(TestStep("pytest", (*step.argv, *options), step.cwd, step.env, step.line))
    return tuple(runs)


def _without_workers(options: Sequence[str]) -> list[str]:
    """The options less `-n N` (the runner takes the workers as --num-procs, from NUM_PROCS)."""
    kept: list[str] = []
    skip = False
    for option in options:
        if skip:
            skip = False
        elif option in ("-n", "--numprocesses"):
            skip = True
        elif not (option.startswith("--numprocesses=") or (option.startswith("-n") and not option.startswith("--"))):
            kept.append(option)
    return kept


def ctest_steps(build_dir: Path, args: Sequence[str]) -> tuple[TestStep, ...]:
    """`test cpp ARGS`: the check target takes no arguments, so the tests are built (`ninja`) and ctest
    runs with them, as check-triton-unit-tests runs it (--output-on-failure, from the build folder)."""
    return (
        TestStep("ninja", ("ninja", "-C", str(build_dir)), build_dir),
        TestStep("ctest", ("ctest", "--output-on-failure", *args), build_dir),
    )
