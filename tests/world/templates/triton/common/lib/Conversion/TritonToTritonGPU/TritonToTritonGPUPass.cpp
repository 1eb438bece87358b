#include "triton/Conversion/TritonToTritonGPU/Passes.h"
#include "triton/Dialect/TritonGPU/IR/Dialect.h"

namespace mlir {
namespace triton {
namespace {

/// Attaches a blocked layout to every tensor-producing op and records the launch shape on the module.
class ConvertTritonToTritonGPU : public Pass {
public:
  ConvertTritonToTritonGPU(int numWarps, int threadsPerWarp) : numWarps(numWarps), threadsPerWarp(threadsPerWarp) {}
  std::string getName() const override { return "convert-triton-to-tritongpu"; }

  LogicalResult runOnOperation(Operation *module) override {
    gpu::loadTritonGPUDialect(*module->getContext());
    module->setAttr("ttg.num-warps", std::to_string(numWarps));
    module->setAttr("ttg.threads-per-warp", std::to_string(threadsPerWarp));
    bool sawFunc = false;
    module->walk([&](Operation *op) {
      if (op->getName() == "tt.func")
        sawFunc = true;
      for (const Value &result : op->getResults())
        if (result.type.rfind("tensor<", 0) == 0)
          op->setAttr("layout", gpu::getBlockedEncoding(1, numWarps, threadsPerWarp));
    });
    return sawFunc ? success() : failure();
  }

private:
  int numWarps;
  int threadsPerWarp;
};

} // namespace

std::unique_ptr<Pass> createConvertTritonToTritonGPUPass(int numWarps, int threadsPerWarp) {
  return std::make_unique<ConvertTritonToTritonGPU>(numWarps, threadsPerWarp);
}

} // namespace triton
} // namespace mlir
