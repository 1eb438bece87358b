#include "triton/Dialect/TritonGPU/Transforms/Passes.h"
#include "triton/Tools/TextIR.h"

#define DEBUG_TYPE "tritongpu-coalesce"
#include "triton/Tools/Debug.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace triton {
namespace gpu {

#define GEN_PASS_DEF_TRITONGPUCOALESCE
#include "triton/Dialect/TritonGPU/Transforms/Passes.h.inc"

namespace {

/// The pointer of every tt.load and tt.store of a tensor of pointers goes through a
/// ttg.convert_layout to the layout the access wants (the miniature keeps the layout it has;
/// tritongpu-remove-layout-conversions then removes the conversions that change nothing).
struct CoalescePass : public impl::TritonGPUCoalesceBase<CoalescePass> {
  bool runOnModule(text::Module &module, std::string &) override {
    std::vector<std::string> lines;
    std::vector<unsigned> numbers;
    unsigned converted = 0;
    for (std::size_t i = 0; i < module.lines.size(); ++i) {
      std::string line = module.lines[i];
      text::OpLine op;
      if (text::parseOpLine(line, op) && (op.name == "tt.load" || op.name == "tt.store")) {
        std::vector<std::string> values = text::valueNames(op.operands);
        LDBG("Considering op: " << text::withoutLocations(line).substr(op.indent.size()));
        std::string use = op.name + " " + (values.empty() ? "" : values[0]);
        std::size_t at = line.find(use);
        if (values.empty() || op.type.rfind("tensor<", 0) != 0 || at == std::string::npos) {
          LDBG("  not a tensor of pointers: left as it is");
        } else {
          std::string name = "%coalesced" + std::to_string(converted++);
          LDBG("  converting " << values[0] << " to a coalesced layout as " << name);
          lines.push_back(op.indent + name + " = ttg.convert_layout " + values[0] + " : " + op.type + " -> " +
                          op.type);
          numbers.push_back(module.lineNumbers[i]);
          line.replace(at, use.size(), op.name + " " + name);
        }
      }
      lines.push_back(line);
      numbers.push_back(module.lineNumbers[i]);
    }
    LDBG("coalesced " << converted << " memory access(es)");
    module.lines = lines;
    module.lineNumbers = numbers;
    return true;
  }
};

} // namespace

void registerTritonGPUCoalesce() {
  text::registerPass([]() -> std::unique_ptr<text::Pass> { return std::make_unique<CoalescePass>(); });
}

} // namespace gpu
} // namespace triton
} // namespace mlir
