#ifndef LLVM_SUPPORT_ERROR_H
#define LLVM_SUPPORT_ERROR_H

#include <optional>
#include <string>
#include <utility>

namespace llvm {

/// Either a value or an error message.
template <typename T> class Expected {
public:
  Expected(T value) : val(std::move(value)) {}
  static Expected error(std::string message) {
    Expected e;
    e.msg = std::move(message);
    return e;
  }
  explicit operator bool() const { return val.has_value(); }
  T &operator*() { return *val; }
  T *operator->() { return &*val; }
  const std::string &message() const { return msg; }

private:
  Expected() = default;
  std::optional<T> val;
  std::string msg;
};

[[noreturn]] void report_fatal_error(const std::string &reason);

} // namespace llvm

#endif
