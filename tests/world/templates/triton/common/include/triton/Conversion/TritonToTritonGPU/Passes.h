#ifndef TRITON_CONVERSION_TRITONTOTRITONGPU_PASSES_H
#define TRITON_CONVERSION_TRITONTOTRITONGPU_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
namespace triton {

std::unique_ptr<Pass> createConvertTritonToTritonGPUPass(int numWarps = 4, int threadsPerWarp = 32);

} // namespace triton
} // namespace mlir

#endif
