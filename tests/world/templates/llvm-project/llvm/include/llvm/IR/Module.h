#ifndef LLVM_IR_MODULE_H
#define LLVM_IR_MODULE_H

#include "llvm/IR/Type.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llvm {

class Function {
public:
  Function(std::string name, Type ret, std::vector<Type> params)
      : name(std::move(name)), ret(ret), params(std::move(params)) {}
  const std::string &getName() const { return name; }
  const Type &getReturnType() const { return ret; }
  const std::vector<Type> &getParams() const { return params; }
  void addInstruction(std::string text) { body.push_back(std::move(text)); }
  void print(raw_ostream &os) const;

private:
  std::string name;
  Type ret;
  std::vector<Type> params;
  std::vector<std::string> body;
};

class Module {
public:
  explicit Module(std::string id) : id(std::move(id)) {}
  Function &createFunction(const std::string &name, Type ret, std::vector<Type> params);
  Function *getFunction(const std::string &name);
  void setTargetTriple(std::string t) { triple = std::move(t); }
  const std::string &getTargetTriple() const { return triple; }
  void print(raw_ostream &os) const;
  std::size_t size() const { return functions.size(); }

private:
  std::string id;
  std::string triple;
  std::map<std::string, std::unique_ptr<Function>> functions;
};

} // namespace llvm

#endif
