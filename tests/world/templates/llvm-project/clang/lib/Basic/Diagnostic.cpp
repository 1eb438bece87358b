#include "clang/Basic/Diagnostic.h"
#include "llvm/Support/raw_ostream.h"

namespace clang {

void DiagnosticsEngine::print() const {
  for (const std::string &e : errors)
    llvm::errs() << "clang: error: " << e << "\n";
}

} // namespace clang
