// The IR half of the bindings: build a kernel, run the TritonGPU conversion, print it.
#include "ir.h"

#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Verifier.h"
#include "triton/Conversion/TritonToTritonGPU/Passes.h"
#include "triton/Dialect/Triton/IR/Dialect.h"
#include "triton/Target/LLVMIR/Translation.h"

namespace triton_py {

CompileResult compileVectorAdd(long blockSize, int numWarps, const std::string &target) {
  CompileResult out;
  mlir::MLIRContext ctx;
  mlir::triton::loadTritonDialect(ctx);
  mlir::OpBuilder builder(&ctx);
  auto module = builder.createTopLevel("builtin.module");
  mlir::triton::buildVectorAdd(builder, module.get(), "add_kernel", blockSize);

  std::string error;
  if (mlir::failed(mlir::verify(module.get(), &error))) {
    out.error = "invalid IR: " + error;
    return out;
  }
  llvm::raw_ostream ttir(out.ttir);
  module->print(ttir);

  mlir::PassManager pm(&ctx);
  pm.addPass(mlir::triton::createConvertTritonToTritonGPUPass(numWarps));
  if (mlir::failed(pm.run(module.get()))) {
    out.error = "the TritonGPU conversion failed";
    return out;
  }
  llvm::raw_ostream ttgir(out.ttgir);
  module->print(ttgir);
  out.llir = mlir::triton::translateToLLVMIR(module.get(), target);
  out.ok = true;
  return out;
}

} // namespace triton_py
