# mypy: ignore-errors
"""Which ptxas the installed Triton finds by itself: its own lookup, asked in the target interpreter.

Triton 3.4 on: `triton.knobs.nvidia.ptxas` (and `.ptxas_blackwell` from 3.6); before:
`triton.backends.nvidia.compiler._path_to_binary("ptxas")` (and "ptxas-blackwell" in 3.3). Both read
TRITON_<TOOL>_PATH first and then the copy under triton/backends/nvidia/bin, and run the tool with
--version; tritondev runs this script with those variables removed, as a fresh shell has it.

Prints one JSON object: {"lookup", "tools": {name: {"path", "version"} | {"error"}}, "error"}. Stdlib only.
"""

import json
import sys


def knobs_tools():
    from triton import knobs

    nvidia = knobs.nvidia
    names = ["ptxas"] + (["ptxas_blackwell"] if hasattr(type(nvidia), "ptxas_blackwell") else [])

    def find(name):
        tool = getattr(nvidia, name)
        return str(tool.path), str(tool.version)

    return "triton.knobs.nvidia", names, find


def compiler_tools():
    from triton.backends.nvidia import compiler

    source = ""
    try:
        with open(compiler.__file__, encoding="utf-8") as handle:
            source = handle.read()
    except OSError:
        pass
    names = ["ptxas"] + (["ptxas-blackwell"] if '"ptxas-blackwell"' in source else [])

    def find(name):
        path, version = compiler._path_to_binary(name)
        return str(path), str(version)

    return "triton.backends.nvidia.compiler._path_to_binary", names, find


def main():
    out = {"lookup": None, "tools": {}, "error": None}
    try:
        import triton  # noqa: F401
    except BaseException as exc:  # a broken install can fail in any way
        out["error"] = f"import triton failed: {type(exc).__name__}: {exc}"
        print(json.dumps(out))
        return
    finder = None
    for way in (knobs_tools, compiler_tools):
        try:
            finder = way()
            break
        except (ImportError, AttributeError):
            continue
    if finder is None:
        out["error"] = "this Triton has neither triton.knobs.nvidia nor triton.backends.nvidia.compiler"
        print(json.dumps(out))
        return
    out["lookup"], names, find = finder
    for name in names:
        try:
            path, version = find(name)
            out["tools"][name] = {"path": path, "version": version}
        except BaseException as exc:
            out["tools"][name] = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
    sys.stdout.flush()
