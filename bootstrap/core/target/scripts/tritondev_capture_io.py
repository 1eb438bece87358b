# mypy: ignore-errors
"""The capture hook's records on disk: one folder per distinct launch (or failed compile) of a kernel.

Part of the capture hook (tritondev_capture.py). Layout, under the capture folder tritondev made:

    kernels/<pid>-<seq>-<name>/record.json   what was launched (or failed to compile), how, with what
    kernels/<pid>-<seq>-<name>/kernel.py     the kernel's source made standalone (tritondev_capture_source)
    kernels/<pid>-<seq>-<name>/module.py     the file the kernel was defined in (Inductor's generated module)
    kernels/<pid>-<seq>-<name>/io/<n>.in     the bytes of tensor storage n before the launch (--save-io)
    kernels/<pid>-<seq>-<name>/io/<n>.out    ... after it, where the launch changed them
    kernels/<pid>-<seq>-<name>/last-ir.<ext> the IR the failing compile stage was given
    hook-errors.txt                          what went wrong in the hook itself

A record is written before the launch (status "launching"), so a launch that kills the process is on
disk; it is written again when the launch returned. Counts of later launches are written at exit.
"""

import ctypes
import inspect
import json
import os
import sys
import time

import tritondev_capture_data as data
import tritondev_capture_source as source

FORMAT = 1
MODULE_COPY_LIMIT = 4 << 20  # bytes: the kernel's own file, copied beside its record
IR_LIMIT = 8 << 20  # characters of the failing stage's input IR kept
_SIGNATURES = {}  # interpreted kernel -> its inspect.Signature (read once, not at every launch)


class Variant:
    """One distinct launch of one compiled kernel: its record and how often it ran."""

    def __init__(self, state, name, key):
        self.id = f"{state.pid}-{state.next_seq():04d}-{_safe(name)}"
        self.folder = os.path.join(state.dir, "kernels", self.id)
        self.record = {
            "format": FORMAT,
            "id": self.id,
            "kernel": name,
            "status": "launching",
            "launches": 1,
            "autotuning": False,
            "captured_at": time.time(),
            "pid": state.pid,
        }
        self.storages = {}  # storage key -> index, for the arguments of this launch
        self.before = {}  # storage index -> bytes (--save-io)
        self.tensors = {}  # storage index -> one tensor viewing it (--save-io, until the launch returned)
        self.dirty = False

    def launched(self):
        """Another launch like the first: counted; a config first seen in a tuner's benchmark that the program
        itself now runs is the tuner's choice (the stack is looked at only while that is still open)."""
        self.record["launches"] += 1
        if self.record["autotuning"] and not data.in_autotuning(3):
            self.record["autotuning"] = False
        self.dirty = True


def _safe(name):
    kept = "".join(c if c.isalnum() or c in "_-" else "_" for c in str(name))
    return kept[:80] or "kernel"


def _write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(value, fh, indent=1, sort_keys=True, default=str)
    os.replace(tmp, path)


def _write_new(path, payload):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(
        path,
        "xb" if isinstance(payload, bytes) else "x",
        **({} if isinstance(payload, bytes) else {"encoding": "utf-8"}),
    ) as fh:
        fh.write(payload)


def save(variant):
    _write_json(os.path.join(variant.folder, "record.json"), variant.record)
    variant.dirty = False


def _origin(fn):
    """Where the kernel was defined, and whether Inductor generated it."""
    python_fn = getattr(fn, "fn", fn)
    try:
        path = inspect.getsourcefile(python_fn)
        line = inspect.getsourcelines(python_fn)[1]
    except (OSError, TypeError):
        path, line = None, None
    module = getattr(python_fn, "__module__", None)
    inductor = any(
        n in (python_fn.__globals__ if hasattr(python_fn, "__globals__") else {})
        for n in ("triton_heuristics", "triton_helpers")
    )
    return {
        "kind": "inductor" if inductor else "triton",
        "file": path,
        "line": line,
        "module": module,
        "name": getattr(python_fn, "__qualname__", None),
    }


def _write_sources(variant, fn):
    origin = _origin(fn)
    variant.record["origin"] = origin
    text, problems = source.standalone(fn)
    variant.record["source"] = {"file": "kernel.py", "problems": problems}
    _write_new(os.path.join(variant.folder, "kernel.py"), text)
    path = origin.get("file")
    if path and os.path.isfile(path) and os.path.getsize(path) <= MODULE_COPY_LIMIT:
        with open(path, encoding="utf-8", errors="replace") as fh:
            _write_new(os.path.join(variant.folder, "module.py"), fh.read())
        variant.record["module_file"] = "module.py"


