#ifndef CLANG_BASIC_VERSION_H
#define CLANG_BASIC_VERSION_H

#include <string>

namespace clang {

/// "clang version 19.1.0git (<repository> <revision>)"
std::string getClangFullVersion();
std::string getClangRevision();

} // namespace clang

#endif
