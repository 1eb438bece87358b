#ifndef MLIR_IR_LOCATION_H
#define MLIR_IR_LOCATION_H

#include <string>

namespace mlir {

/// A source location: file:line:col, or "unknown".
class Location {
public:
  static Location unknown() { return Location("loc(unknown)"); }
  static Location file(const std::string &f, unsigned line, unsigned col) {
    return Location("loc(\"" + f + "\":" + std::to_string(line) + ":" + std::to_string(col) + ")");
  }
  const std::string &str() const { return text; }

private:
  explicit Location(std::string t) : text(std::move(t)) {}
  std::string text;
};

} // namespace mlir

#endif
