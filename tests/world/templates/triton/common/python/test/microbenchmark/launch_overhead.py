"""Launch overhead (test world: python/test/microbenchmark/launch_overhead.py, test-microbenchmark)."""
import time

import triton

start = time.perf_counter()
triton.compile_vector_add(block_size=128)
print(f"compile_vector_add: {1e3 * (time.perf_counter() - start):.2f} ms")
