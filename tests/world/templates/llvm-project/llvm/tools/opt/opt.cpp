// opt: the miniature only answers --version and echoes a module it cannot optimize.
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>
#include <sstream>

using namespace llvm;

int main(int argc, char **argv) {
  cl::ParsedArgs args = cl::ParseCommandLineOptions(argc, argv);
  if (args.has("version")) {
    cl::PrintVersionMessage("opt");
    return 0;
  }
  std::stringstream ss;
  ss << std::cin.rdbuf();
  outs() << ss.str();
  return 0;
}
