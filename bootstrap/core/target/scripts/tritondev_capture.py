# mypy: ignore-errors
"""The capture hook of `tritondev repro capture`: records each distinct Triton kernel launch, and each failed
compile, of the program it is loaded into.

Started by tritondev_capture_site.py (the sitecustomize.py of the captured command); configured by the
variable TRITONDEV_CAPTURE (JSON: dir, kernel glob, save_io, io_limit). Stdlib only until the program
imports triton; then, right after `triton/__init__.py` ran:

- launches: Triton's own launch hooks (knobs.runtime.launch_enter_hook/launch_exit_hook from 3.4, a
  HookChain from 3.6; CompiledKernel.launch_enter_hook in 3.0-3.3), which hand each hook the launch's
  LazyDict; its values come from the kernel's `launch_metadata` function (JITFunction(launch_metadata=),
  the mechanism Proton uses), which every JITFunction made from then on gets: it receives the grid, the
  compiled kernel's metadata and the launch's arguments by name. Inductor's launcher calls the same
  `bin.launch_metadata(...)` when a launch hook is installed;
- specialization: `triton.compile` is wrapped (every compile goes through it: JITFunction.run, Inductor's
  CachingAutotuner, ahead-of-time compiles), so the ASTSource (signature, constexprs, attrs), target and
  options of each compiled kernel are known by its hash. Triton's compilation listener
  (knobs.compilation.listener) reports only successes, and only from 3.4: a failed compile is seen here;
- the last IR stage reached: each backend's stages (add_stages) are wrapped to note the stage running;
- the interpreter (TRITON_INTERPRET=1) calls no launch hook: InterpretedFunction.run is wrapped.

Nothing of the hook may break the program: its own failures go to <dir>/hook-errors.txt.
"""

import atexit
import fnmatch
import importlib.abc
import importlib.util
import json
import os
import sys
import threading

import tritondev_capture_data as data
import tritondev_capture_io as io_

_state = None
_compile_local = threading.local()  # .track: the compile running on this thread


class _State:
    def __init__(self, config):
        self.dir = config["dir"]
        self.kernel_glob = config.get("kernel") or None
        self.save_io = bool(config.get("save_io"))
        self.io_limit = int(config.get("io_limit") or 0)
        self.io_used = 0
        self.pid = os.getpid()
        self.seq = 0
        self.variants = {}  # launch key -> Variant
        self.compiles = {}  # kernel hash -> (ASTSource, target, options)
        self.failures = set()
        self.lock = threading.RLock()
        self.local = threading.local()  # .pending: the variant whose first launch is under way

    def next_seq(self):
        with self.lock:
            self.seq += 1
            return self.seq

    def wanted(self, name):
        return self.kernel_glob is None or fnmatch.fnmatchcase(name, self.kernel_glob)


def install():
    global _state
    config = json.loads(os.environ.get("TRITONDEV_CAPTURE") or "null")
    if not isinstance(config, dict) or not config.get("dir"):
        return
    _state = _State(config)
    finder = _AfterImport({"triton": _on_triton, "triton.runtime.interpreter": _on_interpreter})
    sys.meta_path.insert(0, finder)
    for name in list(finder.actions):
        if name in sys.modules:
            finder.run(name, sys.modules[name])
    atexit.register(_at_exit)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_forked)


def _forked():
    """A child process records into files of its own: its variants start empty."""
    if _state is not None:
        _state.pid, _state.seq, _state.variants = os.getpid(), 0, {}
        _state.lock = threading.RLock()