def first_launch(state, variant, fn, compiled, metadata, grid, args):
    """Write the record of a launch seen for the first time, before the kernel runs."""
    record = variant.record
    record["autotuning"] = data.in_autotuning()
    record["mode"] = "gpu"
    record["versions"] = data.versions()
    record["metadata"] = data.metadata_of(metadata)
    record["grid"] = [int(g) for g in [*list(grid), 1, 1][:3]]
    record["args"] = [{"name": name, **data.describe_arg(value, variant.storages)} for name, value in args.items()]
    record["spec"], record["spec_problem"] = None, None
    if compiled is not None:
        try:
            record["spec"] = data.spec_of(*compiled)
        except data.Unsupported as exc:
            record["spec_problem"] = str(exc)
    else:
        record["spec_problem"] = "compiled in another process (its specialization was not seen)"
    if fn is not None:
        _write_sources(variant, fn)
    _prepare_io(state, variant, args)
    save(variant)
    state.local.pending = variant


def _prepare_io(state, variant, args):
    record = variant.record
    record["io"] = {"saved": state.save_io, "storages": {}}
    if not state.save_io:
        return
    torch = sys.modules.get("torch")
    for value in args.values():
        tensor = value if data.is_tensor(value) else getattr(value, "base", None)
        if not data.is_tensor(tensor):
            continue
        index = variant.storages[data.storage_key(tensor)]
        if index in variant.tensors:
            continue
        size = tensor.untyped_storage().nbytes()
        entry = {"bytes": size}
        if state.io_used + 2 * size > state.io_limit:
            entry["skipped"] = (
                f"over the --io-limit: {size} bytes, {max(state.io_limit - state.io_used, 0)} of {state.io_limit} left"
            )
        else:
            state.io_used += 2 * size
            _synchronize(torch, tensor)
            variant.before[index] = _storage_bytes(tensor)
            variant.tensors[index] = tensor
            entry["nonfinite_before"] = _nonfinite(torch, tensor)
        record["io"]["storages"][str(index)] = entry


def _synchronize(torch, tensor):
    if torch is not None and tensor.device.type == "cuda":
        torch.cuda.synchronize(tensor.device)


def _storage_bytes(tensor):
    """The whole storage's bytes, read in one copy: bytes(storage) goes through Python per byte (minutes
    for a few MiB, and the program waits)."""
    storage = tensor.untyped_storage()
    host = storage.cpu() if storage.device.type != "cpu" else storage
    size = host.nbytes()
    return ctypes.string_at(host.data_ptr(), size) if size else b""


def _nonfinite(torch, tensor):
    """How many elements of the whole storage, read as the tensor's dtype, are NaN or Inf (None: not floating)."""
    if torch is None or not tensor.dtype.is_floating_point:
        return None
    flat = tensor.new_empty(0).set_(tensor.untyped_storage())
    return int((~torch.isfinite(flat.float() if flat.element_size() < 2 else flat)).sum().item())


def finish_launch(state, variant):
    """After the first launch: wait for it (--save-io), keep what it changed, mark the record launched."""
    torch = sys.modules.get("torch")
    try:
        for tensor in variant.tensors.values():
            _synchronize(torch, tensor)
    except Exception as exc:
        crashed(state, variant, exc)
        raise
    try:
        _keep_io(variant, torch)
        variant.record["status"] = "launched"
        save(variant)
    except Exception as exc:
        from tritondev_capture import hook_error

        hook_error("finishing a launch record", exc)


def _keep_io(variant, torch):
    storages = variant.record["io"]["storages"]
    for index, tensor in variant.tensors.items():
        entry = storages[str(index)]
        before, after = variant.before[index], _storage_bytes(tensor)
        _write_new(os.path.join(variant.folder, "io", f"{index}.in"), before)
        entry["in"] = f"io/{index}.in"
        entry["changed"] = after != before
        if entry["changed"]:
            _write_new(os.path.join(variant.folder, "io", f"{index}.out"), after)
            entry["out"] = f"io/{index}.out"
            entry["nonfinite_after"] = _nonfinite(torch, tensor)
    variant.tensors.clear()
    variant.before.clear()


