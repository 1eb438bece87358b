#include "triton/Dialect/Triton/IR/Dialect.h"

namespace mlir {
namespace triton {

void loadTritonDialect(MLIRContext &ctx) {
  for (const char *dialect : {"tt", "arith", "func", "scf", "math"})
    ctx.loadDialect(dialect);
}

Operation *buildVectorAdd(OpBuilder &builder, Operation *module, const std::string &name, long blockSize) {
  // Since the LLVM bump every operation is created at a location.
  Location loc = Location::file(name + ".py", 1, 0);
  builder.setInsertionPointToEnd(module);
  Operation *func = builder.create(loc, "tt.func");
  func->setAttr("sym_name", name);
  func->setAttr("noinline", "false");

  builder.setInsertionPointToEnd(func);
  std::string f32Ptr = getPointerType("f32");
  std::string tensorTy = getTensorType({blockSize}, "f32");
  Value pid = builder.create(loc, "tt.get_program_id", {}, {"i32"})->getResult();
  Value range = builder.create(loc, "tt.make_range", {}, {getTensorType({blockSize}, "i32")})->getResult();
  Value x = builder.create(loc, "tt.load", {pid, range}, {tensorTy})->getResult();
  Value y = builder.create(loc, "tt.load", {pid, range}, {tensorTy})->getResult();
  Value sum = builder.create(loc, "arith.addf", {x, y}, {tensorTy})->getResult();
  builder.create(loc, "tt.store", {range, sum});
  builder.create(loc, "tt.return");
  return func;
}

} // namespace triton
} // namespace mlir
