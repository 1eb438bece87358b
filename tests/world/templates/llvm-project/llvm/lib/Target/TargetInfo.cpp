// Compiled once per configured target, with LLVM_TARGET_NAME set to its name.
#include "llvm/Target/TargetRegistry.h"

#include <string>
#include <vector>

#define LLVM_STR2(x) #x
#define LLVM_STR(x) LLVM_STR2(x)
#define LLVM_CAT2(a, b) a##b
#define LLVM_CAT(a, b) LLVM_CAT2(a, b)

extern "C" void LLVM_CAT(LLVMInitialize, LLVM_CAT(LLVM_TARGET_NAME, TargetInfo))(std::vector<llvm::Target> &out) {
  std::string name = LLVM_STR(LLVM_TARGET_NAME);
  unsigned bits = (name == "AMDGPU" || name == "NVPTX" || name == "X86" || name == "AArch64") ? 64 : 32;
  out.push_back({name, name + " target (miniature)", bits});
}
