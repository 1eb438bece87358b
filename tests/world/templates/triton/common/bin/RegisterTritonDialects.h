#pragma once

#include "triton/Dialect/TritonGPU/Transforms/Passes.h"

/// Every pass triton-opt knows (the real one also registers MLIR's own passes and the backends').
inline void registerTritonDialects() { mlir::triton::gpu::registerTritonGPUPasses(); }
