#include "llvm/IR/Module.h"

namespace llvm {

void Function::print(raw_ostream &os) const {
  os << "define " << ret.str() << " @" << name << "(";
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i)
      os << ", ";
    os << params[i].str() << " %" << static_cast<std::int64_t>(i);
  }
  os << ") {\n";
  for (const std::string &inst : body)
    os.indent(2) << inst << "\n";
  os << "}\n";
}

} // namespace llvm
