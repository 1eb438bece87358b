"""The triton-opt command lines tritondev writes, reproducer pipelines, and lit's arguments and summary."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bootstrap.ir.dumps import load_dump
from bootstrap.ir.lit import lit_arguments
from bootstrap.ir.replay import Replay, command_for, input_text
from bootstrap.ir.tritonopt import (
    debug_flags,
    opt_command,
    pass_arguments,
    pipeline_passes,
    replay_command,
    reproducer_pipeline,
)
from bootstrap.pipeline.testing.counts import parse_summary

DUMPS = Path(__file__).parent / "dumps"

# The end of a reproducer Triton 3.9 wrote with TRITON_REPRODUCER_PATH (make_ttir).
PIPELINE = (
    "any(inline{default-pipeline=canonicalize inlining-threshold=4294967295 max-iterations=4 },"
    "canonicalize{cse-between-iterations=false    max-iterations=10 max-num-rewrites=-1 region-simplify=normal "
    "test-convergence=false top-down=true},triton-combine,triton-reorder-broadcast,cse,symbol-dce,triton-loop-unroll)"
)
REPRODUCER = f"""module {{
  tt.func public @add_kernel() {{
    tt.return
  }}
}}

{{-#
  external_resources: {{
    mlir_reproducer: {{
      pipeline: "{PIPELINE}",
      disable_threading: false,
      verify_each: false
    }}
  }}
#-}}
"""


def test_pass_arguments_carry_the_options_and_the_operation() -> None:
    stages = {s.arg: s for s in load_dump(DUMPS / "triton-3.9-cuda90-warps4").stages}
    assert pass_arguments(stages["tritongpu-coalesce"]) == ["-tritongpu-coalesce"]
    assert pass_arguments(stages["convert-triton-to-tritongpu"]) == [
        "--convert-triton-to-tritongpu=enable-source-remat=false num-ctas=1 num-warps=4 target=cuda:90 "
        "threads-per-warp=32"
    ]
    nested = dataclasses.replace(
        stages["tritongpu-coalesce"], op="tt.func", arg="canonicalize", options="top-down=true"
    )
    assert pass_arguments(nested) == ["--pass-pipeline=builtin.module(tt.func(canonicalize{top-down=true}))"]


def test_commands() -> None:
    opt = Path("/b/bin/triton-opt")
    assert opt_command(opt, Path("in.mlir"), Path("out.mlir"), ["-tritongpu-coalesce"], ["tritongpu-coalesce"]) == [
        "/b/bin/triton-opt",
        "in.mlir",
        "-tritongpu-coalesce",
        "-debug-only=tritongpu-coalesce",
        "-o",
        "out.mlir",
    ]
    assert replay_command(opt, Path("r.mlir"), Path("o.mlir"), []) == [
        "/b/bin/triton-opt",
        "r.mlir",
        "--run-reproducer",
        "-o",
        "o.mlir",
    ]
    assert debug_flags(["a", "b", "a"]) == ["-debug-only=a,b"]


def test_replay_of_a_dumped_pass(tmp_path: Path) -> None:
    dump = load_dump(DUMPS / "triton-3.9-cuda90-warps4")
    stage = next(s for s in dump.stages if s.arg == "tritongpu-coalesce")
    replay = Replay(tmp_path, tmp_path / "input.mlir", stage=stage, env={"ASAN_OPTIONS": "detect_leaks=0"})
    replay.command = command_for(replay, Path("/b/bin/triton-opt"))
    assert replay.command[2] == "-tritongpu-coalesce"
    assert replay.shell_command().startswith("ASAN_OPTIONS=detect_leaks=0 /b/bin/triton-opt ")
    text = input_text(stage, dump.path)
    assert text.startswith("// The IR before #10 tritongpu-coalesce (TritonGPUCoalesce), from ")
    assert text.endswith(stage.body.rstrip() + "\n") and "IR Dump" not in text


def test_reproducer_pipeline() -> None:
    pipeline = reproducer_pipeline(REPRODUCER)
    assert pipeline == PIPELINE
    assert pipeline_passes(pipeline) == [
        "inline",
        "canonicalize",
        "triton-combine",
        "triton-reorder-broadcast",
        "cse",
        "symbol-dce",
        "triton-loop-unroll",
    ]
    assert pipeline_passes("builtin.module(any(a,b{x={y}},tt.func(c)), d)") == ["a", "b", "c", "d"]
    assert reproducer_pipeline("module {}\n") is None
    assert reproducer_pipeline("{-#\n  external_resources: {\n  }\n#-}\n") is None


def test_lit_arguments(tmp_path: Path) -> None:
    (tmp_path / "test" / "TritonGPU").mkdir(parents=True)
    (tmp_path / "test" / "TritonGPU" / "coalesce.mlir").write_text("")
    build = Path("/b")
    tests = tmp_path / "test"
    assert lit_arguments(tests, build, "TritonGPU/coalesce.mlir") == ["-v", "/b/test/TritonGPU/coalesce.mlir"]
    assert lit_arguments(tests, build, "test/TritonGPU") == ["-v", "/b/test/TritonGPU"]
    assert lit_arguments(tests, build, "coalesce") == ["-v", "/b/test", "--filter", "coalesce"]
    assert lit_arguments(tests, build, "../../etc") == ["-v", "/b/test", "--filter", "../../etc"]


def test_lit_summary() -> None:
    output = """
FAIL: TRITON :: TritonGPU/coalesce.mlir (4 of 4)
********************
Failed Tests (1):
  TRITON :: TritonGPU/coalesce.mlir


Testing Time: 0.22s

Total Discovered Tests: 4
  Passed: 3 (75.00%)
  Failed: 1 (25.00%)
"""
    summary = parse_summary(output.splitlines())
    assert summary.counts == {"Passed": 3, "Failed": 1}
    assert summary.failed == ["TRITON :: TritonGPU/coalesce.mlir"]
    assert not parse_summary(["ninja: error: unknown target"]).ran
