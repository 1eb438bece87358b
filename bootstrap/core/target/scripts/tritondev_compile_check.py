# mypy: ignore-errors
"""Compile a tiny kernel ahead of time for cuda:ARCH with the environment's own Triton; no GPU needed.

`python tritondev_compile_check.py ARCH` compiles the vector add of tritondev_samples.py. This runs
Triton's own choice of ptxas, its PTX-version table and its LLVM's knowledge of the arch: the proof
doctor's ptxas check rests on. Any failure is an answer (`ok` false, `stage`, `error`). Prints one
JSON object. tritondev_triton.py imports `answer` to compile in its own process, after its import of triton.
"""

import inspect
import json
import sys
import traceback


def key_without_hashing_libtriton(triton):
    """The proof compiles into a fresh kernel cache of its own, thrown away after it: its cache key need
    not tell this Triton from any other. Triton's triton_key() hashes the whole of libtriton for that
    (415 MB in 3.6: 0.4-0.9 s on an H100 machine, twice the compile itself). In this process only, it
    answers the version instead, wherever Triton defines or imports it (runtime/cache.py from 3.4,
    compiler/compiler.py before)."""
    version = getattr(triton, "__version__", "unknown")

    def triton_key():
        return f"tritondev-compile-proof-{version}"

    for name, module in list(sys.modules.items()):
        if (name == "triton" or name.startswith("triton.")) and callable(getattr(module, "triton_key", None)):
            module.triton_key = triton_key


def compile_for(arch, result):
    import triton
    from triton.compiler import ASTSource

    key_without_hashing_libtriton(triton)

    try:
        from triton.backends.compiler import GPUTarget
    except ImportError:
        from triton.compiler import GPUTarget
    from tritondev_samples import add_kernel  # this folder is sys.path[0]: the script runs as a file

    result["stage"] = "compile"
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    if "constexprs" in inspect.signature(ASTSource.__init__).parameters:
        signature["BLOCK"] = "constexpr"  # Triton >= 3.3: constexprs appear in the signature too
        source = ASTSource(add_kernel, signature, constexprs={"BLOCK": 128})
    else:
        source = ASTSource(add_kernel, signature, constants={"BLOCK": 128})
    compiled = triton.compile(source, target=GPUTarget("cuda", arch, 32))
    asm = getattr(compiled, "asm", {}) or {}
    result.update(ok="cubin" in asm, stage="done", stages=sorted(asm))
    if "cubin" not in asm:
        result["error"] = "no cubin produced"


def answer(arch):
    result = {"ok": False, "stage": "import"}
    try:
        compile_for(arch, result)
    except BaseException as exc:
        result["error"] = (f"{type(exc).__name__}: {exc}")[-4000:]
        result["traceback"] = traceback.format_exc()[-3000:]
    return result


if __name__ == "__main__":
    print(json.dumps(answer(int(sys.argv[1]))))
