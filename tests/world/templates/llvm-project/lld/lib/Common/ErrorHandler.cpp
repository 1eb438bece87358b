#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

namespace lld {

static unsigned errors = 0;

void error(const std::string &msg) {
  ++errors;
  llvm::errs() << "ld.lld: error: " << msg << "\n";
}

unsigned errorCount() { return errors; }

} // namespace lld
