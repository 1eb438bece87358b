#ifndef CLANG_BASIC_DIAGNOSTIC_H
#define CLANG_BASIC_DIAGNOSTIC_H

#include <string>
#include <vector>

namespace clang {

class DiagnosticsEngine {
public:
  void error(std::string msg) { errors.push_back(std::move(msg)); }
  bool hasErrorOccurred() const { return !errors.empty(); }
  void print() const;

private:
  std::vector<std::string> errors;
};

} // namespace clang

#endif
