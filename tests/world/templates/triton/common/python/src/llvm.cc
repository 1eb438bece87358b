// The LLVM half of the bindings: what the LLVM this module was compiled against says about itself.
#include "ir.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/LinkedBuild.h"
#include "llvm/Support/VCSRevision.h"
#include "triton/Target/LLVMIR/Translation.h"

namespace triton_py {

std::string llvmRevision() { return LLVM_REVISION; }
std::string llvmVersion() { return LLVM_VERSION_STRING; }
std::vector<std::string> llvmTargets() { return mlir::triton::getLLVMTargets(); }
// Test world: what the LLVMSupport library linked into this module says (not the headers compiled with).
std::string llvmLinkedRevision() { return llvm::getLinkedRevision(); }
std::string llvmLinkedBuildTree() { return llvm::getLinkedBuildTree(); }

} // namespace triton_py
