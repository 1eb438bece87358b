#ifndef MLIR_IR_MLIRCONTEXT_H
#define MLIR_IR_MLIRCONTEXT_H

#include <cstdint>
#include <set>
#include <string>

namespace mlir {

class MLIRContext {
public:
  MLIRContext();
  void loadDialect(const std::string &name) { dialects.insert(name); }
  bool isDialectLoaded(const std::string &name) const { return dialects.count(name) != 0; }
  const std::set<std::string> &getLoadedDialects() const { return dialects; }
  void allowUnregisteredDialects(bool allow = true) { allowUnregistered = allow; }
  bool allowsUnregisteredDialects() const { return allowUnregistered; }
  std::uint64_t nextValueId() { return valueCounter++; }

private:
  std::set<std::string> dialects;
  bool allowUnregistered = false;
  std::uint64_t valueCounter = 0;
};

} // namespace mlir

#endif
