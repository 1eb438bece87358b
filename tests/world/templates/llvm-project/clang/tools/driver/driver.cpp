// clang driver (miniature): reports its version and targets; it does not compile.
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/Version.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetRegistry.h"

#include <string>

int main(int argc, char **argv) {
  clang::DiagnosticsEngine diags;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--version" || a == "-v") {
      llvm::outs() << clang::getClangFullVersion() << "\n";
      llvm::outs() << "Target: " << LLVM_DEFAULT_TARGET_TRIPLE << "\n";
      return 0;
    }
    if (a == "-print-targets") {
      for (const llvm::Target &t : llvm::getRegisteredTargets())
        llvm::outs() << "    " << t.name << "\n";
      return 0;
    }
    diags.error("the miniature clang only answers --version and -print-targets (got '" + a + "')");
  }
  if (argc == 1)
    diags.error("no input files");
  diags.print();
  return diags.hasErrorOccurred() ? 1 : 0;
}
