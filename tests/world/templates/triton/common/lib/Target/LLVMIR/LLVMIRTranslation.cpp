#include "triton/Target/LLVMIR/Translation.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetRegistry.h"
#include "mlir/Target/LLVMIR/ModuleTranslation.h"

namespace mlir {
namespace triton {

std::string translateToLLVMIR(Operation *module, const std::string &target) {
  const char *llvmTarget = target == "amd" ? "AMDGPU" : "NVPTX";
  auto llvmModule = translateModuleToLLVMIR(module, "LLVMDialectModule");
  if (llvm::lookupTarget(llvmTarget))
    llvmModule->setTargetTriple(target == "amd" ? "amdgcn-amd-amdhsa" : "nvptx64-nvidia-cuda");
  std::string text;
  llvm::raw_ostream os(text);
  llvmModule->print(os);
  return text;
}

std::vector<std::string> getLLVMTargets() {
  std::vector<std::string> names;
  for (const llvm::Target &t : llvm::getRegisteredTargets())
    names.push_back(t.name);
  return names;
}

} // namespace triton
} // namespace mlir
