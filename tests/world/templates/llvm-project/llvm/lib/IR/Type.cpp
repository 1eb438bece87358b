#include "llvm/IR/Type.h"

#include <string>

namespace llvm {

std::string Type::str() const {
  switch (kind) {
  case Void:
    return "void";
  case Int:
    return "i" + std::to_string(bits);
  case Float:
    return bits == 64 ? "double" : (bits == 16 ? "half" : "float");
  case Pointer:
    return "ptr";
  }
  return "?";
}

} // namespace llvm
