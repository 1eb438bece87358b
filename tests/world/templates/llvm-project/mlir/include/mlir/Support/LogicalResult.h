#ifndef MLIR_SUPPORT_LOGICALRESULT_H
#define MLIR_SUPPORT_LOGICALRESULT_H

namespace mlir {

struct LogicalResult {
  bool ok;
  static LogicalResult success() { return {true}; }
  static LogicalResult failure() { return {false}; }
};
inline LogicalResult success() { return LogicalResult::success(); }
inline LogicalResult failure() { return LogicalResult::failure(); }
inline bool succeeded(LogicalResult r) { return r.ok; }
inline bool failed(LogicalResult r) { return !r.ok; }
const char *toString(LogicalResult r);

} // namespace mlir

#endif
