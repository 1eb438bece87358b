# mypy: ignore-errors
"""Ahead-of-time compile one @triton.jit kernel for several targets; no GPU needed.

Runs in the target interpreter: `python tritondev_aot.py REQUEST.json`. Writes every stage Triton
produces into <out>/<backend>-<arch>/ and reports each target as an event (tritondev_protocol).
Works with Triton releases whose ASTSource takes `constexprs=` (3.3+) or `constants=` (3.2).
The request's types and values are paired with the kernel's arguments by tritondev_aot_arguments.py.
"""

import importlib.util
import inspect
import json
import os
import shutil
import sys
import warnings

from tritondev_aot_arguments import choose_config, describe_config, from_positional, match_arguments
from tritondev_protocol import EXIT_FAILED, EXIT_MISSING, EXIT_USAGE, emit, error_tail, fail, import_triton

MARKER_FILE = ".tritondev-compile"


def load_module(path):
    folder = os.path.dirname(os.path.abspath(path))
    # The kernel's own folder first, as when its author runs it, so sibling imports work.
    sys.path.insert(0, folder)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else "_tritondev_kernel_module"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:
        # The file ran its script part at import: its own exit, not the compiler's.
        fail(
            "usage",
            f"{path} called sys.exit({exc.code!r}) while tritondev imported it to find the kernel",
            EXIT_USAGE,
            fix='put the file\'s script part under `if __name__ == "__main__":` so that importing '
            "it only defines the kernels",
        )
    except ModuleNotFoundError as exc:
        fail(
            "missing",
            f"{path} imports {exc.name}, which is not installed in this environment",
            EXIT_MISSING,
            module=exc.name,
        )
    except Exception as exc:
        fail("usage", f"{path} failed to import: {type(exc).__name__}: {exc}", EXIT_USAGE, tail=error_tail(exc))
    return module


def shown_warnings(caught, triton_dir):
    """The warnings worth showing, as text: Triton's own (its deprecations change the code being
    inspected, e.g. FP fusion and FMAs) and any Python would show by default."""
    quiet = (DeprecationWarning, PendingDeprecationWarning, ImportWarning)
    shown = []
    for w in caught:
        ours = os.path.abspath(str(w.filename)).startswith(triton_dir)
        text = f"{w.category.__name__}: {w.message}"
        if (ours or not issubclass(w.category, quiet)) and text not in shown:
            shown.append(text)
    return shown


def recording():
    """Catch every warning (Python hides deprecations outside __main__) to report it, not print it."""
    context = warnings.catch_warnings(record=True)
    caught = context.__enter__()
    warnings.simplefilter("always")
    return context, caught


def unwrap(obj):
    """The JITFunction under @triton.autotune / @triton.heuristics wrappers (they keep it in .fn)."""
    from triton.runtime.jit import JITFunction

    seen = 0
    while not isinstance(obj, JITFunction) and hasattr(obj, "fn") and seen < 8:
        obj, seen = obj.fn, seen + 1
    return obj if isinstance(obj, JITFunction) else None


def autotune_configs(obj):
    """The configs of the @triton.autotune wrapper around a kernel, or None when it has none."""
    seen = 0
    while obj is not None and seen < 8:
        configs = getattr(obj, "configs", None)
        if isinstance(configs, list) and configs and hasattr(configs[0], "kwargs"):
            return configs
        obj, seen = getattr(obj, "fn", None), seen + 1
    return None


def find_kernel(module, path, kernel):
    kernels = sorted(name for name, value in vars(module).items() if unwrap(value) is not None)
    found = getattr(module, kernel, None)
    listing = ", ".join(kernels) if kernels else "none"
    if found is None:
        fail(
            "usage",
            f"{path} has no kernel named {kernel!r} (its @triton.jit kernels: {listing})",
            EXIT_USAGE,
            kernels=kernels,
        )
    fn = unwrap(found)
    if fn is None:
        fail(
            "usage",
            f"{kernel!r} in {path} is not a @triton.jit kernel (its kernels: {listing})",
            EXIT_USAGE,
            kernels=kernels,
        )
    return fn, autotune_configs(found)


def make_source(triton, fn, plan):
    from triton.compiler import ASTSource

    accepted = inspect.signature(ASTSource.__init__).parameters
    hinted = {i: hint for i, _, _, _, hint in plan if hint}
    if "constexprs" in accepted:
        # Triton 3.3+: every argument is in the signature, constexprs typed "constexpr".
        signature = {name: ty for _, name, ty, _, _ in plan}
        values = {name: value for _, name, ty, value, _ in plan if ty == "constexpr"}
        attrs = {(i,): [["tt.divisibility", hint]] for i, hint in hinted.items()}
        return ASTSource(fn, signature=signature, constexprs=values, attrs=attrs)
    if "constants" in accepted:
        # Triton 3.2: constants are left out of the signature; hints go through AttrsDescriptor.
        from triton.backends.compiler import AttrsDescriptor

        signature = {name: ty for _, name, ty, _, _ in plan if ty != "constexpr"}
        values = {name: value for _, name, ty, value, _ in plan if ty == "constexpr"}
        attrs = AttrsDescriptor.from_hints(hinted)
        return ASTSource(fn, signature=signature, constants=values, attrs=attrs)
    fail(
        "unsupported",
        f"this Triton's ASTSource takes ({', '.join(accepted)}); tritondev knows constexprs= and constants=",
        EXIT_USAGE,
    )


