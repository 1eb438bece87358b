#ifndef TRITON_TARGET_LLVMIR_TRANSLATION_H
#define TRITON_TARGET_LLVMIR_TRANSLATION_H

#include "mlir/IR/Operation.h"

#include <string>
#include <vector>

namespace mlir {
namespace triton {

/// Translates a TritonGPU module to LLVM IR text for `target` ("nvidia" or "amd").
std::string translateToLLVMIR(Operation *module, const std::string &target);

/// The LLVM targets compiled into the LLVM this Triton was built against.
std::vector<std::string> getLLVMTargets();

} // namespace triton
} // namespace mlir

#endif
