#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace llvm {

void report_fatal_error(const std::string &reason) {
  errs() << "LLVM ERROR: " << reason << "\n";
  std::exit(1);
}

} // namespace llvm
