#include "llvm/Target/TargetRegistry.h"
#include "triton/Target/LLVMIR/Translation.h"

#include <vector>

#include <string>

// The AMD backend needs LLVM's AMDGPU target (see the NVIDIA backend).
extern "C" void LLVMInitializeAMDGPUTargetInfo(std::vector<llvm::Target> &);

namespace mlir {
namespace triton {
namespace amd {

std::string getTargetTriple() { return "amdgcn-amd-amdhsa"; }
void *amdgpuInitializer() { return reinterpret_cast<void *>(&LLVMInitializeAMDGPUTargetInfo); }

} // namespace amd
} // namespace triton
} // namespace mlir
