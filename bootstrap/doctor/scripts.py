"""Probe scripts that run inside the target interpreter (stdlib only, every fact guarded).

They are strings, not modules: they run under another Python (maybe older, maybe broken), and
one script gathering many facts at once keeps a full doctor run fast. Each prints one JSON
document as its last line of stdout.
"""

from __future__ import annotations

# Facts about the environment that need no import of triton, torch or jax: distributions and the
# files they own under triton/, requirements of torch, headers, versions.
ENV_PROBE = r'''
import json, os, sys, sysconfig
facts = {"errors": {}}
def guard(name, fn):
    try:
        facts[name] = fn()
    except Exception as exc:  # one broken fact must not hide the others
        facts["errors"][name] = "%s: %s" % (type(exc).__name__, exc)

def python():
    paths = sysconfig.get_paths()
    include = paths.get("include") or ""
    return {
        "executable": sys.executable,
        "version": "%d.%d.%d" % sys.version_info[:3],
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "include": include,
        "python_h": bool(include) and os.path.isfile(os.path.join(include, "Python.h")),
        "cc": sysconfig.get_config_var("CC") or "",
        "implementation": sys.implementation.name,
        "conda": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),
        "sys_path": [p for p in sys.path],
    }
guard("python", python)

def _owned(dist):
    """(files under triton/, record missing): from RECORD (or installed-files.txt) as text, which is
    far faster than dist.files for a distribution as large as torch."""
    text = dist.read_text("RECORD")
    if text is not None:
        return sum(1 for line in text.splitlines() if line.startswith("triton/")), False
    text = dist.read_text("installed-files.txt")
    if text is not None:
        base = os.path.dirname(str(dist.locate_file("")))
        count = 0
        for line in text.splitlines():
            rel = os.path.normpath(os.path.join(str(getattr(dist, "_path", "")), line.strip()))
            if os.sep + "triton" + os.sep in rel and "site-packages" in rel:
                count += 1
        return count, False
    return 0, True

def distributions():
    import importlib.metadata as md
    out = []
    seen = set()
    for dist in md.distributions():
        try:
            name = dist.metadata["Name"] or ""
        except Exception:
            name = ""
        key = name.lower().replace("_", "-")
        if not key or key in seen:
            continue
        seen.add(key)
        owns, record_missing = _owned(dist)
        direct_url = None
        try:
            text = dist.read_text("direct_url.json")
            direct_url = json.loads(text) if text else None
        except Exception:
            pass
        editable = bool(isinstance(direct_url, dict) and (direct_url.get("dir_info") or {}).get("editable"))
        top_level = (dist.read_text("top_level.txt") or "").split()
        tritonish = "triton" in top_level or key == "triton" or key.startswith(("triton-", "pytorch-triton"))
        if editable and tritonish:
            owns = max(owns, 1)  # an editable install provides triton/ through a .pth or finder
        if record_missing and tritonish:
            owns = max(owns, 1)
        location = ""
        try:
            location = str(dist.locate_file(""))
        except Exception:
            pass
        installed_at = None
        try:
            installed_at = os.path.getmtime(str(dist._path))
        except Exception:
            pass
        placeholder = False
        if owns and location:
            try:
                with open(os.path.join(location, "triton", "__init__.py"), encoding="utf-8", errors="replace") as fh:
                    placeholder = "Should never be installed" in fh.read(20000)
            except OSError:
                pass
        out.append({
            "name": name, "version": dist.version, "owns_triton_files": owns, "editable": editable,
            "record_missing": record_missing, "direct_url": direct_url, "location": location,
            "installed_at": installed_at,
            "placeholder": placeholder or (key == "pytorch-triton" and dist.version == "0.0.1"),
        })
    return out
guard("distributions", distributions)

def torch_requires():
    import importlib.metadata as md
    try:
        return md.requires("torch") or []
    except md.PackageNotFoundError:
        return None
guard("torch_requires", torch_requires)


print(json.dumps(facts))
'''

