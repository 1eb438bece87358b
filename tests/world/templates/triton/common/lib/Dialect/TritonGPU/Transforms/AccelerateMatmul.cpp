#include "triton/Dialect/TritonGPU/Transforms/Passes.h"
#include "triton/Tools/TextIR.h"

#include <memory>
#include <string>

namespace mlir {
namespace triton {
namespace gpu {

#define GEN_PASS_DEF_TRITONGPUACCELERATEMATMUL
#include "triton/Dialect/TritonGPU/Transforms/Passes.h.inc"

namespace {

/// Every tt.dot computed in IEEE fp32 is computed with TF32 instead, as tensor cores do.
struct AccelerateMatmulPass : public impl::TritonGPUAccelerateMatmulBase<AccelerateMatmulPass> {
  bool runOnModule(text::Module &module, std::string &) override {
    const std::string ieee = "inputPrecision = ieee";
    for (std::string &line : module.lines) {
      text::OpLine op;
      std::size_t at = line.find(ieee);
      if (at != std::string::npos && text::parseOpLine(line, op) && op.name == "tt.dot")
        line.replace(at, ieee.size(), "inputPrecision = tf32");
    }
    return true;
  }
};

} // namespace

void registerTritonGPUAccelerateMatmul() {
  text::registerPass([]() -> std::unique_ptr<text::Pass> { return std::make_unique<AccelerateMatmulPass>(); });
}

} // namespace gpu
} // namespace triton
} // namespace mlir
