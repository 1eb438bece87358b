#include "triton/Dialect/Triton/IR/Dialect.h"

namespace mlir {
namespace triton {

void loadTritonDialect(MLIRContext &ctx) {
  for (const char *dialect : {"tt", "arith", "func", "scf", "math"})
    ctx.loadDialect(dialect);
}

Operation *buildVectorAdd(OpBuilder &builder, Operation *module, const std::string &name, long blockSize) {
  builder.setInsertionPointToEnd(module);
  Operation *func = builder.create("tt.func");
  func->setAttr("sym_name", name);
  func->setAttr("noinline", "false");

  builder.setInsertionPointToEnd(func);
  std::string f32Ptr = getPointerType("f32");
  std::string tensorTy = getTensorType({blockSize}, "f32");
  Value pid = builder.create("tt.get_program_id", {}, {"i32"})->getResult();
  Value range = builder.create("tt.make_range", {}, {getTensorType({blockSize}, "i32")})->getResult();
  Value x = builder.create("tt.load", {pid, range}, {tensorTy})->getResult();
  Value y = builder.create("tt.load", {pid, range}, {tensorTy})->getResult();
  Value sum = builder.create("arith.addf", {x, y}, {tensorTy})->getResult();
  builder.create("tt.store", {range, sum});
  builder.create("tt.return");
  return func;
}

} // namespace triton
} // namespace mlir
