// The LLVM half of the bindings: what the LLVM this module was compiled against says about itself.
#include "ir.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/VCSRevision.h"
#include "triton/Target/LLVMIR/Translation.h"

namespace triton_py {

std::string llvmRevision() { return LLVM_REVISION; }
std::string llvmVersion() { return LLVM_VERSION_STRING; }
std::vector<std::string> llvmTargets() { return mlir::triton::getLLVMTargets(); }

} // namespace triton_py
