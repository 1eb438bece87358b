// llc: lowers a module for a target. The miniature accepts --version and -march=<target>, and
// "compiles" an empty module by printing its target-specific header.
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetRegistry.h"

using namespace llvm;

#define LLVM_STR2(x) #x
#define LLVM_STR(x) LLVM_STR2(x)
#define LLVM_NATIVE_ARCH_STR LLVM_STR(LLVM_NATIVE_ARCH)

int main(int argc, char **argv) {
  cl::ParsedArgs args = cl::ParseCommandLineOptions(argc, argv);
  if (args.has("version")) {
    cl::PrintVersionMessage("llc");
    outs() << "\n  Registered Targets:\n";
    for (const Target &t : getRegisteredTargets())
      outs() << "    " << t.name << " - " << t.description << "\n";
    return 0;
  }
  std::string march = args.get("march", LLVM_NATIVE_ARCH_STR);
  const Target *t = lookupTarget(march);
  if (!t) {
    errs() << "llc: error: unable to get target for '" << march << "', see --version and --triple.\n";
    return 1;
  }
  Module m("llc");
  m.setTargetTriple(t->name);
  outs() << "\t.text\n\t.file\t\"" << (args.positional.empty() ? "-" : args.positional[0]) << "\"\n";
  outs() << "\t; target " << t->name << ", " << t->pointerBits << "-bit pointers\n";
  return 0;
}
