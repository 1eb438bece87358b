#ifndef TRITON_DIALECT_TRITONGPU_IR_DIALECT_H_
#define TRITON_DIALECT_TRITONGPU_IR_DIALECT_H_

#include "mlir/IR/MLIRContext.h"

#include <string>

namespace mlir {
namespace triton {
namespace gpu {

void loadTritonGPUDialect(MLIRContext &ctx);

/// "#ttg.blocked<{sizePerThread = [N], threadsPerWarp = [32], warpsPerCTA = [W]}>"
std::string getBlockedEncoding(long sizePerThread, int numWarps, int threadsPerWarp = 32);

} // namespace gpu
} // namespace triton
} // namespace mlir

#endif
