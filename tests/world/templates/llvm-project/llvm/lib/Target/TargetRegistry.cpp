#include "llvm/Target/TargetRegistry.h"

#include <vector>

#define LLVM_TARGET(T) extern "C" void LLVMInitialize##T##TargetInfo(std::vector<llvm::Target> &);
#include "llvm/Config/Targets.def"

namespace llvm {

const std::vector<Target> &getRegisteredTargets() {
  static const std::vector<Target> targets = [] {
    std::vector<Target> out;
#define LLVM_TARGET(T) LLVMInitialize##T##TargetInfo(out);
#include "llvm/Config/Targets.def"
    return out;
  }();
  return targets;
}

const Target *lookupTarget(const std::string &name) {
  for (const Target &t : getRegisteredTargets())
    if (t.name == name)
      return &t;
  return nullptr;
}

} // namespace llvm
