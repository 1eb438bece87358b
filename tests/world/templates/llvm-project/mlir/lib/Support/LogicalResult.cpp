#include "mlir/Support/LogicalResult.h"

namespace mlir {

const char *toString(LogicalResult r) { return r.ok ? "success" : "failure"; }

} // namespace mlir
