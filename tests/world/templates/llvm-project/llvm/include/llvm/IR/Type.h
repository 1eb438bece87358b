#ifndef LLVM_IR_TYPE_H
#define LLVM_IR_TYPE_H

#include <string>

namespace llvm {

class Type {
public:
  enum Kind { Void, Int, Float, Pointer };
  Type(Kind k, unsigned bits = 0) : kind(k), bits(bits) {}
  Kind getKind() const { return kind; }
  unsigned getBitWidth() const { return bits; }
  std::string str() const;
  bool operator==(const Type &o) const { return kind == o.kind && bits == o.bits; }

private:
  Kind kind;
  unsigned bits;
};

} // namespace llvm

#endif