def json_safe(value):
    if hasattr(value, "_asdict"):
        return {k: json_safe(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "__dataclass_fields__"):
        return {k: json_safe(getattr(value, k)) for k in value.__dataclass_fields__}
    return str(value)


def write_target(out, folder, kernel, compiled):
    """All stages into a fresh folder, then swapped in whole: never a half-written target folder."""
    created_out = not os.path.isdir(out)
    os.makedirs(out, exist_ok=True)
    final = os.path.join(out, folder)
    tmp = os.path.join(out, f".{folder}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        return _fill_and_swap(out, folder, final, tmp, kernel, compiled)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if created_out:
            try:
                os.rmdir(out)  # only when empty: another target's folder may already be in it
            except OSError:
                pass
        raise


def _fill_and_swap(out, folder, final, tmp, kernel, compiled):
    files = {}
    for ext, data in compiled.asm.items():
        if ext == "source":
            continue
        name = f"{kernel}.{ext}"
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(os.path.join(tmp, name), mode) as fh:
            fh.write(data)
        files[ext] = os.path.join(final, name)
    metadata = json_safe(compiled.metadata)
    with open(os.path.join(tmp, "metadata.json"), "w") as fh:
        json.dump(metadata, fh, indent=2, sort_keys=True)
    files["metadata"] = os.path.join(final, "metadata.json")
    with open(os.path.join(tmp, MARKER_FILE), "w") as fh:
        fh.write("written by tritondev compile; this folder is replaced as a whole on the next compile\n")
    old = None
    if os.path.isdir(final):
        old = os.path.join(out, f".{folder}.old-{os.getpid()}")
        os.rename(final, old)
    os.rename(tmp, final)
    if old:
        shutil.rmtree(old, ignore_errors=True)
    return files, metadata


def import_gpu_target(triton):
    """Triton's GPUTarget: a Triton without its backends stops here, before anything is compiled."""
    try:
        from triton.backends.compiler import GPUTarget
    except ImportError as exc:
        # A triton/ folder without its backends: a half-removed or foreign install, not a Triton that compiles.
        fail(
            "broken",
            f"triton at {os.path.dirname(triton.__file__)} is incomplete: {exc}",
            EXIT_FAILED,
            module="triton",
            tail=error_tail(exc),
        )
    return GPUTarget


def plan_from_request(fn, configs, request):
    """The compile plan and the options the request asks for: its autotune config (if it chose one) under
    the user's own values, and upstream's positional --signature (if given) read as named entries."""
    constexprs = request["constexprs"]
    options = {k: v for k, v in request.get("options", {}).items() if v is not None}
    if request.get("config") is not None:
        constexprs, options = choose_config(fn, configs, request["config"], constexprs, options)
    params = request["params"]
    if request.get("positional"):
        params, constexprs = from_positional(fn, request["positional"], constexprs)
    return match_arguments(fn, params, constexprs, configs), options


def compile_target(triton, gpu_target, source, options, target, name, out, triton_dir):
    """One target compiled and its stages written, reported as a `target` event; a compile error is that
    target's failure, and the next target is still compiled."""
    label = target["label"]
    context, caught = recording()
    try:
        compiled = triton.compile(
            source, target=gpu_target(target["backend"], target["arch"], target["warp_size"]), options=options
        )
    except Exception as exc:
        emit(
            "target",
            label=label,
            ok=False,
            error=f"{type(exc).__name__}",
            tail=error_tail(exc),
            warnings=shown_warnings(caught, triton_dir),
        )
        return
    finally:
        context.__exit__(None, None, None)
    try:
        files, metadata = write_target(out, target["folder"], name, compiled)
    except OSError as exc:
        # A full disk or an unwritable --out: nothing half-written stays behind (write_target's tmp folder).
        fail(
            "write",
            f"cannot write the stages into {out}: {exc.strerror}" + (f" ({exc.filename})" if exc.filename else ""),
            EXIT_FAILED,
        )
    emit(
        "target",
        label=label,
        ok=True,
        name=metadata.get("name", name),
        files=files,
        metadata=metadata,
        warnings=shown_warnings(caught, triton_dir),
    )


def main():
    with open(sys.argv[1], encoding="utf-8") as fh:
        request = json.load(fh)
    triton = import_triton()
    gpu_target = import_gpu_target(triton)

    triton_dir = os.path.dirname(os.path.abspath(triton.__file__))
    tools = os.path.join(triton_dir, "backends", "nvidia", "bin")
    emit("hello", triton_version=triton.__version__, triton_file=triton.__file__, nvidia_bin=tools)
    context, caught = recording()
    module = load_module(request["source"])
    context.__exit__(None, None, None)
    emit("loaded", warnings=shown_warnings(caught, triton_dir))  # the user's file is in; what dies now is Triton
    fn, configs = find_kernel(module, request["source"], request["kernel"])
    plan, options = plan_from_request(fn, configs, request)
    source = make_source(triton, fn, plan)
    name = fn.__name__
    emit(
        "kernel",
        name=name,
        configs=[describe_config(i, c) for i, c in enumerate(configs or [])],
        config=request.get("config"),
        options=options,
    )
    for target in request["targets"]:
        compile_target(triton, gpu_target, source, options, target, name, request["out"], triton_dir)
    emit("done")


if __name__ == "__main__":
    main()