def crashed(state, variant, exc):
    variant.record["status"] = "crashed"
    variant.record["error"] = {"type": type(exc).__name__, "message": str(exc)[-4000:]}
    variant.tensors.clear()
    variant.before.clear()
    save(variant)


def interpreted_launch(state, fn, args, kwargs):
    """The interpreter's launch (no compile, no launch hook): bind the arguments as Triton would."""
    python_fn = fn.fn
    name = python_fn.__name__
    if not state.wanted(name):
        return None
    signature = _SIGNATURES.get(python_fn) or _SIGNATURES.setdefault(python_fn, inspect.signature(python_fn))
    params = signature.parameters
    options = {k: v for k, v in kwargs.items() if k not in params and k not in ("grid", "warmup")}
    bound = signature.bind_partial(*args, **{k: v for k, v in kwargs.items() if k in params})
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    grid = kwargs.get("grid")
    grid = grid(arguments) if callable(grid) else grid
    grid = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
    key = (name, tuple(grid), data.args_key(arguments), tuple(sorted((k, repr(v)) for k, v in options.items())))
    with state.lock:
        variant = state.variants.get(key)
        if variant is not None:
            variant.launched()
            return None
        variant = Variant(state, name, key)
        state.variants[key] = variant
    metadata = type("Metadata", (), {"name": name, **{k: v for k, v in options.items()}})()
    first_launch(state, variant, fn, None, metadata, grid, arguments)
    state.local.pending = None
    variant.record.update(
        mode="interpreter",
        spec_problem=None,
        interpreter={
            "constexprs": [p.name for p in params.values() if _is_constexpr(p)],
            "options": {k: data.json_value(v) for k, v in options.items()},
        },
    )
    save(variant)
    return variant


def _is_constexpr(param):
    annotation = param.annotation
    return "constexpr" in (annotation if isinstance(annotation, str) else getattr(annotation, "__name__", ""))


class CompileTrack:
    """One call of triton.compile: what it was given, and the stages it went through."""

    def __init__(self, src, args, kwargs):
        self.src = src
        self.target = kwargs.get("target", args[0] if args else None)
        self.options = dict(kwargs.get("options", args[1] if len(args) > 1 else None) or {})
        self.done = []
        self.running = None
        self.given = None  # the IR the running stage was given

    def entering(self, stage, module):
        self.running, self.given = stage, module

    def finished(self, stage, module):
        self.done.append(stage)
        self.running, self.given = None, module


def record_compile_failure(state, track, exc):
    src = track.src
    fn = getattr(src, "fn", None)
    if state is None or fn is None or not state.wanted(fn.__name__):
        return
    target = track.target
    if target is None:
        try:
            from triton.runtime import driver

            target = driver.active.get_current_target()
        except Exception:
            target = None
    spec = data.spec_of(src, target, track.options)
    key = (fn.__name__, json.dumps(spec, sort_keys=True, default=str))
    with state.lock:
        if key in state.failures:
            return
        state.failures.add(key)
    variant = Variant(state, fn.__name__, key)
    record = variant.record
    record.update(
        status="compile-failed",
        autotuning=data.in_autotuning(),
        mode="compile",
        versions=data.versions(),
        spec=spec,
        spec_problem=None,
        grid=None,
        args=[],
        io={"saved": False, "storages": {}},
        launches=0,
    )
    record["error"] = {
        "type": type(exc).__name__,
        "message": str(exc)[-4000:],
        "stages_done": list(track.done),
        "failed_stage": track.running or "frontend (Python AST to TTIR)",
    }
    _write_sources(variant, fn)
    _keep_failing_ir(variant, track)
    save(variant)


def _keep_failing_ir(variant, track):
    if track.running is None or track.given is None:
        return
    given = track.given
    try:
        payload = given if isinstance(given, (bytes, str)) else str(given)
    except Exception:
        return
    ext = track.done[-1] if track.done else "ttir"
    name = f"last-ir.{data_ext(ext)}"
    _write_new(os.path.join(variant.folder, name), payload[:IR_LIMIT])
    variant.record["error"]["ir_file"] = name
    variant.record["error"]["ir_note"] = (
        "the input of the failing stage as that stage left it"
        if not isinstance(given, (bytes, str))
        else "the input of the failing stage"
    )


def data_ext(stage):
    return "".join(c for c in str(stage) if c.isalnum())[:16] or "ir"


def flush(state):
    for variant in list(state.variants.values()):
        if variant.dirty:
            save(variant)
