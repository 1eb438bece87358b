#ifndef TRITON_DIALECT_TRITONGPU_TRANSFORMS_PASSES_H
#define TRITON_DIALECT_TRITONGPU_TRANSFORMS_PASSES_H

#include "triton/Tools/TextIR.h"

namespace mlir {
namespace triton {
namespace gpu {

void registerTritonGPUAccelerateMatmul();
void registerTritonGPUAssignLatencies();
void registerTritonGPUCoalesce();
void registerTritonGPURemoveLayoutConversions();

/// Registers every pass of Passes.td with triton-opt (GEN_PASS_REGISTRATION in the real build).
inline void registerTritonGPUPasses() {
  registerTritonGPUAccelerateMatmul();
  registerTritonGPUAssignLatencies();
  registerTritonGPUCoalesce();
  registerTritonGPURemoveLayoutConversions();
}

} // namespace gpu
} // namespace triton
} // namespace mlir

#endif
