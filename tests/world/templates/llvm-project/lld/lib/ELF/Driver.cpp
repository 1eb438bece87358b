#include "lld/Common/Driver.h"
#include "llvm/Support/StringUtils.h"

#include <set>

namespace lld {
namespace elf {

bool link(const std::vector<std::string> &args, std::string &diagnostics) {
  static const std::set<std::string> known = {"-o", "-shared", "-L", "-l", "--gdb-index", "-O2", "--build-id"};
  for (const std::string &a : args) {
    if (llvm::startsWith(a, "-") && !known.count(a) && !llvm::startsWith(a, "-l") && !llvm::startsWith(a, "-L")) {
      diagnostics += "unknown argument '" + a + "'\n";
      return false;
    }
  }
  return true;
}

} // namespace elf

Result lldMain(const std::vector<std::string> &args) {
  std::string diag;
  if (!elf::link(args, diag)) {
    error(diag);
    return {1, diag};
  }
  return {0, ""};
}

} // namespace lld
