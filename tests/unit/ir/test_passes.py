"""Finding a pass's source and DEBUG_TYPE in a checkout laid out as Triton's is (upstream's own text)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.ir.dumps import Dump, Stage
from bootstrap.ir.passes import PassIndex
from bootstrap.ir.replay import debug_types_for, select_stage

# Declarations as include/triton/Dialect/TritonGPU/Transforms/Passes.td has them (R36, trimmed).
PASSES_TD = """\
#ifndef TRITONGPU_PASSES
#define TRITONGPU_PASSES

include "mlir/Pass/PassBase.td"

def TritonGPUPipeline : Pass<"tritongpu-pipeline", "mlir::ModuleOp"> {
  let summary = "pipeline";
  let options = [
    Option<"numStages", "num-stages",
           "int32_t", /*default*/"3",
           "number of pipeline stages">,
    Option<"dumpIntermediateSteps", "dump-intermediate-steps",
           "bool", /*default*/"false",
           "Dump intermediate steps">
  ];
}

def TritonGPUAssignLatencies : Pass<"tritongpu-assign-latencies", "mlir::ModuleOp"> {
  let summary = "assign latencies to interesting ops ahead of pipelining";
}

def TritonGPUCoalesce: Pass<"tritongpu-coalesce", "mlir::ModuleOp"> {
  let summary = "coalesce";
}

