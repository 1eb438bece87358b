#include "triton/Tools/Debug.h"

#include <string>
#include <vector>

namespace llvm {

bool DebugFlag = false;

namespace {
std::vector<std::string> &currentTypes() {
  static std::vector<std::string> types;
  return types;
}
} // namespace

bool isCurrentDebugType(const char *type) {
  if (currentTypes().empty())
    return true; // -debug: every type
  for (const std::string &t : currentTypes())
    if (t == type)
      return true;
  return false;
}

void setCurrentDebugTypes(const std::vector<std::string> &types) { currentTypes() = types; }

raw_ostream &dbgs() { return errs(); }

} // namespace llvm
