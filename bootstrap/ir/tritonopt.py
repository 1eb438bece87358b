"""The workspace's triton-opt and the command lines that replay a pass or a reproducer with it.

triton-opt is built by Triton's CMake into the `bin/` folder of setup.py's build folder
(build/cmake.<platform>-<impl>-<pyver>/bin/triton-opt, the Makefile's TRITON_OPT); `ninja
triton-opt` there builds it. Its command line is mlir-opt's: a pass is a flag named by its argument
(`-tritongpu-coalesce`, with options `--convert-triton-to-tritongpu=num-warps=4 target=cuda:90`),
`-debug-only=<DEBUG_TYPE>[,...]` selects LLVM_DEBUG output, `--run-reproducer` runs the pipeline a
reproducer file names. The functions here only compute; the commands run elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from bootstrap.core import ui
from bootstrap.core.context import AppContext
from bootstrap.ir.dumps import Stage
from bootstrap.pipeline.setup.api import BuildResult, run_build

_PIPELINE = re.compile(r'mlir_reproducer\s*:\s*\{[^}]*?pipeline\s*:\s*"((?:[^"\\]|\\.)*)"', re.S)


def pass_arguments(stage: Stage) -> list[str]:
    """The triton-opt arguments that run the pass whose input `stage` is, with the options the dump
    recorded, on the operation it ran on (a pass nested under tt.func needs a pipeline)."""
    argument = stage.arg or stage.name
    if stage.op in (None, "builtin.module"):
        return [f"--{argument}={stage.options}"] if stage.options else [f"-{argument}"]
    inner = f"{argument}{{{stage.options}}}" if stage.options else argument
    return [f"--pass-pipeline=builtin.module({stage.op}({inner}))"]


def debug_flags(debug_types: Sequence[str]) -> list[str]:
    return [f"-debug-only={','.join(dict.fromkeys(debug_types))}"] if debug_types else []


def opt_command(
    triton_opt: Path, input_file: Path, output: Path, passes: Sequence[str], debug_types: Sequence[str]
) -> list[str]:
    return [str(triton_opt), str(input_file), *passes, *debug_flags(debug_types), "-o", str(output)]


def replay_command(triton_opt: Path, reproducer: Path, output: Path, debug_types: Sequence[str]) -> list[str]:
    return [str(triton_opt), str(reproducer), "--run-reproducer", *debug_flags(debug_types), "-o", str(output)]


def reproducer_pipeline(text: str) -> str | None:
    """The pipeline an MLIR reproducer (`{-# external_resources: { mlir_reproducer: ... } #-}`) names."""
    start = text.rfind("{-#")
    if start < 0:
        return None
    match = _PIPELINE.search(text, start)
    return match.group(1).replace('\\"', '"') if match else None


def pipeline_passes(pipeline: str) -> list[str]:
    """The pass arguments of a textual pipeline, in order: `builtin.module(any(a,b{x=1}))` -> [a, b].

    A name followed by `(` is an operation the passes inside are nested under, not a pass; options
    in braces are skipped whole. Linear in the text, whatever the text is.
    """
    passes: list[str] = []
    name: list[str] = []
    depth = 0  # braces: inside options
    for char in pipeline:
        if depth:
            depth += {"{": 1, "}": -1}.get(char, 0)
            continue
        if char == "{":
            depth = 1
        elif char == "(":
            name = []
        elif char in ",)":
            word = "".join(name).strip()
            if word:
                passes.append(word)
            name = []
        else:
            name.append(char)
    word = "".join(name).strip()
    if word:
        passes.append(word)
    return passes


def build_triton_opt(ctx: AppContext) -> BuildResult:
    """`tritondev build --target triton-opt`, the one way `opt` gets the workspace's triton-opt (under the
    workspace lock, taken exclusive: it builds; shown, not run, under --dry-run)."""
    with ctx.locked():
        return run_build(ctx, "triton-opt", ui.err())
