"""`tritondev test lit --update PATH`: a lit test's CHECK lines regenerated the way upstream does it.

Upstream's Makefile target `golden-samples` (3.3 on) runs, for each sample,

    $(TRITON_OPT) test/.../X.mlir.in <passes> | $(PYTHON) utils/generate-test-checks.py \
        --source test/.../X.mlir.in --source_delim_regex="\\bmodule" -o test/.../X.mlir

and utils/generate-test-checks.py (MLIR's script, in Triton since #5289) also updates a test in place
from its own source. Here: the passes are the test's own RUN line (`triton-opt %s ARGS | FileCheck
...`), the source is `X.mlir.in` beside the test when there is one (a golden sample), else the test
itself (the script drops its old CHECK lines and note); the delimiter is the one the Makefile gives
that sample, else `\\bmodule` for a golden sample and the script's own default otherwise. The
script's output replaces the test file, the only file written (atomically), and the diff is shown.
"""

from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.writes import replace_text
from bootstrap.ir.tritonopt import build_triton_opt
from bootstrap.pipeline.setup.built import find_build
from bootstrap.pipeline.setup.state import read_state

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

GENERATOR = "utils/generate-test-checks.py"
GOLDEN_DELIMITER = r"\bmodule"
_RUN = re.compile(r"^\s*//\s*RUN:\s?(.*)$")
_LIMIT = 1 << 24


@dataclass(frozen=True)
class UpdatePlan:
    test: Path  # the one file written
    source: Path  # what triton-opt reads and the checks are put into: the test, or its .in beside it
    opt_args: tuple[str, ...]  # the RUN line's triton-opt arguments after %s
    delimiter: str | None  # --source_delim_regex; None: the script's default

    def opt_argv(self, triton_opt: Path) -> list[str]:
        return [str(triton_opt), str(self.source), *self.opt_args]

    def generator_argv(self, python: Path, checkout: Path) -> list[str]:
        delimiter = [f"--source_delim_regex={self.delimiter}"] if self.delimiter is not None else []
        return [str(python), str(checkout / GENERATOR), "--source", str(self.source), *delimiter]


def run_line(text: str, where: Path) -> tuple[str, ...]:
    """The triton-opt arguments of the one RUN line `triton-opt %s ARGS | FileCheck ... %s`. Pure."""
    runs: list[str] = []
    for line in text.splitlines():
        match = _RUN.match(line)
        if match is None:
            continue
        if runs and runs[-1].endswith("\\"):
            runs[-1] = runs[-1][:-1] + " " + match.group(1)
        else:
            runs.append(match.group(1))
    fix = "update it by hand (only a test with one `// RUN: triton-opt %s ... | FileCheck %s` line can be regenerated)"
    if len(runs) != 1:
        raise UsageError(f"{where} has {len(runs)} RUN lines", fix=fix)
    opt, bar, check = runs[0].partition("|")
    try:
        words, checker = shlex.split(opt), shlex.split(check)
    except ValueError:
        raise UsageError(f"the RUN line of {where} is not shell words", fix=fix) from None
    if not bar or words[:2] != ["triton-opt", "%s"] or not checker or checker[0] != "FileCheck" or "|" in check:
        raise UsageError(f"the RUN line of {where} is not `triton-opt %s ... | FileCheck %s`", fix=fix)
    if any("%" in w for w in words[2:]):
        raise UsageError(f"the RUN line of {where} uses lit substitutions besides %s", fix=fix)
    return tuple(words[2:])


def makefile_delimiter(makefile: str, source: str) -> str | None:
    """The --source_delim_regex the Makefile's golden-samples gives this source, if it names it."""
    joined = makefile.replace("\\\n", " ")
    for line in joined.splitlines():
        if GENERATOR in line and f"--source {source}" in line:
            match = re.search(r"--source_delim_regex=(\"[^\"]*\"|'[^']*'|\S+)", line)
            if match:
                return match.group(1).strip("\"'")
    return None


def plan_update(path: Path, checkout: Path, makefile: str | None) -> UpdatePlan:
    """Which file is written, from what; UsageError for a test that is not a regular .mlir file under
    the checkout's test/ folder (links are resolved before the check, never followed out of it)."""
    tests = (checkout / "test").resolve()
    test = path.resolve()
    if test.suffix != ".mlir" or not test.is_relative_to(tests) or path.is_symlink():
        raise UsageError(f"--update {path}: not an .mlir lit test under {tests}",
                         fix="give the path of a test file, e.g. test/TritonGPU/coalesce.mlir")
    if not test.is_file():
        raise UsageError(f"--update {path}: no such test file", fix="give the path of an existing test file")
    golden = test.with_name(test.name + ".in")
    source = golden if golden.is_file() and not golden.is_symlink() else test
    opt_args = run_line(read_regular_text(source, limit=_LIMIT), source)
    delimiter = None
    if makefile is not None:
        delimiter = makefile_delimiter(makefile, str(source.relative_to(checkout.resolve())))
    if delimiter is None and source is golden:
        delimiter = GOLDEN_DELIMITER
    return UpdatePlan(test, source, opt_args, delimiter)


def diff(old: str, new: str, name: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"a/{name}", f"b/{name}"))


@dataclass(frozen=True)
class UpdateResult:
    plan: UpdatePlan
    diff: str
    written: bool

    def to_json(self) -> dict[str, object]:
        return {"test": str(self.plan.test), "source": str(self.plan.source), "opt_args": list(self.plan.opt_args),
                "delimiter": self.plan.delimiter, "diff": self.diff, "written": self.written}


def run_update(ctx: AppContext, path: Path) -> UpdateResult:
    build = find_build(ctx.workspace.root, ctx.workspace.state)
    state = read_state(ctx.workspace.state)
    assert state is not None
    checkout = build.triton_src
    if not (checkout / GENERATOR).is_file():
        raise UsageError(f"{checkout} has no {GENERATOR} at this commit (Triton has it from 3.3)",
                         fix="update the CHECK lines by hand")
    target = path if path.is_absolute() or path.exists() else checkout / path
    try:
        makefile: str | None = read_regular_text(checkout / "Makefile", limit=1 << 20)
    except OSError:
        makefile = None
    plan = plan_update(target, checkout, makefile)
    build_triton_opt(ctx)
    fix = "the lines above say why: the pass failed on the test's input, or the checks could not be placed"
    # Both only print (probes): they run under --dry-run too, which then shows the diff and writes nothing.
    output = ctx.runner.capture(plan.opt_argv(build.triton_opt), step="lit-update", cwd=checkout, fix=fix).stdout
    generated = ctx.runner.capture(plan.generator_argv(state.python, checkout), step="lit-update", cwd=checkout,
                                   input_text=output, fix=fix).stdout
    old = read_regular_text(plan.test, limit=_LIMIT)
    changes = diff(old, generated, str(plan.test.relative_to(checkout.resolve())))
    written = bool(changes) and not ctx.dry_run
    if written:
        mode = plan.test.lstat().st_mode & 0o7777  # the test keeps its permissions
        replace_text(plan.test, generated, verbatim=True, permissions=mode)  # the test's own text: never masked
    return UpdateResult(plan, changes, written)
