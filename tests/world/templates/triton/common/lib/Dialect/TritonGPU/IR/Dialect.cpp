#include "triton/Dialect/TritonGPU/IR/Dialect.h"

namespace mlir {
namespace triton {
namespace gpu {

void loadTritonGPUDialect(MLIRContext &ctx) { ctx.loadDialect("ttg"); }

std::string getBlockedEncoding(long sizePerThread, int numWarps, int threadsPerWarp) {
  return "#ttg.blocked<{sizePerThread = [" + std::to_string(sizePerThread) + "], threadsPerWarp = [" +
         std::to_string(threadsPerWarp) + "], warpsPerCTA = [" + std::to_string(numWarps) + "], order = [0]}>";
}

} // namespace gpu
} // namespace triton
} // namespace mlir
