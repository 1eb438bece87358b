#include "clang/Basic/Version.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/VCSRevision.h"

namespace clang {

std::string getClangRevision() { return LLVM_REVISION; }

std::string getClangFullVersion() {
  std::string v = std::string("clang version ") + LLVM_VERSION_STRING;
  std::string repo = LLVM_REPOSITORY;
  std::string rev = LLVM_REVISION;
  if (!rev.empty())
    v += " (" + (repo.empty() ? std::string() : repo + " ") + rev + ")";
  return v;
}

} // namespace clang
