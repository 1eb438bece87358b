#include "mlir/IR/Builders.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {

Operation *OpBuilder::create(std::string_view name, std::vector<Value> operands,
                             std::vector<std::string> resultTypes) {
  if (!insertionPoint)
    llvm::report_fatal_error("OpBuilder::create called without an insertion point");
  auto op = std::make_unique<Operation>(context, std::string(name), std::move(operands), std::move(resultTypes));
  return insertionPoint->addChild(std::move(op));
}

std::unique_ptr<Operation> OpBuilder::createTopLevel(std::string_view name) {
  return std::make_unique<Operation>(context, std::string(name), std::vector<Value>{}, std::vector<std::string>{});
}

} // namespace mlir
