#include "mlir/Pass/Pass.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {

LogicalResult PassManager::run(Operation *op) {
  for (auto &pass : passes) {
    if (failed(pass->runOnOperation(op))) {
      llvm::errs() << "error: pass '" << pass->getName() << "' failed\n";
      return failure();
    }
    std::string error;
    if (failed(verify(op, &error))) {
      llvm::errs() << "error: verification failed after '" << pass->getName() << "': " << error << "\n";
      return failure();
    }
    executed.push_back(pass->getName());
  }
  return success();
}

} // namespace mlir
