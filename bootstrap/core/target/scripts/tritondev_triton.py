# mypy: ignore-errors
"""Where `import triton` resolves, its version, and (given an arch) which ptxas Triton uses for it.

`python tritondev_triton.py [ARCH [CACHE_DIR]]`. The import runs in this process of its own because
it can hang or crash; a failing import is an answer (`import_error`), not an error. With ARCH (an int
such as 90), Triton is asked for its ptxas the way its compiler asks. With CACHE_DIR too, this same
process then proves that Triton compiles for ARCH (tritondev_compile_check.py's kernel, into that
fresh cache: `compile`), saving doctor a second start and import, unless the `triton` imported is one
from the current folder (`compile_skipped`): the proof is about the installed Triton, and a separate
run from a folder of its own gives it then. Stdlib only apart from triton. Prints one JSON object.
"""

import inspect
import json
import os
import sys

facts = {"errors": {}}
arch = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] else None
compile_cache = sys.argv[2] if len(sys.argv) > 2 and arch is not None else None


def describe_error(exc):
    return f"{type(exc).__name__}: {exc}"


def knob_tools(nvidia):
    """The ptxas tools of Triton's knobs (Triton >= 3.4: ptxas, ptxas-blackwell, ...)."""
    from triton import knobs

    tools = {}
    for attr, desc in vars(type(knobs.nvidia)).items():
        binary = getattr(desc, "binary", None)
        key = getattr(desc, "key", None)
        if binary and key and str(binary).startswith("ptxas"):
            entry = {"binary": binary, "env": key, "default": getattr(desc, "default_path", None)}
            try:
                tool = getattr(knobs.nvidia, attr)
                entry["path"], entry["version"] = tool.path, tool.version
            except Exception as exc:
                entry["error"] = describe_error(exc)
            tools[attr] = entry
    return tools


def legacy_tool(nvidia, bundled_dir):
    """Before knobs.py: _path_to_binary(binary) reads TRITON_{binary.upper()}_PATH, else bin/<binary>.
    3.3 also has ptxas-blackwell, whose variable is then TRITON_PTXAS-BLACKWELL_PATH (with the hyphen)."""
    tools = {}
    for binary in ("ptxas", "ptxas-blackwell"):
        env = f"TRITON_{binary.upper()}_PATH"
        default = os.path.join(bundled_dir, binary)
        if binary != "ptxas" and not os.path.exists(default) and env not in os.environ:
            continue
        entry = {"binary": binary, "env": env, "default": default}
        try:
            entry["path"], entry["version"] = nvidia._path_to_binary(binary)
        except Exception as exc:
            entry["error"] = describe_error(exc)
        tools[binary.replace("-", "_")] = entry
    return tools


def as_tool(tool):
    """get_ptxas's answer: a knobs.NvidiaTool (3.4 on), or _path_to_binary's (path, version) (3.3)."""
    if isinstance(tool, tuple):
        return {"path": tool[0], "version": tool[1]}
    return {"path": tool.path, "version": tool.version}


def ptxas():
    from triton.backends.nvidia import compiler as nvidia

    bundled_dir = os.path.join(os.path.dirname(nvidia.__file__), "bin")
    try:
        tools = knob_tools(nvidia)
    except ImportError:
        tools = legacy_tool(nvidia, bundled_dir)
    chosen = None
    get = getattr(nvidia, "get_ptxas", None)
    if get is not None:
        chosen = as_tool(get(arch) if inspect.signature(get).parameters else get())
    elif "path" in tools.get("ptxas", {}):
        chosen = {"path": tools["ptxas"]["path"], "version": tools["ptxas"]["version"]}
    if chosen is not None:
        chosen["env"] = [t["env"] for t in tools.values() if t.get("path") == chosen["path"]]
    return {"tools": tools, "bundled_dir": bundled_dir, "chosen": chosen}


def main():
    try:
        import triton
    except BaseException as exc:
        facts["import_error"] = describe_error(exc)
        return
    facts["version"] = getattr(triton, "__version__", None)
    facts["file"] = getattr(triton, "__file__", None)
    facts["path"] = [str(p) for p in getattr(triton, "__path__", None) or []]
    if arch is not None:
        try:
            facts["ptxas"] = ptxas()
        except Exception as exc:
            facts["errors"]["ptxas"] = describe_error(exc)
    if compile_cache is not None:
        compile_here(triton)


def compile_here(triton):
    """The compile proof in this process, as tritondev_compile_check.py gives it from a folder of its own:
    a fresh kernel cache, TRITON_ALWAYS_COMPILE unset, the current folder no longer first on sys.path."""
    here = os.path.realpath(os.getcwd())
    location = os.path.realpath(getattr(triton, "__file__", None) or here)
    if location == here or location.startswith(here + os.sep):
        facts["compile_skipped"] = f"triton imports from the current folder ({location})"
        return
    scripts = os.path.dirname(os.path.abspath(sys.argv[0]))
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and os.path.realpath(p) != here] + [scripts]
    os.environ["TRITON_CACHE_DIR"] = compile_cache
    os.environ.pop("TRITON_ALWAYS_COMPILE", None)
    from tritondev_compile_check import answer

    facts["compile"] = answer(arch)


main()
print(json.dumps(facts))
