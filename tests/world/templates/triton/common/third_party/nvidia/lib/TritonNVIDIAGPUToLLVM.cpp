#include "llvm/Target/TargetRegistry.h"
#include "triton/Target/LLVMIR/Translation.h"

#include <vector>

#include <string>

// The NVIDIA backend needs LLVM's NVPTX target: referencing its initializer makes a Triton built
// against an LLVM without NVPTX fail to link, as the real one does.
extern "C" void LLVMInitializeNVPTXTargetInfo(std::vector<llvm::Target> &);

namespace mlir {
namespace triton {
namespace nvidia {

std::string getTargetTriple() { return "nvptx64-nvidia-cuda"; }
void *nvptxInitializer() { return reinterpret_cast<void *>(&LLVMInitializeNVPTXTargetInfo); }

} // namespace nvidia
} // namespace triton
} // namespace mlir
