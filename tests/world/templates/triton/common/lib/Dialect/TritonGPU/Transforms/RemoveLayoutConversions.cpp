#include "triton/Dialect/TritonGPU/Transforms/Passes.h"
#include "triton/Tools/TextIR.h"

#define DEBUG_TYPE "tritongpu-remove-layout-conversions"
#include "triton/Tools/Debug.h"

#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace triton {
namespace gpu {

#define GEN_PASS_DEF_TRITONGPUREMOVELAYOUTCONVERSIONS
#include "triton/Dialect/TritonGPU/Transforms/Passes.h.inc"

namespace {

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '-';
}

/// `line` with every use of the value `from` replaced by `to`.
std::string replaceUses(const std::string &line, const std::string &from, const std::string &to) {
  std::string out;
  std::size_t start = 0, at;
  while ((at = line.find(from, start)) != std::string::npos) {
    std::size_t end = at + from.size();
    out += line.substr(start, at - start);
    out += (end < line.size() && isNameChar(line[end])) ? from : to;
    start = end;
  }
  return out + line.substr(start);
}

struct RemoveLayoutConversionsPass
    : public impl::TritonGPURemoveLayoutConversionsBase<RemoveLayoutConversionsPass> {
  bool runOnModule(text::Module &module, std::string &) override {
    std::map<std::string, std::string> replaced;
    std::vector<std::string> lines;
    std::vector<unsigned> numbers;
    for (std::size_t i = 0; i < module.lines.size(); ++i) {
      std::string line = module.lines[i];
      for (const auto &entry : replaced)
        line = replaceUses(line, entry.first, entry.second);
      text::OpLine op;
      if (text::parseOpLine(line, op) && op.name == "ttg.convert_layout") {
        std::string plain = text::withoutLocations(line);
        std::size_t arrow = plain.rfind(" -> ");
        std::vector<std::string> values = text::valueNames(op.operands);
        std::string to = arrow == std::string::npos ? "" : plain.substr(arrow + 4);
        while (!to.empty() && to.back() == ' ')
          to.pop_back();
        if (values.size() == 1 && to == op.type && op.result.find(',') == std::string::npos) {
          LDBG("Removing a conversion that changes nothing: " << plain.substr(op.indent.size()));
          replaced[op.result] = values[0];
          continue;
        }
        LDBG("Keeping " << plain.substr(op.indent.size()));
      }
      lines.push_back(line);
      numbers.push_back(module.lineNumbers[i]);
    }
    module.lines = lines;
    module.lineNumbers = numbers;
    return true;
  }
};

} // namespace

void registerTritonGPURemoveLayoutConversions() {
  text::registerPass(
      []() -> std::unique_ptr<text::Pass> { return std::make_unique<RemoveLayoutConversionsPass>(); });
}

} // namespace gpu
} // namespace triton
} // namespace mlir
