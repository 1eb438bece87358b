#ifndef MLIR_IR_VERIFIER_H
#define MLIR_IR_VERIFIER_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

#include <string>

namespace mlir {

/// Checks operand counts against the op definitions and that dialects are loaded.
LogicalResult verify(Operation *op, std::string *error = nullptr);

} // namespace mlir

#endif
