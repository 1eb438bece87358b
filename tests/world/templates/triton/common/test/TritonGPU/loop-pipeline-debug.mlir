// RUN: triton-opt %s -tritongpu-assign-latencies=num-stages=4 -debug-only=triton-loop-pipeline 2>&1 | FileCheck %s
// RUN: triton-opt %s -tritongpu-assign-latencies -debug-only=tritongpu-assign-latencies 2>&1 | FileCheck %s --check-prefix=FLAG

// The pass's DEBUG_TYPE is triton-loop-pipeline, not its flag: -debug-only=<flag> prints nothing.
// CHECK: [triton-loop-pipeline]: Loop found: %0 = scf.for
// CHECK: [triton-loop-pipeline]: Load in a loop gets latency 3: %1
// CHECK: tt.load %arg3 {tt.latency = 3 : i32} : tensor<128x!tt.ptr<f32>>
// FLAG-NOT: [triton-loop-pipeline]
// FLAG: tt.load %arg3 {tt.latency = 2 : i32}

module {
  tt.func @loop(%ptr: tensor<128x!tt.ptr<f32>>, %lb: index, %ub: index, %step: index) {
    %0 = scf.for %i = %lb to %ub step %step iter_args(%arg3 = %ptr) -> (tensor<128x!tt.ptr<f32>>) {
      %1 = tt.load %arg3 : tensor<128x!tt.ptr<f32>>
      scf.yield %arg3 : tensor<128x!tt.ptr<f32>>
    }
    tt.return
  }
}
