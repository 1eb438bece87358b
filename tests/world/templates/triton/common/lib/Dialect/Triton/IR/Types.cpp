#include "triton/Dialect/Triton/IR/Dialect.h"

namespace mlir {
namespace triton {

std::string getPointerType(const std::string &pointee) { return "!tt.ptr<" + pointee + ">"; }

std::string getTensorType(const std::vector<long> &shape, const std::string &elementType) {
  std::string type = "tensor<";
  for (long dim : shape)
    type += std::to_string(dim) + "x";
  return type + elementType + ">";
}

} // namespace triton
} // namespace mlir
