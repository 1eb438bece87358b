#include "triton/Dialect/Triton/IR/Dialect.h"

#include <sstream>

namespace mlir {
namespace triton {

std::string getPointerType(const std::string &pointee) { return "!tt.ptr<" + pointee + ">"; }

std::string getTensorType(const std::vector<long> &shape, const std::string &elementType) {
  std::ostringstream os;
  os << "tensor<";
  for (long dim : shape)
    os << dim << "x";
  os << elementType << ">";
  return os.str();
}

} // namespace triton
} // namespace mlir
