"""`test lit --update`: which file is written from what, the RUN line as upstream writes it, the
delimiter golden-samples gives, and tests that cannot be regenerated refused before anything runs:
hand-written ones (unless --hand-written), RUN lines with anything but passes (an option that writes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.core.errors import UsageError
from bootstrap.ir.litupdate import (
    GOLDEN_DELIMITER,
    NOTE,
    NOTE_END,
    diff,
    has_note,
    makefile_delimiter,
    plan_update,
    refuse_writers,
    run_line,
    without_note,
)

MAKEFILE = """golden-samples: triton-opt
\t$(TRITON_OPT) test/TritonGPU/samples/a.mlir.in -tritongpu-pipeline -canonicalize | \\
\t\t$(PYTHON) utils/generate-test-checks.py --source test/TritonGPU/samples/a.mlir.in --source_delim_regex="\\bmod" \\
\t\t-o test/TritonGPU/samples/a.mlir
"""


def test_the_run_line_gives_the_passes() -> None:
    text = "// RUN: triton-opt %s -split-input-file -tritongpu-coalesce | FileCheck --dump-input-context=51 %s\n"
    assert run_line(text, Path("t.mlir")) == ("-split-input-file", "-tritongpu-coalesce")
    joined = "// RUN: triton-opt %s -tritongpu-pipeline \\\n// RUN:   -canonicalize | FileCheck %s\n"
    assert run_line(joined, Path("t.mlir")) == ("-tritongpu-pipeline", "-canonicalize")


@pytest.mark.parametrize(
    "text",
    [
        "no run line\n",
        "// RUN: triton-opt %s -a | FileCheck %s\n// RUN: triton-opt %s -b | FileCheck %s --check-prefix=B\n",
        "// RUN: not triton-opt %s -a 2>&1 | FileCheck %s\n",
        "// RUN: triton-opt %s -a | FileCheck %s | cat\n",
        "// RUN: triton-opt %s -a -o %t | FileCheck %s\n",
        "// RUN: triton-opt %s 'unclosed | FileCheck %s\n",
    ],
)
def test_a_test_that_cannot_be_regenerated_is_refused(text: str) -> None:
    with pytest.raises(UsageError):
        run_line(text, Path("t.mlir"))


def test_the_makefile_names_the_delimiter_of_its_golden_samples() -> None:
    assert makefile_delimiter(MAKEFILE, "test/TritonGPU/samples/a.mlir.in") == "\\bmod"
    assert makefile_delimiter(MAKEFILE, "test/TritonGPU/other.mlir") is None


def checkout(tmp_path: Path) -> Path:
    samples = tmp_path / "test" / "TritonGPU" / "samples"
    samples.mkdir(parents=True)
    (samples / "a.mlir").write_text(f"{NOTE}utils/generate-test-checks.py\nold\n")
    (samples / "a.mlir.in").write_text("// RUN: triton-opt %s -tritongpu-pipeline | FileCheck %s\n")
    (samples / "b.mlir").write_text(
        f"{NOTE}utils/generate-test-checks.py\n// RUN: triton-opt %s -tritongpu-coalesce | FileCheck %s\n"
    )
    (samples / "hand.mlir").write_text("// RUN: triton-opt %s -tritongpu-coalesce | FileCheck %s\n// CHECK: x\n")
    return tmp_path


def test_a_golden_sample_is_made_from_its_in_file(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    plan = plan_update(root / "test/TritonGPU/samples/a.mlir", root, MAKEFILE)
    assert plan.source.name == "a.mlir.in" and plan.delimiter == "\\bmod" and plan.opt_args == ("-tritongpu-pipeline",)
    assert plan_update(root / "test/TritonGPU/samples/a.mlir", root, None).delimiter == GOLDEN_DELIMITER
    other = plan_update(root / "test/TritonGPU/samples/b.mlir", root, MAKEFILE)
    assert other.source == other.test and other.delimiter is None  # the script's own default


def test_a_hand_written_test_is_refused_unless_asked(tmp_path: Path) -> None:
    """Upstream regenerates only tests with the script's NOTE header (golden samples)."""
    root = checkout(tmp_path)
    hand = root / "test/TritonGPU/samples/hand.mlir"
    with pytest.raises(UsageError, match="written by hand") as refused:
        plan_update(hand, root, MAKEFILE)
    assert refused.value.fix is not None and "--hand-written" in refused.value.fix
    assert plan_update(hand, root, MAKEFILE, hand_written=True).source == hand


@pytest.mark.parametrize(
    "word",
    [
        "-o",
        "--o=../victim.txt",
        "--mlir-print-ir-tree-dir=/tmp/x",
        "--log-actions-to=../log",
        "--mlir-pass-pipeline-crash-reproducer=r.mlir",
        "--run-reproducer",
        "other.mlir",
        "--tritongpu-coalesce-typo",
    ],
)
def test_anything_but_passes_on_the_run_line_is_refused(word: str) -> None:
    """triton-opt runs under --dry-run too (to show the diff): it must have no way to write a file."""
    passes = frozenset({"tritongpu-coalesce"})
    with pytest.raises(UsageError, match="no pass"):
        refuse_writers(("-tritongpu-coalesce", word, "../victim.txt"), passes, Path("t.mlir"))
    refuse_writers(
        ("-split-input-file", "--tritongpu-coalesce=x=1", "-canonicalize", "--pass-pipeline=builtin.module(cse)"),
        passes,
        Path("t.mlir"),
    )


def test_the_scripts_old_note_is_dropped_whole_before_it_runs_again() -> None:
    """The script's own `if line == note` never matches (one line against the multi-line note)."""
    note = NOTE + "utils/generate-test-checks.py\n" + "\n".join(NOTE_END) + "\n"
    source = "// RUN: triton-opt %s -a | FileCheck %s\n" + note + "\nmodule {\n}\n"
    assert has_note(source) and not has_note(without_note(source))
    assert without_note(source) == "// RUN: triton-opt %s -a | FileCheck %s\n\nmodule {\n}\n"
    assert without_note("no note\n") == "no note\n"


def test_only_mlir_tests_under_test_are_written_links_never_followed_out(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    (root / "outside.mlir").write_text("// RUN: triton-opt %s -a | FileCheck %s\n")
    os.symlink(root / "outside.mlir", root / "test" / "link.mlir")
    (root / "test" / "notes.txt").write_text("")
    for path in (
        root / "outside.mlir",
        root / "test" / "link.mlir",
        root / "test" / "notes.txt",
        root / "test" / "missing.mlir",
        root / "test" / ".." / "outside.mlir",
    ):
        with pytest.raises(UsageError):
            plan_update(path, root, None)


def test_the_diff_names_the_file() -> None:
    assert diff("a\n", "b\n", "test/x.mlir").startswith("--- a/test/x.mlir\n+++ b/test/x.mlir\n")
    assert diff("same\n", "same\n", "x") == ""


@given(st.text(alphabet=st.sampled_from(list("/ RUN:triton-opt%s|FileCheck'\"\\\n-x")), max_size=120))
def test_any_test_text_gives_passes_or_exit_2(text: str) -> None:
    try:
        args = run_line(text, Path("t.mlir"))
    except UsageError:
        return
    assert all(isinstance(a, str) and "%" not in a for a in args)
