// The GSan device runtime (miniature): compiled to LLVM IR by the LLVM tree's clang++ at build time.
#include "GSan.h"

namespace gsan {

__device__ const char *getSourceFile(Location loc) { return loc.file == nullptr ? "<unknown>" : loc.file; }

} // namespace gsan
