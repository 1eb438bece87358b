#include "mlir/Target/LLVMIR/ModuleTranslation.h"

#include <map>

namespace mlir {

static llvm::Type toLLVMType(const std::string &type) {
  if (type.rfind("i", 0) == 0)
    return llvm::Type(llvm::Type::Int, static_cast<unsigned>(std::stoul(type.substr(1))));
  if (type == "f32")
    return llvm::Type(llvm::Type::Float, 32);
  if (type == "f16")
    return llvm::Type(llvm::Type::Float, 16);
  if (type == "!tt.ptr" || type.rfind("!tt.ptr", 0) == 0)
    return llvm::Type(llvm::Type::Pointer);
  return llvm::Type(llvm::Type::Void);
}

std::unique_ptr<llvm::Module> translateModuleToLLVMIR(Operation *module, const std::string &name) {
  auto llvmModule = std::make_unique<llvm::Module>(name);
  for (const auto &op : module->getBody()) {
    if (op->getName() != "func.func" && op->getName() != "tt.func")
      continue;
    llvm::Function &fn = llvmModule->createFunction(op->getAttr("sym_name"), llvm::Type(llvm::Type::Void), {});
    for (const auto &inner : op->getBody()) {
      std::string text;
      llvm::raw_ostream os(text);
      if (!inner->getResults().empty())
        os << "%" << static_cast<std::int64_t>(inner->getResult().id) << " = ";
      os << "call " << toLLVMType(inner->getResults().empty() ? "" : inner->getResult().type).str() << " @\""
         << inner->getName() << "\"()";
      fn.addInstruction(text);
    }
    fn.addInstruction("ret void");
  }
  return llvmModule;
}

} // namespace mlir
