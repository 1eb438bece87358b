"""Whatever text a dump, an index.json or a reproducer holds, the readers answer (or refuse with a
DumpError) and never crash or hang: dumps are outside input, written by programs that were crashing."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.ir.diff import first_difference
from bootstrap.ir.dumps import DumpError, load_dump, split_raw
from bootstrap.ir.header import parse_header, split_pass_argument
from bootstrap.ir.text import comparable, strip_locations
from bootstrap.ir.tritonopt import pipeline_passes, reproducer_pipeline
from bootstrap.pipeline.testing.counts import parse_summary

SETTINGS = settings(
    database=None,
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
DUMPS = Path(__file__).parent / "dumps"

# Pieces of real dumps, so that the generated text is often close to a dump, not only random.
HEADER = "// -----// IR Dump Before "
PIECES = [
    HEADER,
    "TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation) //----- //",
    "ConvertTritonToTritonGPU: convert-triton-to-tritongpu{num-warps=4 target=cuda:90}",
    " //----- //",
    "('tt.func' operation: @k)",
    "// -----// NVPTX Dump //----- //",
    "; *** IR Dump After InstCombinePass on k ***",
    'module attributes {ttg.target = "cuda:90"} {',
    'tt.func public @add_kernel(%x: !tt.ptr<f32> loc("x")) {',
    "  %0 = tt.load %8, %6 : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc)",
    "}",
    "{",
    "(",
    ")",
    "loc(",
    '"',
    "\\",
    '#loc1 = loc("k.py":3:4)',
    "{-#",
    "#-}",
    "mlir_reproducer: {",
    'pipeline: "builtin.module(any(a,b{x=1}))"',
    "program: done",
    " ",
    "\n",
    "\t",
    "\r",
]
TEXT = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=20)), max_size=40).map("".join)


@SETTINGS
@given(TEXT)
def test_any_text_splits_into_stages(text: str) -> None:
    stages = split_raw(text, "log")
    for stage in stages:
        assert stage.header and stage.origin.startswith("log:")
        assert stage.kind in ("mlir", "llvm", "nvptx", "amdgcn")
    first_difference(stages, list(reversed(stages)))


@SETTINGS
@given(TEXT)
def test_any_line_is_a_header_or_not(line: str) -> None:
    header = parse_header(line.split("\n")[0])
    if header is not None:
        assert header["kind"] in ("mlir", "llvm", "nvptx", "amdgcn")
    split_pass_argument(line)


@SETTINGS
@given(TEXT, st.sampled_from(["mlir", "llvm", "nvptx", "amdgcn", "other"]))
def test_locations_leave_the_rest(text: str, kind: str) -> None:
    stripped = strip_locations(text, kind)
    assert len(stripped) <= len(text)
    assert comparable(stripped, kind, True) == comparable(stripped, kind, True)


@SETTINGS
@given(TEXT)
def test_reproducer_and_pipeline_text(text: str) -> None:
    pipeline = reproducer_pipeline(text)
    assert pipeline is None or isinstance(pipeline, str)
    assert all(p and "," not in p for p in pipeline_passes(text))
    parse_summary(text.split("\n"))


@SETTINGS
@given(
    st.one_of(
        st.text(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=30),
            lambda children: (
                st.lists(children, max_size=4)
                | st.dictionaries(
                    st.sampled_from(["passes", "file", "number", "kernel", "target"]), children, max_size=5
                )
            ),
            max_leaves=20,
        ).map(json.dumps),
    )
)
def test_any_index_json_is_read_or_refused(tmp_path_factory: pytest.TempPathFactory, index: str) -> None:
    folder = tmp_path_factory.mktemp("dump")
    (folder / "index.json").write_text(index)
    (folder / "0001-x.mlir").write_text("// -----// IR Dump Before X (x) ('builtin.module' operation) //----- //\n")
    try:
        dump = load_dump(folder)
    except DumpError as exc:
        assert exc.fix
    else:
        assert all(s.header for s in dump.stages)


@pytest.mark.parametrize(
    "bad",
    [
        HEADER + " " * 50_000 + "x",
        HEADER + "X (" * 20_000,
        "  " + "loc(" * 30_000 + "x",
        'loc("' + '\\"' * 30_000,
        HEADER + "X: y{" + "{" * 30_000,
        "{-#" + ' mlir_reproducer: { pipeline: "' + "a," * 30_000,
        "*** IR Dump After " + "x on (" * 20_000 + " ***",
        "; *** IR Dump Before " + " ***" * 20_000 + "x",
        HEADER + "X" + " ('" * 20_000 + "builtin.module' operation)",
        "// -----// " + "internal IR Dump " * 10_000,
        "a" * 60_000 + ": " + ";" * 10,
        '.amdgcn_target "' + "-" * 60_000,
    ],
)
def test_long_pathological_lines_stay_fast(bad: str) -> None:
    started = time.monotonic()
    split_raw(bad + "\n" + bad, "log")
    strip_locations(bad)
    pipeline_passes(bad)
    reproducer_pipeline(bad)
    parse_header(bad)
    assert time.monotonic() - started < 5


def test_real_dumps_are_read_whole() -> None:
    for folder in DUMPS.iterdir():
        assert load_dump(folder).stages
