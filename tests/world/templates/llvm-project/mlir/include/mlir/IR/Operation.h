#ifndef MLIR_IR_OPERATION_H
#define MLIR_IR_OPERATION_H

#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/MLIRContext.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {

class Operation;

/// An SSA value: the result of an operation.
struct Value {
  std::uint64_t id = 0;
  std::string type;
  Operation *owner = nullptr;
};

class Operation {
public:
  Operation(MLIRContext *ctx, std::string name, std::vector<Value> operands, std::vector<std::string> resultTypes);

  MLIRContext *getContext() const { return context; }
  const std::string &getName() const { return name; }
  std::string getDialect() const { return name.substr(0, name.find('.')); }
  const std::vector<Value> &getOperands() const { return operands; }
  const std::vector<Value> &getResults() const { return results; }
  Value getResult(unsigned i = 0) const { return results.at(i); }

  void setAttr(const std::string &key, std::string value) { attributes[key] = std::move(value); }
  const std::map<std::string, std::string> &getAttrs() const { return attributes; }
  std::string getAttr(const std::string &key) const;

  Operation *addChild(std::unique_ptr<Operation> op);
  const std::vector<std::unique_ptr<Operation>> &getBody() const { return body; }
  Operation *getParent() const { return parent; }

  template <typename Fn> void walk(Fn &&fn) {
    for (auto &child : body)
      child->walk(fn);
    fn(this);
  }

  void print(llvm::raw_ostream &os, unsigned indent = 0) const;

private:
  MLIRContext *context;
  std::string name;
  std::vector<Value> operands;
  std::vector<Value> results;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<Operation>> body;
  Operation *parent = nullptr;
};

} // namespace mlir

#endif
