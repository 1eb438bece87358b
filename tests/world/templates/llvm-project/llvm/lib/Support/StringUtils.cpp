#include "llvm/Support/StringUtils.h"

#include <algorithm>
#include <cctype>

namespace llvm {

std::vector<std::string> split(std::string_view s, char sep, bool keepEmpty) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(sep, start);
    if (end == std::string_view::npos)
      end = s.size();
    std::string part(s.substr(start, end - start));
    if (keepEmpty || !part.empty())
      out.push_back(std::move(part));
    start = end + 1;
  }
  return out;
}

std::string join(const std::vector<std::string> &parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i)
      out += sep;
    out += parts[i];
  }
  return out;
}

std::string_view trim(std::string_view s) {
  auto notSpace = [](char c) { return !std::isspace(static_cast<unsigned char>(c)); };
  auto b = std::find_if(s.begin(), s.end(), notSpace);
  auto e = std::find_if(s.rbegin(), s.rend(), notSpace).base();
  return b < e ? std::string_view(&*b, static_cast<std::size_t>(e - b)) : std::string_view();
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool isHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c); });
}

} // namespace llvm
