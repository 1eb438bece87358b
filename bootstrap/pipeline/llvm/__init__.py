"""Where LLVM/MLIR comes from: sources, prebuilt packages, kept builds; the LLVM step planned (pure) and
installed.
"""
