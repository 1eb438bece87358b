#ifndef MLIR_PASS_PASS_H
#define MLIR_PASS_PASS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {

class Pass {
public:
  virtual ~Pass() = default;
  virtual std::string getName() const = 0;
  virtual LogicalResult runOnOperation(Operation *op) = 0;
};

class PassManager {
public:
  explicit PassManager(MLIRContext *ctx) : context(ctx) {}
  void addPass(std::unique_ptr<Pass> pass) { passes.push_back(std::move(pass)); }
  /// Runs every pass in order, verifying after each one; stops at the first failure.
  LogicalResult run(Operation *op);
  const std::vector<std::string> &getExecuted() const { return executed; }
  MLIRContext *getContext() const { return context; }

private:
  MLIRContext *context;
  std::vector<std::unique_ptr<Pass>> passes;
  std::vector<std::string> executed;
};

} // namespace mlir

#endif
