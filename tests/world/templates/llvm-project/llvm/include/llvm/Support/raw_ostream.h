#ifndef LLVM_SUPPORT_RAW_OSTREAM_H
#define LLVM_SUPPORT_RAW_OSTREAM_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace llvm {

/// A small output stream: either appends to a string or writes to a FILE.
class raw_ostream {
public:
  explicit raw_ostream(std::string &buffer) : str(&buffer), file(nullptr) {}
  explicit raw_ostream(std::FILE *f) : str(nullptr), file(f) {}

  raw_ostream &operator<<(std::string_view s);
  raw_ostream &operator<<(const char *s) { return *this << std::string_view(s); }
  raw_ostream &operator<<(const std::string &s) { return *this << std::string_view(s); }
  raw_ostream &operator<<(char c) { return *this << std::string_view(&c, 1); }
  raw_ostream &operator<<(std::int64_t v);
  raw_ostream &operator<<(int v) { return *this << static_cast<std::int64_t>(v); }
  raw_ostream &operator<<(unsigned v) { return *this << static_cast<std::int64_t>(v); }
  raw_ostream &operator<<(std::size_t v) { return *this << static_cast<std::int64_t>(v); }
  raw_ostream &indent(unsigned n);

private:
  std::string *str;
  std::FILE *file;
};

raw_ostream &outs();
raw_ostream &errs();

} // namespace llvm

#endif
