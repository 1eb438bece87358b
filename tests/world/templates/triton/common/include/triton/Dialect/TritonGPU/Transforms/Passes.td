#ifndef TRITONGPU_PASSES
#define TRITONGPU_PASSES

include "mlir/Pass/PassBase.td"

def TritonGPUAccelerateMatmul : Pass<"tritongpu-accelerate-matmul", "mlir::ModuleOp"> {
  let summary = "accelerate matmul";

  let description = [{
    Optimize the input/output layout of `dot` instruction to make them compatible hardware accelerators
    (e.g., Nvidia tensor cores). The miniature lets every dot accumulate in TF32.
  }];
}

def TritonGPUAssignLatencies : Pass<"tritongpu-assign-latencies", "mlir::ModuleOp"> {
  let summary = "assign latencies to interesting ops ahead of pipelining";

  let description = [{
    The `assign-latencies` pass assigns latencies to loads inside loops, based on the number of
    stages: a latency of `num-stages - 1` cycles of the loop.
  }];

  let options = [
    Option<"numStages", "num-stages",
           "int32_t", /*default*/"3",
           "number of pipeline stages">
  ];
}

def TritonGPUCoalesce: Pass<"tritongpu-coalesce", "mlir::ModuleOp"> {
  let summary = "coalesce";

  let description = [{
    The pass analyses loads/stores with type `tensor<tt.ptr<>>` or `tt.ptr<tensor<>>` and replaces
    the layouts of these operations with coalesced layouts: it converts the pointer operand of every
    `tt.load` and `tt.store` to the layout the access wants.
  }];
}

def TritonGPURemoveLayoutConversions : Pass<"tritongpu-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "remove superfluous layout conversions";

  let description = [{
    The miniature removes every `ttg.convert_layout` whose source and result types are the same,
    using its operand in its place.
  }];
}

#endif
