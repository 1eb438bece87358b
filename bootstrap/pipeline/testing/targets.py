"""Upstream's test targets, read from the checkout's own Makefile: what `tritondev test NAME` runs.

Triton's Makefile (from January 2025, #5516; 3.3 on) names the commands contributors run:
`test-lit` = `ninja -C $(BUILD_DIR) check-triton-lit-tests`, `test-cpp` = `... check-triton-unit-tests`,
`test-unit`, `test-interpret` (`cd python/test/unit && TRITON_INTERPRET=1 $(PYTEST) ... -m interpreter
... --device=cpu`), `test-regression`, `test-gluon` (3.4 on), `test-proton`, `test-nogpu` (= test-lit
test-cpp). Which targets exist, their folders and their variables change between commits, so they are
read from the checkout as it stands, never assumed: each recipe line becomes one command, with the
Makefile's own variables ($(PYTHON) the target environment's interpreter, $(BUILD_DIR) setup.py's
build folder, $(NUM_PROCS) the compile jobs), its `cd DIR &&` and its `NAME=value` assignments.

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

TestName = Literal["cpp", "unit", "interpret", "regression", "gluon", "proton", "lit", "nogpu"]
TEST_NAMES: tuple[TestName, ...] = ("cpp", "unit", "interpret", "regression", "gluon", "proton", "lit", "nogpu")
NEEDS_GPU: frozenset[str] = frozenset({"unit", "regression", "gluon", "proton"})
StepKind = Literal["ninja", "pytest", "ctest", "command"]
Counter = Literal["pytest", "lit", "ctest", "none"]
LIT_TARGET = "check-triton-lit-tests"
UNIT_TARGET = "check-triton-unit-tests"
# pytest options whose value is the next word (`-k expr`, `-n 8`); any other word after an option is a path.
_VALUED = frozenset({"-k", "-m", "-n", "-p", "-c", "-o", "-W", "--deselect", "--ignore", "--ignore-glob", "--rootdir",
                     "--maxfail", "--tb", "--junitxml", "--junit-xml", "--device", "--durations", "--basetemp",
                     "--confcutdir", "--dist", "--capture"})
_RULE = re.compile(r"^([A-Za-z0-9_.-]+)\s*:(?!=)\s*(.*)$")
_VARIABLE = re.compile(r"\$\(([A-Za-z0-9_]+)\)")


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
        """Whose summary gives this step's counts."""
        if self.kind == "pytest":
            return "pytest"
        if self.kind == "ctest" or UNIT_TARGET in self.argv:
            return "ctest"
        return "lit" if LIT_TARGET in self.argv else "none"

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "argv": list(self.argv), "cwd": str(self.cwd), "env": dict(self.env),
                "makefile_line": self.line}


@dataclass(frozen=True)
class Variables:
    """What the Makefile's variables stand for in this workspace."""

    python: Path
    build_dir: Path
    root: Path
    num_procs: int

    def values(self) -> dict[str, str]:
        python = shlex.quote(str(self.python))
        return {"PYTHON": python, "PYTEST": f"{python} -m pytest", "BUILD_DIR": shlex.quote(str(self.build_dir)),
                "TRITON_OPT": shlex.quote(str(self.build_dir / "bin" / "triton-opt")), "NUM_PROCS": str(self.num_procs),
                "ROOT_DIR": shlex.quote(str(self.root)),
                "TRITON_KERNELS_PATH": shlex.quote(str(self.root / "python" / "triton_kernels"))}


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


def expand(line: str, values: Mapping[str, str]) -> str:
    """A recipe line with the Makefile's variables put in; UsageError for one tritondev cannot know."""

    def put(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise UsageError(f"the Makefile line `{line}` uses $({name}), which tritondev does not know",
                             fix="run that target with make yourself, or `tritondev run -- <its command>`")
        return values[name]

    text = _VARIABLE.sub(put, line.replace("$$", "\0"))
    if "$(" in text:
        raise UsageError(f"the Makefile line `{line}` uses a make function tritondev does not evaluate",
                         fix="run that target with make yourself")
    return text.replace("\0", "$")


def step_of(line: str, variables: Variables) -> TestStep:
    """One recipe line as a command: `cd DIR &&`, `NAME=value` words, then the program."""
    words = shlex.split(expand(line, variables.values()))
    cwd = variables.root
    if len(words) > 3 and words[0] == "cd" and words[2] == "&&":
        cwd = (variables.root / words[1]).resolve()
        words = words[3:]
    if any(w in ("&&", "||", ";", "|") for w in words):
        raise UsageError(f"the Makefile line `{line}` is a shell pipeline tritondev does not split",
                         fix="run that target with make yourself")
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
    return TestStep(kind, tuple(words), cwd, tuple(env), line)


def target_steps(rules: Mapping[str, MakeRule], target: str, variables: Variables) -> tuple[TestStep, ...]:
    """The commands of `target`, its prerequisites' first (each once), as make runs them."""
    seen: set[str] = set()
    steps: list[TestStep] = []

    def visit(name: str) -> None:
        if name in seen or name not in rules:
            return
        seen.add(name)
        rule = rules[name]
        for prerequisite in rule.prerequisites:
            visit(prerequisite)
        steps.extend(step for step in (step_of(line, variables) for line in rule.recipe) if step not in steps)

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


def with_user_args(steps: Sequence[TestStep], args: Sequence[str], python: Path, locate: Mapping[str, str]
                   ) -> tuple[TestStep, ...]:
    """The user's pytest arguments added: options to every pytest command; test paths (already made
    absolute in `locate`) replace the paths of the first pytest command, which then runs alone."""
    options, paths = split_args(args)
    runs: list[TestStep] = []
    prefix = (str(python), "-m", "pytest")
    for step in steps:
        if step.kind != "pytest":
            runs.append(step)
            continue
        if paths:
            if any(s.kind == "pytest" for s in runs):
                continue
            own, _ = split_args(step.argv[3:])
            runs.append(TestStep("pytest", (*prefix, *own, *(locate[p] for p in paths), *options), step.cwd,
                                 step.env, step.line))
        else:
            runs.append(TestStep("pytest", (*step.argv, *options), step.cwd, step.env, step.line))
    return tuple(runs)


def ctest_steps(build_dir: Path, args: Sequence[str]) -> tuple[TestStep, ...]:
    """`test cpp ARGS`: the check target takes no arguments, so the tests are built (`ninja`) and ctest
    runs with them, as check-triton-unit-tests runs it (--output-on-failure, from the build folder)."""
    return (TestStep("ninja", ("ninja", "-C", str(build_dir)), build_dir),
            TestStep("ctest", ("ctest", "--output-on-failure", *args), build_dir))
