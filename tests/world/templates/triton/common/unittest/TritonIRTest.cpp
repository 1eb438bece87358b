// Builds the vector-add kernel, converts it to TritonGPU and checks the result.
#include "mlir/IR/Verifier.h"
#include "triton/Conversion/TritonToTritonGPU/Passes.h"
#include "triton/Dialect/Triton/IR/Dialect.h"
#include "triton/Target/LLVMIR/Translation.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::MLIRContext ctx;
  mlir::triton::loadTritonDialect(ctx);
  mlir::OpBuilder builder(&ctx);
  auto module = builder.createTopLevel("builtin.module");
  mlir::triton::buildVectorAdd(builder, module.get(), "add_kernel", 128);
  if (mlir::failed(mlir::verify(module.get()))) {
    llvm::errs() << "FAIL: verify\n";
    return 1;
  }
  mlir::PassManager pm(&ctx);
  pm.addPass(mlir::triton::createConvertTritonToTritonGPUPass(4));
  if (mlir::failed(pm.run(module.get()))) {
    llvm::errs() << "FAIL: pass pipeline\n";
    return 1;
  }
  std::string ir = mlir::triton::translateToLLVMIR(module.get(), "nvidia");
  if (ir.find("define void @add_kernel") == std::string::npos) {
    llvm::errs() << "FAIL: no kernel in LLVM IR:\n" << ir;
    return 1;
  }
  llvm::outs() << "PASS\n";
  return 0;
}
