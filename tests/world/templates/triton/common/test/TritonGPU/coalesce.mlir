// RUN: triton-opt %s -split-input-file -tritongpu-coalesce | FileCheck %s

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tt.func public @load_store
  tt.func public @load_store(%ptr: tensor<1024x!tt.ptr<f32>, #blocked>, %mask: tensor<1024xi1, #blocked>) {
    // CHECK: %coalesced0 = ttg.convert_layout %ptr : tensor<1024x!tt.ptr<f32>, #blocked> -> tensor<1024x!tt.ptr<f32>, #blocked>
    // CHECK-NEXT: %0 = tt.load %coalesced0, %mask : tensor<1024x!tt.ptr<f32>, #blocked>
    %0 = tt.load %ptr, %mask : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc)
    // CHECK-NEXT: %coalesced1 = ttg.convert_layout %ptr
    // CHECK-NEXT: tt.store %coalesced1, %0, %mask
    tt.store %ptr, %0, %mask : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc)
    tt.return
  }
}
#loc = loc(unknown)

// -----

module {
  // CHECK-LABEL: tt.func @scalar
  tt.func @scalar(%p: !tt.ptr<f32>) {
    // CHECK-NOT: ttg.convert_layout
    // CHECK: tt.load %p : !tt.ptr<f32>
    %0 = tt.load %p : !tt.ptr<f32>
    tt.return
  }
}
