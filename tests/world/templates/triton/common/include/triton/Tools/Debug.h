#ifndef TRITON_TOOLS_DEBUG_H
#define TRITON_TOOLS_DEBUG_H

// LLVM_DEBUG with the semantics of llvm/Support/Debug.h, which the miniature LLVM does not have:
// code in LLVM_DEBUG(...) runs only under -debug, or under -debug-only=<types> when the file's
// DEBUG_TYPE is one of the types, and only in a build without NDEBUG. A pass's source defines
// DEBUG_TYPE before including this header.

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace llvm {

extern bool DebugFlag; // -debug, or -debug-only=...
/// Whether LLVM_DEBUG code of this DEBUG_TYPE runs.
bool isCurrentDebugType(const char *type);
/// -debug-only=a,b: only these types.
void setCurrentDebugTypes(const std::vector<std::string> &types);
raw_ostream &dbgs();

} // namespace llvm

#ifndef NDEBUG
#define LLVM_DEBUG(X)                                                                                                  \
  do {                                                                                                                 \
    if (::llvm::DebugFlag && ::llvm::isCurrentDebugType(DEBUG_TYPE)) {                                                 \
      X;                                                                                                               \
    }                                                                                                                  \
  } while (false)
#else
// As llvm/Support/Debug.h: "When compiling without assertions, the -debug-* options and all code in
// LLVM_DEBUG() statements disappears" - a build with -DNDEBUG prints none of it.
#define LLVM_DEBUG(X)                                                                                                  \
  do {                                                                                                                 \
  } while (false)
#endif

// Triton's own shorthands (as in its passes): "[<DEBUG_TYPE>]: " before each debug line.
#define DBGS() (::llvm::dbgs() << "[" DEBUG_TYPE "]: ")
#define LDBG(X) LLVM_DEBUG(DBGS() << X << "\n")

#endif
