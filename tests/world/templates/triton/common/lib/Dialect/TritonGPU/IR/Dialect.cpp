#include "triton/Dialect/TritonGPU/IR/Dialect.h"

#include <sstream>

namespace mlir {
namespace triton {
namespace gpu {

void loadTritonGPUDialect(MLIRContext &ctx) { ctx.loadDialect("ttg"); }

std::string getBlockedEncoding(long sizePerThread, int numWarps, int threadsPerWarp) {
  std::ostringstream os;
  os << "#ttg.blocked<{sizePerThread = [" << sizePerThread << "], threadsPerWarp = [" << threadsPerWarp
     << "], warpsPerCTA = [" << numWarps << "], order = [0]}>";
  return os.str();
}

} // namespace gpu
} // namespace triton
} // namespace mlir
