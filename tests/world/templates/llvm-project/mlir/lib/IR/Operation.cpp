#include "mlir/IR/Operation.h"

#include <utility>

namespace mlir {

Operation::Operation(MLIRContext *ctx, std::string name, std::vector<Value> operands,
                     std::vector<std::string> resultTypes)
    : context(ctx), name(std::move(name)), operands(std::move(operands)) {
  for (std::string &type : resultTypes)
    results.push_back(Value{ctx->nextValueId(), std::move(type), this});
}

std::string Operation::getAttr(const std::string &key) const {
  auto it = attributes.find(key);
  return it == attributes.end() ? std::string() : it->second;
}

Operation *Operation::addChild(std::unique_ptr<Operation> op) {
  op->parent = this;
  body.push_back(std::move(op));
  return body.back().get();
}

} // namespace mlir
