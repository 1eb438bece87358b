#ifndef LLVM_SUPPORT_LINKEDBUILD_H
#define LLVM_SUPPORT_LINKEDBUILD_H

// Test world only (real LLVM has no such API): what the LLVM library a program was *linked* with
// says about itself, compiled into LLVMSupport. A program built against one LLVM's headers and
// linked with another's libraries reports the headers' LLVM_REVISION but this library's answers.
namespace llvm {

const char *getLinkedRevision(); // LLVM_REVISION of the build that compiled LLVMSupport
const char *getLinkedBuildTree(); // that build's folder (CMAKE_BINARY_DIR of its configure)

} // namespace llvm

#endif
