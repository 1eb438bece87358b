#ifndef MLIR_TARGET_LLVMIR_MODULETRANSLATION_H
#define MLIR_TARGET_LLVMIR_MODULETRANSLATION_H

#include "llvm/IR/Module.h"
#include "mlir/IR/Operation.h"

#include <memory>
#include <string>

namespace mlir {

/// Translates a builtin.module of func.func ops into an LLVM module.
std::unique_ptr<llvm::Module> translateModuleToLLVMIR(Operation *module, const std::string &name);

} // namespace mlir

#endif
