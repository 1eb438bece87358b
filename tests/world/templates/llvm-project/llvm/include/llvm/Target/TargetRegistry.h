#ifndef LLVM_TARGET_TARGETREGISTRY_H
#define LLVM_TARGET_TARGETREGISTRY_H

#include <string>
#include <vector>

namespace llvm {

struct Target {
  std::string name;
  std::string description;
  unsigned pointerBits;
};

/// The targets this LLVM was configured with (LLVM_TARGETS_TO_BUILD).
const std::vector<Target> &getRegisteredTargets();
const Target *lookupTarget(const std::string &name);

} // namespace llvm

#endif