# Imports triton (in its own process: an import can hang or crash) and asks it which ptxas it
# uses for an arch, the way its compiler does. argv[1]: the arch (int) or "".
TRITON_PROBE = r'''
import json, os, sys
facts = {"errors": {}}
arch = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] else None
try:
    import triton
except BaseException as exc:
    facts["import_error"] = "%s: %s" % (type(exc).__name__, exc)
    print(json.dumps(facts))
    raise SystemExit(0)
facts["version"] = getattr(triton, "__version__", None)
facts["file"] = getattr(triton, "__file__", None)
facts["path"] = [str(p) for p in getattr(triton, "__path__", [])]

def ptxas():
    import inspect
    from triton.backends.nvidia import compiler as nv
    info = {"tools": {}, "bundled_dir": os.path.join(os.path.dirname(nv.__file__), "bin")}
    try:
        from triton import knobs
        cls = type(knobs.nvidia)
        for attr, desc in vars(cls).items():
            binary = getattr(desc, "binary", None)
            key = getattr(desc, "key", None)
            if binary and key and str(binary).startswith("ptxas"):
                entry = {"binary": binary, "env": key, "default": getattr(desc, "default_path", None)}
                try:
                    tool = getattr(knobs.nvidia, attr)
                    entry["path"], entry["version"] = tool.path, tool.version
                except Exception as exc:
                    entry["error"] = "%s: %s" % (type(exc).__name__, exc)
                info["tools"][attr] = entry
    except ImportError:
        # Before knobs.py: one ptxas, found by _path_to_binary from TRITON_PTXAS_PATH or bin/.
        entry = {"binary": "ptxas", "env": "TRITON_PTXAS_PATH",
                 "default": os.path.join(info["bundled_dir"], "ptxas")}
        try:
            entry["path"], entry["version"] = nv._path_to_binary("ptxas")
        except Exception as exc:
            entry["error"] = "%s: %s" % (type(exc).__name__, exc)
        info["tools"]["ptxas"] = entry
    chosen = None
    get = getattr(nv, "get_ptxas", None)
    if get is not None and arch is not None:
        params = inspect.signature(get).parameters
        tool = get(arch) if params else get()
        chosen = {"path": tool.path, "version": tool.version}
    elif "ptxas" in info["tools"] and "path" in info["tools"]["ptxas"]:
        chosen = {"path": info["tools"]["ptxas"]["path"], "version": info["tools"]["ptxas"]["version"]}
    if chosen is not None:
        chosen["env"] = [t["env"] for t in info["tools"].values() if t.get("path") == chosen["path"]]
    info["chosen"] = chosen
    return info

if arch is not None:
    try:
        facts["ptxas"] = ptxas()
    except Exception as exc:
        facts["errors"]["ptxas"] = "%s: %s" % (type(exc).__name__, exc)
print(json.dumps(facts))
'''

# Compiles a tiny kernel ahead of time for cuda:<arch> with the target environment's own Triton:
# this runs Triton's own ptxas choice, its PTX-version table and its LLVM's knowledge of the arch.
# Written to a file before it runs (@triton.jit needs the kernel's source). argv[1]: the arch.
COMPILE_PROBE = r'''
import inspect, json, sys, traceback
arch = int(sys.argv[1])
result = {"ok": False, "stage": "import"}
try:
    import triton
    import triton.language as tl
    from triton.compiler import ASTSource
    try:
        from triton.backends.compiler import GPUTarget
    except ImportError:
        from triton.compiler import GPUTarget

    @triton.jit
    def tritondev_doctor_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)

    result["stage"] = "compile"
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    params = inspect.signature(ASTSource.__init__).parameters
    if "constexprs" in params:  # Triton >= 3.3: constexprs appear in the signature too
        signature["BLOCK"] = "constexpr"
        src = ASTSource(tritondev_doctor_add, signature, constexprs={"BLOCK": 128})
    else:
        src = ASTSource(tritondev_doctor_add, signature, constants={"BLOCK": 128})
    compiled = triton.compile(src, target=GPUTarget("cuda", arch, 32))
    asm = getattr(compiled, "asm", {}) or {}
    result.update(ok="cubin" in asm, stage="done", stages=sorted(asm))
    if "cubin" not in asm:
        result["error"] = "no cubin produced"
except BaseException as exc:
    text = "%s: %s" % (type(exc).__name__, exc)
    result["error"] = text[-4000:]
    result["traceback"] = "".join(traceback.format_exc())[-3000:]
print(json.dumps(result))
'''

# Deep check: a tiny torch.compile (only with --deep: importing torch takes seconds).
TORCH_COMPILE_PROBE = r'''
import json
result = {"ok": False}
try:
    import torch
    device = "cuda" if torch.cuda.is_available() else "cpu"
    result["device"] = device
    def f(x, y):
        return torch.sin(x) + y * 2
    x = torch.randn(1024, device=device)
    y = torch.randn(1024, device=device)
    got = torch.compile(f)(x, y)
    result["ok"] = bool(torch.allclose(got, f(x, y), atol=1e-5))
    if not result["ok"]:
        result["error"] = "torch.compile result differs from eager"
except BaseException as exc:
    result["error"] = ("%s: %s" % (type(exc).__name__, exc))[-2000:]
print(json.dumps(result))
'''

# JAX: feature test for the Triton kernel-call FFI target in the CUDA plugin's _triton module.
JAX_PROBE = r'''
import json
facts = {}
mod = None
for name in ("jax_cuda13_plugin._triton", "jax_cuda12_plugin._triton", "jaxlib.cuda._triton"):
    try:
        import importlib
        mod = importlib.import_module(name)
        facts["module"] = name
        break
    except BaseException as exc:
        facts.setdefault("import_errors", {})[name] = ("%s: %s" % (type(exc).__name__, exc))[-300:]
if mod is not None:
    regs = getattr(mod, "registrations", None)
    if callable(regs):
        try:
            value = regs()
            names = list(value.keys()) if isinstance(value, dict) else [
                (item[0] if isinstance(item, (tuple, list)) else str(item)) for item in value]
            facts["registrations"] = [str(n) for n in names]
        except BaseException as exc:
            facts["registrations_error"] = "%s: %s" % (type(exc).__name__, exc)
    facts["attributes"] = sorted(a for a in dir(mod) if not a.startswith("_"))
print(json.dumps(facts))
'''
