// opt: the miniature only answers --version and echoes a module it cannot optimize.
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <string>

using namespace llvm;

int main(int argc, char **argv) {
  cl::ParsedArgs args = cl::ParseCommandLineOptions(argc, argv);
  if (args.has("version")) {
    cl::PrintVersionMessage("opt");
    return 0;
  }
  std::string input;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, stdin)) > 0;)
    input.append(buf, n);
  outs() << input;
  return 0;
}
