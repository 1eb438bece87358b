#ifndef TRITON_TOOLS_TEXTIR_H
#define TRITON_TOOLS_TEXTIR_H

// The IR as text. The miniature MLIR has no parser, so the miniature triton-opt reads a module the
// way the real one prints it (one op per line, attribute and location aliases around the module,
// an optional {-# ... #-} resource block) and its passes rewrite those lines.

#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace triton {
namespace text {

struct Module {
  std::string bufferName;
  std::vector<std::string> lines;  // aliases, the module op and its body, as written
  std::vector<unsigned> lineNumbers; // where each of `lines` is in the input (diagnostics)
  std::string resources;           // the body of a trailing {-# ... #-} block, if any
};

/// Reads one module from `text` (whose first line is line `firstLine` of `bufferName`). On a
/// malformed module, `error` holds "<buffer>:<line>:<col>: error: <what>" and false is returned.
bool parseModule(const std::string &text, const std::string &bufferName, unsigned firstLine, Module &out,
                 std::string &error);

/// The module as triton-opt prints it: no comments, no resources, and no locations unless
/// `debugInfo` (-mlir-print-debuginfo).
std::string printModule(const Module &module, bool debugInfo);

/// `line` without its ` loc(...)` annotations (strings are left alone).
std::string withoutLocations(const std::string &line);

/// The operation a line holds: `%9 = tt.load %8, %6 : tensor<...>` -> result "%9", name "tt.load",
/// operands "%8, %6", type "tensor<...>" (the first type after the colon). False for other lines.
struct OpLine {
  std::string indent;
  std::string result;
  std::string name;
  std::string operands;
  std::string type;
};
bool parseOpLine(const std::string &line, OpLine &op);

/// The `%name`s in an operand list, in order.
std::vector<std::string> valueNames(const std::string &operands);

/// A pass over the text of a module. `getName()` is the TableGen def's name (printed in IR dumps),
/// `getArgument()` the command-line name.
class Pass {
public:
  virtual ~Pass() = default;
  virtual std::string getName() const = 0;
  virtual std::string getArgument() const = 0;
  virtual std::string getDescription() const = 0;
  /// Sets an option given as `name=value`; false (with `error` set) when the pass has no such option.
  virtual bool setOption(const std::string &name, const std::string &value, std::string &error);
  /// Runs on the module; false (with `error` set) when the pass fails.
  virtual bool runOnModule(Module &module, std::string &error) = 0;
};

/// A pass's factory: a plain function (a lambda without captures converts to one).
using PassFactory = std::unique_ptr<Pass> (*)();
void registerPass(PassFactory factory);
/// The registered pass with this command-line name, or nullptr.
std::unique_ptr<Pass> createPass(const std::string &argument);
/// Every registered pass, sorted by command-line name.
std::vector<std::unique_ptr<Pass>> registeredPasses();

} // namespace text
} // namespace triton
} // namespace mlir

#endif
