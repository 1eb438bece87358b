#include "llvm/Support/CommandLine.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/StringUtils.h"
#include "llvm/Support/VCSRevision.h"
#include "llvm/Support/raw_ostream.h"

namespace llvm {
namespace cl {

std::string ParsedArgs::get(const std::string &name, const std::string &fallback) const {
  auto it = options.find(name);
  return it == options.end() ? fallback : it->second;
}

ParsedArgs ParseCommandLineOptions(int argc, const char *const *argv) {
  ParsedArgs args;
  bool onlyPositional = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (onlyPositional || a.size() < 2 || a[0] != '-') {
      args.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      onlyPositional = true;
      continue;
    }
    std::string body = a.substr(a[1] == '-' ? 2 : 1);
    auto eq = body.find('=');
    if (eq == std::string::npos)
      args.options[body] = "";
    else
      args.options[body.substr(0, eq)] = body.substr(eq + 1);
  }
  return args;
}

void PrintVersionMessage(const char *tool) {
  outs() << tool << " - LLVM (http://llvm.org/):\n";
  outs() << "  LLVM version " << LLVM_VERSION_STRING << "\n";
  std::string rev = LLVM_REVISION;
  if (!rev.empty())
    outs() << "  Revision: " << rev << "\n";
  outs() << "  Targets: " << LLVM_TARGETS_BUILT << "\n";
}

} // namespace cl
} // namespace llvm
