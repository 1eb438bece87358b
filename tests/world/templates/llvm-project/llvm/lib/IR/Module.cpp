#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace llvm {

Function &Module::createFunction(const std::string &name, Type ret, std::vector<Type> params) {
  auto [it, inserted] = functions.emplace(name, std::make_unique<Function>(name, ret, std::move(params)));
  if (!inserted)
    report_fatal_error("function redefined: " + name);
  return *it->second;
}

Function *Module::getFunction(const std::string &name) {
  auto it = functions.find(name);
  return it == functions.end() ? nullptr : it->second.get();
}

void Module::print(raw_ostream &os) const {
  os << "; ModuleID = '" << id << "'\n";
  if (!triple.empty())
    os << "target triple = \"" << triple << "\"\n";
  for (const auto &entry : functions) {
    os << "\n";
    entry.second->print(os);
  }
}

} // namespace llvm
