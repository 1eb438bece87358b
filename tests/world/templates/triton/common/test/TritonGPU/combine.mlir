// RUN: triton-opt %s -tritongpu-coalesce -tritongpu-remove-layout-conversions | FileCheck %s

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  // CHECK-LABEL: tt.func @round_trip
  tt.func @round_trip(%ptr: tensor<128x!tt.ptr<f32>, #blocked>) {
    // CHECK-NOT: ttg.convert_layout
    // CHECK: %0 = tt.load %ptr : tensor<128x!tt.ptr<f32>, #blocked>
    // CHECK-NEXT: tt.store %ptr, %0 : tensor<128x!tt.ptr<f32>, #blocked>
    %0 = tt.load %ptr : tensor<128x!tt.ptr<f32>, #blocked>
    tt.store %ptr, %0 : tensor<128x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
