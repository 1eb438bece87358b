#include "llvm/Support/LinkedBuild.h"

#include "llvm/Support/LinkedBuildTree.inc"
#include "llvm/Support/VCSRevision.h"

namespace llvm {

const char *getLinkedRevision() { return LLVM_REVISION; }
const char *getLinkedBuildTree() { return LLVM_LINKED_BUILD_TREE; }

} // namespace llvm
