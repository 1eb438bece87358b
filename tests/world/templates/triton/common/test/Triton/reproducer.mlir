// RUN: triton-opt --run-reproducer %s -mlir-print-ir-before-all 2>&1 | FileCheck %s

// CHECK: // -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation) //----- //
// CHECK: // -----// IR Dump Before TritonGPUAssignLatencies (tritongpu-assign-latencies) ('builtin.module' operation) //----- //
// CHECK: %coalesced0 = ttg.convert_layout %arg0

module attributes {"ttg.target" = "cuda:90", "ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @triton__(%arg0: tensor<4x!tt.ptr<f32>>) {
    %0 = tt.load %arg0 : tensor<4x!tt.ptr<f32>>
    tt.return
  }
}

{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(any(tritongpu-coalesce,tritongpu-assign-latencies{num-stages=3}))",
      disable_threading: false,
      verify_each: false
    }
  }
#-}
