// Builtin and arith operations of the miniature MLIR: def <Name> : Op<"<mnemonic>", <operands>>;
def ModuleOp : Op<"builtin.module", 0>;
def FuncOp : Op<"func.func", 0>;
def ReturnOp : Op<"func.return", 1>;
def ConstantOp : Op<"arith.constant", 0>;
def AddIOp : Op<"arith.addi", 2>;
def MulIOp : Op<"arith.muli", 2>;
