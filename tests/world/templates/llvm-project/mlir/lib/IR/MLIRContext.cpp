#include "mlir/IR/MLIRContext.h"

namespace mlir {

MLIRContext::MLIRContext() {
  // The builtin dialect is always available, as in MLIR.
  dialects.insert("builtin");
}

} // namespace mlir
