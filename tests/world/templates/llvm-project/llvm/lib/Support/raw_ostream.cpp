#include "llvm/Support/raw_ostream.h"

#include <string>

namespace llvm {

raw_ostream &raw_ostream::operator<<(std::string_view s) {
  if (str)
    str->append(s.data(), s.size());
  else
    std::fwrite(s.data(), 1, s.size(), file);
  return *this;
}

raw_ostream &raw_ostream::operator<<(std::int64_t v) { return *this << std::to_string(v); }

raw_ostream &raw_ostream::indent(unsigned n) { return *this << std::string(n, ' '); }

raw_ostream &outs() {
  static raw_ostream os(stdout);
  return os;
}

raw_ostream &errs() {
  static raw_ostream os(stderr);
  return os;
}

} // namespace llvm