def TritonGPUAccelerateMatmul : Pass<"tritongpu-accelerate-matmul", "mlir::ModuleOp"> {
  let summary = "accelerate matmul";
}
#endif
"""

NVIDIA_TD = 'def ConvertTritonGPUToLLVM : Pass<"convert-triton-gpu-to-llvm", "mlir::ModuleOp"> {\n}\n'


def _source(name: str, *, debug_type: str | None = None, includes: tuple[str, ...] = ()) -> str:
    lines = [f'#include "{i}"' for i in includes]
    if debug_type:
        lines.append(f'#define DEBUG_TYPE "{debug_type}"')
    lines += [
        "namespace mlir {",
        f"#define GEN_PASS_DEF_{name.upper()}",
        '#include "triton/Dialect/TritonGPU/Transforms/Passes.h.inc"',
        "}",
    ]
    return "\n".join(lines) + "\n"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "triton"
    files = {
        "include/triton/Dialect/TritonGPU/Transforms/Passes.td": PASSES_TD,
        "lib/Dialect/TritonGPU/Transforms/Coalesce.cpp": _source("TritonGPUCoalesce", debug_type="tritongpu-coalesce"),
        "lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp": _source("TritonGPUAccelerateMatmul"),
        "lib/Dialect/TritonGPU/Transforms/Utility.cpp": '#define DEBUG_TYPE "ttg-utility"\n',
        "lib/Dialect/TritonGPU/Transforms/Pipeliner/AssignLatencies.cpp": _source(
            "TritonGPUAssignLatencies", debug_type="triton-loop-pipeline"
        ),
        "lib/Dialect/TritonGPU/Transforms/Pipeliner/SoftwarePipeliner.cpp": _source("TritonGPUPipeline"),
        "lib/Dialect/TritonGPU/Transforms/Pipeliner/LowerLoops.cpp": '#define DEBUG_TYPE "triton-loop-pipeline"\n',
        "lib/Dialect/TritonGPU/Transforms/Pipeliner/PipelineExpander.cpp": (
            '\n\n#define DEBUG_TYPE "triton-loop-pipelining"\n'
        ),
        "third_party/nvidia/include/TritonNVIDIAGPUToLLVM/Passes.td": NVIDIA_TD,
        "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TritonGPUToLLVM.cpp": _source(
            "ConvertTritonGPUToLLVM", includes=("Utility.h", "triton/Conversion/TritonGPUToLLVM/Utility.h")
        ),
        "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/Utility.h": (
            '#pragma once\n\n#define DEBUG_TYPE "ttgpu_to_llvm"\n'
        ),
        # A build folder's generated copy must not shadow the source.
        "build/cmake.linux-x86_64-cpython-3.12/lib/Dialect/TritonGPU/Transforms/Coalesce.cpp": _source(
            "TritonGPUCoalesce", debug_type="from-the-build-folder"
        ),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_debug_type_read_from_the_source(checkout: Path) -> None:
    index = PassIndex([checkout])
    assert index.arguments() == [
        "convert-triton-gpu-to-llvm",
        "tritongpu-accelerate-matmul",
        "tritongpu-assign-latencies",
        "tritongpu-coalesce",
        "tritongpu-pipeline",
    ]
    coalesce = index.find("tritongpu-coalesce")
    assert coalesce is not None and coalesce.debug_type == "tritongpu-coalesce"
    assert coalesce.debug_type_at == "lib/Dialect/TritonGPU/Transforms/Coalesce.cpp:1"
    assert coalesce.to_json()["declared_at"] == "include/triton/Dialect/TritonGPU/Transforms/Passes.td:22"
    latencies = index.find("tritongpu-assign-latencies")
    assert latencies is not None and latencies.debug_type == "triton-loop-pipeline"
    pipeline = index.find("tritongpu-pipeline")
    assert pipeline is not None and pipeline.options == ("num-stages", "dump-intermediate-steps")
    assert pipeline.debug_type is None
    assert [t for t, _ in pipeline.nearby] == ["triton-loop-pipeline", "triton-loop-pipelining"]
    llvm = index.find("convert-triton-gpu-to-llvm")
    assert llvm is not None and llvm.debug_type == "ttgpu_to_llvm"
    assert llvm.debug_type_at == "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/Utility.h:3"
    assert index.find("tritongpu-prefetch") is None


def test_notes_say_what_debug_only_can_and_cannot_select(checkout: Path) -> None:
    index = PassIndex([checkout])
    notes: list[str] = []
    types = debug_types_for(["tritongpu-assign-latencies", "tritongpu-accelerate-matmul"], index, notes, [])
    assert types == ["triton-loop-pipeline"]
    assert notes[0].startswith("tritongpu-assign-latencies logs under DEBUG_TYPE 'triton-loop-pipeline'")
    assert "tritongpu-accelerate-matmul defines no DEBUG_TYPE in " in notes[1]
    assert "ttg-utility" in notes[1]  # the helper next to it, which defines no pass itself
    notes = []
    assert debug_types_for(["canonicalize", "cse"], index, notes, []) == []
    assert notes == ["not declared in any *Passes.td of the workspace's checkouts, so no DEBUG_TYPE: canonicalize, cse"]


def _stage(number: int, arg: str, when: str = "before") -> Stage:
    return Stage(
        number=number,
        kind="mlir",
        when=when,
        name=arg.title(),
        arg=arg,
        options=None,
        op="builtin.module",
        kernel="k",
        target="cuda:90",
        failed=False,
        header="",
        body="module {}",
        origin=f"{number:04d}.mlir",
    )


def test_select_stage(checkout: Path) -> None:
    stages = (
        _stage(1, "tritongpu-coalesce"),
        _stage(2, "tritongpu-pipeline"),
        _stage(3, "SoftwarePipeliner-LowerLoops", "after"),
        _stage(4, "cse"),
        _stage(5, "cse"),
    )
    dump = Dump(Path("/dumps/x"), stages)
    index = PassIndex([checkout])
    stage, after, runs = select_stage(dump, "k", "tritongpu-pipeline", 1, index)
    assert (stage.number, after.number if after else None, runs) == (2, 4, 1)  # the next pass, not the step inside
    assert select_stage(dump, "k", "--cse", 2, index)[0].number == 5
    assert select_stage(dump, "k", "Tritongpu-Coalesce", 1, index)[0].number == 1  # the def name
    with pytest.raises(UsageError, match="cse ran 2 time"):
        select_stage(dump, "k", "cse", 3, index)
    with pytest.raises(UsageError, match=r"unknown pass 'tritongpu-colesce' \(did you mean 'tritongpu-coalesce'\?\)"):
        select_stage(dump, "k", "tritongpu-colesce", 1, index)
    with pytest.raises(UsageError, match="pass 'tritongpu-accelerate-matmul' did not run for kernel k") as caught:
        select_stage(dump, "k", "tritongpu-accelerate-matmul", 1, index)
    assert caught.value.fix is not None and "tritongpu-coalesce" in caught.value.fix
