// mlir-translate: --mlir-to-llvmir translates a tiny textual module ("func @name" lines, each
// followed by op mnemonics) to LLVM IR; --version prints the LLVM version and revision.
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringUtils.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVMIR/ModuleTranslation.h"

#include <cstdio>
#include <string>

using namespace mlir;

int main(int argc, char **argv) {
  llvm::cl::ParsedArgs args = llvm::cl::ParseCommandLineOptions(argc, argv);
  if (args.has("version")) {
    llvm::cl::PrintVersionMessage("mlir-translate");
    return 0;
  }
  if (!args.has("mlir-to-llvmir")) {
    llvm::errs() << "mlir-translate: choose a translation, e.g. --mlir-to-llvmir\n";
    return 1;
  }
  MLIRContext ctx;
  ctx.loadDialect("func");
  ctx.loadDialect("arith");
  OpBuilder builder(&ctx);
  auto module = builder.createTopLevel("builtin.module");
  Operation *func = nullptr;
  std::string input;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, stdin)) > 0;)
    input.append(buf, n);
  for (const std::string &line : llvm::split(input, '\n')) {
    std::string_view t = llvm::trim(line);
    if (t.empty())
      continue;
    if (llvm::startsWith(t, "func @")) {
      builder.setInsertionPointToEnd(module.get());
      func = builder.create(Location::unknown(), "func.func", {}, {});
      func->setAttr("sym_name", std::string(t.substr(6)));
      builder.setInsertionPointToEnd(func);
    } else if (func) {
      builder.create(Location::unknown(), std::string(t), {}, {"i32"});
    }
  }
  std::string error;
  if (failed(verify(module.get(), &error))) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  translateModuleToLLVMIR(module.get(), "LLVMDialectModule")->print(llvm::outs());
  return 0;
}
