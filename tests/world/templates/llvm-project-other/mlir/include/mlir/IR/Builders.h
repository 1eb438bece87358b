#ifndef MLIR_IR_BUILDERS_H
#define MLIR_IR_BUILDERS_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include <memory>
#include <string_view>
#include <vector>

namespace mlir {

/// Creates operations and inserts them at the end of the current insertion block.
class OpBuilder {
public:
  explicit OpBuilder(MLIRContext *ctx) : context(ctx) {}

  MLIRContext *getContext() const { return context; }
  void setInsertionPointToEnd(Operation *parentOp) { insertionPoint = parentOp; }
  Operation *getInsertionBlock() const { return insertionPoint; }

  /// Creates an operation named `name` (e.g. "arith.addi") at `loc` with the given operands and
  /// results. Every operation now carries a location, so there is no overload without one.
  Operation *create(Location loc, std::string_view name, std::vector<Value> operands = {},
                    std::vector<std::string> resultTypes = {});

  /// A top-level operation owned by the caller (e.g. builtin.module).
  std::unique_ptr<Operation> createTopLevel(std::string_view name);

private:
  MLIRContext *context;
  Operation *insertionPoint = nullptr;
};

} // namespace mlir

#endif
