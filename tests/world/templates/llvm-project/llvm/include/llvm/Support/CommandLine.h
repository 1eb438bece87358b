#ifndef LLVM_SUPPORT_COMMANDLINE_H
#define LLVM_SUPPORT_COMMANDLINE_H

#include <map>
#include <string>
#include <vector>

namespace llvm {
namespace cl {

/// Parsed command line: --flag, --key=value, and positional arguments.
struct ParsedArgs {
  std::map<std::string, std::string> options;
  std::vector<std::string> positional;
  bool has(const std::string &name) const { return options.count(name) != 0; }
  std::string get(const std::string &name, const std::string &fallback = "") const;
};

ParsedArgs ParseCommandLineOptions(int argc, const char *const *argv);

/// Prints "<tool> LLVM version X (revision)" the way every LLVM tool does for --version.
void PrintVersionMessage(const char *tool);

} // namespace cl
} // namespace llvm

#endif
