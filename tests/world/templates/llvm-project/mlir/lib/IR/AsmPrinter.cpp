#include "mlir/IR/Operation.h"

namespace mlir {

void Operation::print(llvm::raw_ostream &os, unsigned indent) const {
  os.indent(indent);
  for (std::size_t i = 0; i < results.size(); ++i)
    os << (i ? ", " : "") << "%" << static_cast<std::int64_t>(results[i].id);
  if (!results.empty())
    os << " = ";
  os << "\"" << name << "\"(";
  for (std::size_t i = 0; i < operands.size(); ++i)
    os << (i ? ", " : "") << "%" << static_cast<std::int64_t>(operands[i].id);
  os << ")";
  if (!attributes.empty()) {
    os << " {";
    bool first = true;
    for (const auto &kv : attributes) {
      os << (first ? "" : ", ") << kv.first << " = " << kv.second;
      first = false;
    }
    os << "}";
  }
  if (!body.empty()) {
    os << " ({\n";
    for (const auto &child : body)
      child->print(os, indent + 2);
    os.indent(indent) << "})";
  }
  if (!results.empty()) {
    os << " : (";
    for (std::size_t i = 0; i < results.size(); ++i)
      os << (i ? ", " : "") << results[i].type;
    os << ")";
  }
  os << "\n";
}

} // namespace mlir
