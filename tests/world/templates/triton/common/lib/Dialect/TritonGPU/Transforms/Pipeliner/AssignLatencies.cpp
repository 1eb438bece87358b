#include "triton/Dialect/TritonGPU/Transforms/Passes.h"
#include "triton/Tools/TextIR.h"

#define DEBUG_TYPE "triton-loop-pipeline"
#include "triton/Tools/Debug.h"

#include <cstdlib>
#include <memory>
#include <string>

namespace mlir {
namespace triton {
namespace gpu {

#define GEN_PASS_DEF_TRITONGPUASSIGNLATENCIES
#include "triton/Dialect/TritonGPU/Transforms/Passes.h.inc"

namespace {

int braceBalance(const std::string &line) {
  int balance = 0;
  for (char c : text::withoutLocations(line))
    balance += c == '{' ? 1 : c == '}' ? -1 : 0;
  return balance;
}

/// Every tt.load inside an scf.for gets `tt.latency = num-stages - 1`: the loop iterations its
/// value may arrive later, which the pipeliner turns into stages.
struct AssignLatenciesPass : public impl::TritonGPUAssignLatenciesBase<AssignLatenciesPass> {
  int numStages = 3;

  bool setOption(const std::string &name, const std::string &value, std::string &error) override {
    if (name != "num-stages")
      return impl::TritonGPUAssignLatenciesBase<AssignLatenciesPass>::setOption(name, value, error);
    char *end = nullptr;
    long parsed = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || parsed < 1) {
      error = "invalid argument '" + value + "' to option 'num-stages'";
      return false;
    }
    numStages = static_cast<int>(parsed);
    return true;
  }

  bool runOnModule(text::Module &module, std::string &) override {
    int loopDepth = 0, depth = 0, loops = 0, loads = 0;
    for (std::string &line : module.lines) {
      text::OpLine op;
      bool parsed = text::parseOpLine(line, op);
      if (parsed && op.name == "scf.for") {
        ++loops;
        LDBG("Loop found: " << text::withoutLocations(line).substr(op.indent.size()));
        if (loopDepth == 0)
          loopDepth = depth + 1;
      }
      if (parsed && op.name == "tt.load" && loopDepth != 0) {
        std::size_t colon = line.find(" : ", line.find("tt.load"));
        if (colon != std::string::npos) {
          line.insert(colon, " {tt.latency = " + std::to_string(numStages - 1) + " : i32}");
          ++loads;
          LDBG("Load in a loop gets latency " << (numStages - 1) << ": " << op.result);
        }
      }
      depth += braceBalance(line);
      if (loopDepth != 0 && depth < loopDepth)
        loopDepth = 0;
    }
    if (loops == 0)
      LDBG("No loop to pipeline");
    LDBG("Assigned latencies to " << loads << " load(s) in " << loops << " loop(s) for " << numStages
                                  << " stage(s)");
    return true;
  }
};

} // namespace

void registerTritonGPUAssignLatencies() {
  text::registerPass([]() -> std::unique_ptr<text::Pass> { return std::make_unique<AssignLatenciesPass>(); });
}

} // namespace gpu
} // namespace triton
} // namespace mlir
