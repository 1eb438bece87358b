#ifndef LLVM_SUPPORT_STRINGUTILS_H
#define LLVM_SUPPORT_STRINGUTILS_H

#include <string>
#include <string_view>
#include <vector>

namespace llvm {

std::vector<std::string> split(std::string_view s, char sep, bool keepEmpty = false);
std::string join(const std::vector<std::string> &parts, std::string_view sep);
std::string_view trim(std::string_view s);
std::string lower(std::string_view s);
bool startsWith(std::string_view s, std::string_view prefix);
bool isHex(std::string_view s);

} // namespace llvm

#endif