def hook_error(where, exc):
    try:
        with open(os.path.join(_state.dir, "hook-errors.txt"), "a", encoding="utf-8") as fh:
            fh.write(f"pid {os.getpid()}: {where}: {type(exc).__name__}: {exc}\n")
    except Exception:
        pass


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs an action on a module right after its own code ran (before anyone else uses it)."""

    def __init__(self, actions):
        self.actions = dict(actions)
        self.busy = set()

    def find_spec(self, name, path=None, target=None):
        if name not in self.actions or name in self.busy:
            return None
        self.busy.add(name)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy.discard(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original = spec.loader.exec_module

        def exec_module(module):
            original(module)
            self.run(name, module)

        spec.loader.exec_module = exec_module
        return spec

    def run(self, name, module):
        action = self.actions.pop(name, None)
        if action is not None:
            try:
                action(module)
            except Exception as exc:
                hook_error(f"installing on {name}", exc)


def _on_triton(triton):
    _install_launch_hooks(triton)
    _give_every_kernel_launch_metadata()
    _wrap_compile(triton)
    _track_stages(triton)
    interpreter = sys.modules.get("triton.runtime.interpreter")
    if interpreter is not None:
        _on_interpreter(interpreter)


def _install_launch_hooks(triton):
    knobs = getattr(triton, "knobs", None)
    runtime = getattr(knobs, "runtime", None)
    if runtime is not None and hasattr(runtime, "launch_enter_hook"):
        holder = runtime  # Triton 3.4+: knobs.runtime (a HookChain from 3.6)
    else:
        from triton.compiler.compiler import CompiledKernel

        holder = CompiledKernel  # Triton 3.0-3.3: class attributes
    for attr, ours in (("launch_enter_hook", _enter), ("launch_exit_hook", _exit)):
        current = getattr(holder, attr, None)
        if hasattr(current, "add"):
            current.add(ours)
        elif current is None:
            setattr(holder, attr, ours)
        else:
            setattr(holder, attr, _chain(current, ours))


def _chain(first, second):
    def both(metadata):
        first(metadata)
        second(metadata)

    return both


def _give_every_kernel_launch_metadata():
    from triton.runtime.jit import JITFunction

    original = JITFunction.__init__
    if getattr(original, "_tritondev", False):
        return

    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        theirs = getattr(self, "launch_metadata", None)
        self.launch_metadata = _launch_metadata if theirs is None else _chained_metadata(theirs)

    __init__._tritondev = True
    JITFunction.__init__ = __init__


def _chained_metadata(theirs):
    def both(grid, metadata, args):
        _launch_metadata(grid, metadata, args)
        return theirs(grid, metadata, args)

    return both


def _enter(lazy):
    if lazy is not None and hasattr(lazy, "get"):
        try:
            lazy.get()  # runs _launch_metadata (and a user's own) with the grid, metadata and arguments
        except Exception as exc:
            hook_error("launch enter hook", exc)


def _exit(_lazy):
    pending = getattr(_state.local, "pending", None) if _state is not None else None
    if pending is not None:
        _state.local.pending = None
        io_.finish_launch(_state, pending)  # synchronizes; a kernel that crashed raises here, as it would later


def _launch_metadata(grid, metadata, args):
    try:
        _record_launch(grid, metadata, args)
    except Exception as exc:
        hook_error("recording a launch", exc)
    return {}


def _record_launch(grid, metadata, args):
    name = getattr(metadata, "name", None) or "kernel"
    if _state is None or not _state.wanted(name):
        return
    if not isinstance(args, dict):
        return
    kernel_hash = getattr(metadata, "hash", None)
    key = (kernel_hash, tuple(grid), data.args_key(args))
    with _state.lock:
        variant = _state.variants.get(key)
        if variant is not None:
            variant.launched()
            return
        compiled = _state.compiles.get(kernel_hash)
        variant = io_.Variant(_state, name, key)
        _state.variants[key] = variant
    fn = compiled[0].fn if compiled else None
    io_.first_launch(_state, variant, fn, compiled, metadata, grid, args)


def _wrap_compile(triton):
    import triton.compiler.compiler as compiler_module

    original = compiler_module.compile
    if getattr(original, "_tritondev", False):
        return

    def compile(src, *args, **kwargs):
        track = io_.CompileTrack(src, args, kwargs)
        previous = getattr(_compile_local, "track", None)
        _compile_local.track = track
        try:
            kernel = original(src, *args, **kwargs)
        except Exception as exc:
            try:
                io_.record_compile_failure(_state, track, exc)
            except Exception as inner:
                hook_error("recording a failed compile", inner)
            raise
        finally:
            _compile_local.track = previous
        kernel_hash = getattr(kernel, "hash", None)
        if kernel_hash is not None and _state is not None:
            _state.compiles[kernel_hash] = (src, track.target, track.options)
        return kernel

    compile._tritondev = True
    # Every name the original is bound to: the module, the package re-exports, and any module of triton that
    # bound it at import (older eras import it at module level).
    for module in [m for n, m in list(sys.modules.items()) if n == "triton" or n.startswith("triton.")]:
        if getattr(module, "compile", None) is original:
            module.compile = compile


def _track_stages(triton):
    backends = getattr(getattr(triton, "backends", None), "backends", None) or {}
    for backend in backends.values():
        cls = getattr(backend, "compiler", None)
        original = getattr(cls, "add_stages", None)
        if original is None or getattr(original, "_tritondev", False):
            continue

        def add_stages(self, stages, *args, _original=original, **kwargs):
            result = _original(self, stages, *args, **kwargs)
            for stage, run in list(stages.items()):
                stages[stage] = _tracked(stage, run)
            return result

        add_stages._tritondev = True
        cls.add_stages = add_stages


def _tracked(stage, run):
    def tracked(src, metadata):
        track = getattr(_compile_local, "track", None)
        if track is not None:
            track.entering(stage, src)
        out = run(src, metadata)
        if track is not None:
            track.finished(stage, out)
        return out

    return tracked


def _on_interpreter(interpreter):
    cls = getattr(interpreter, "InterpretedFunction", None)
    original = getattr(cls, "run", None)
    if original is None or getattr(original, "_tritondev", False):
        return

    def run(self, *args, **kwargs):
        pending = None
        if not kwargs.get("warmup"):
            try:
                pending = io_.interpreted_launch(_state, self, args, kwargs)
            except Exception as exc:
                hook_error("recording an interpreted launch", exc)
        try:
            result = original(self, *args, **kwargs)
        except Exception as exc:
            if pending is not None:
                io_.crashed(_state, pending, exc)
            raise
        if pending is not None:
            io_.finish_launch(_state, pending)
        return result

    run._tritondev = True
    cls.run = run


def _at_exit():
    if _state is None or _state.pid != os.getpid():
        return
    try:
        io_.flush(_state)
    except Exception as exc:
        hook_error("writing the launch counts at exit", exc)
