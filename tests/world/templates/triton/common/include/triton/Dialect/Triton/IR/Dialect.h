#ifndef TRITON_DIALECT_TRITON_IR_DIALECT_H_
#define TRITON_DIALECT_TRITON_IR_DIALECT_H_

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace triton {

/// Loads the tt dialect (and the dialects it builds on) into a context.
void loadTritonDialect(MLIRContext &ctx);

/// Type strings of the tt dialect: !tt.ptr<f32>, tensor<128xf32>.
std::string getPointerType(const std::string &pointee);
std::string getTensorType(const std::vector<long> &shape, const std::string &elementType);

/// Builds the IR of a vector-add kernel: tt.func @name with loads, an add and a store.
Operation *buildVectorAdd(OpBuilder &builder, Operation *module, const std::string &name, long blockSize);

} // namespace triton
} // namespace mlir

#endif
