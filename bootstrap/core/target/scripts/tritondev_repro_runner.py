# mypy: ignore-errors
"""The body of every standalone repro.py that `tritondev repro make` writes.

repro.py is a header (what was captured, the commands that compile, dump and bisect it), `LAUNCH = {...}`
(the recorded launch as a Python literal) and the code below the marker line, copied unchanged. It
imports only the standard library, torch, triton and kernel.py beside it, and never Inductor's
autotuner: the kernel is compiled with triton.compile at the recorded specialization (signature,
constexprs, divisibility attributes, options) and launched at the recorded grid, or, under the
interpreter or with --jit, launched through kernel[grid](...).

Exit codes as `git bisect run` reads them: 0 good (the symptom is absent), 1 bad (it reproduces),
125 this Triton or machine cannot run the repro (an API it lacks, no GPU for a GPU launch).
"""

# ---- repro.py ----
import argparse
import importlib.util
import inspect
import json
import os
import re
import sys
import time

EXIT_GOOD, EXIT_BAD, EXIT_CANNOT = 0, 1, 125
HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240617
# torch.testing.assert_close's defaults (rtol, atol) per dtype; fp8 has none there.
TOLERANCES = {"float64": (1e-7, 1e-7), "float32": (1.3e-6, 1e-5), "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5)}
FP8_TOLERANCE = (0.125, 1e-2)
OPTION_NAMES = (
    "num_warps",
    "num_stages",
    "num_ctas",
    "maxnreg",
    "enable_fp_fusion",
    "launch_cooperative_grid",
    "launch_pdl",
    "debug",
)


class CannotRun(Exception):
    """This Triton or machine cannot run the repro (exit 125)."""


class Outcome:
    def __init__(self, launch):
        self.launch = launch
        self.bad = []  # (kind, text, details)
        self.good = []
        self.notes = []
        self.cannot = None
        self.facts = {"kernel": launch["kernel"], "path": None}

    def symptom(self, kind, text, **details):
        self.bad.append({"kind": kind, "text": text, **details})

    def verdict(self):
        if self.cannot is not None:
            return None, EXIT_CANNOT, f"cannot run here: {self.cannot}"
        if self.bad:
            return True, EXIT_BAD, "reproduces: yes (" + "; ".join(b["text"] for b in self.bad) + ")"
        why = "; ".join(self.good) or "launched and finished without error"
        return False, EXIT_GOOD, f"reproduces: no ({why})"

    def report(self, as_json, started):
        reproduces, code, line = self.verdict()
        if as_json:
            document = {
                "reproduces": reproduces,
                "exit_code": code,
                "summary": line,
                "findings": self.bad,
                "checked": self.good,
                "notes": self.notes,
                "seconds": round(time.time() - started, 3),
                **self.facts,
            }
            sys.__stdout__.write(json.dumps(document, default=str) + "\n")
        else:
            for note in self.notes:
                print(f"note: {note}", file=sys.stderr)
            print(line)
        return code


def main(launch, argv=None):
    parser = argparse.ArgumentParser(description=f"Standalone repro of the Triton kernel {launch['kernel']}.")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument(
        "--jit",
        action="store_true",
        help="launch through kernel[grid](...) (Triton derives the specialization) instead of "
        "triton.compile at the recorded one",
    )
    parser.add_argument("--random", action="store_true", help="random inputs even where values were recorded")
    parser.add_argument("--rtol", type=float, help="relative tolerance of the comparison (default: per dtype)")
    parser.add_argument("--atol", type=float, help="absolute tolerance of the comparison (default: per dtype)")
    options = parser.parse_args(argv)
    started, outcome = time.time(), Outcome(launch)
    stdout = sys.stdout
    if options.json:
        sys.stdout = sys.stderr  # what the kernel or Triton prints stays off the one JSON document
    try:
        run(launch, options, outcome)
    except CannotRun as exc:
        outcome.cannot = str(exc)
    finally:
        sys.stdout = stdout
    return outcome.report(options.json, started)


def run(launch, options, outcome):
    if launch["mode"] == "interpreter":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    torch, triton = _imports()
    outcome.facts.update(triton=getattr(triton, "__version__", None), torch=str(torch.__version__))
    kernel = _load_kernel(launch)
    if launch["status"] == "compile-failed":
        outcome.facts["path"] = "compile"
        return _compile_only(launch, triton, kernel, outcome)
    device = _device(launch, torch)
    outcome.facts["device"] = str(device)
    storages, values = _build_args(launch, torch, device, options.random, outcome)
    if hasattr(triton, "set_allocator") and device.type != "cpu":
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device=device))
    jit = launch["mode"] == "interpreter" or options.jit or not launch.get("spec")
    outcome.facts["path"] = "interpreter" if launch["mode"] == "interpreter" else ("jit" if jit else "compiled")
    if not jit:
        compiled = _compile(launch, triton, kernel, outcome, target=None)
        if compiled is None:
            return
    try:
        if jit:
            _launch_jit(launch, kernel, values)
        else:
            _launch_compiled(launch, compiled, values)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    except CannotRun:
        raise
    except Exception as exc:
        kind = "compile_error" if _is_compile_error(exc) else "crash"
        outcome.symptom(kind, f"{kind.replace('_', ' ')}: {_one_line(exc)}", exception=type(exc).__name__)
        return
    _compare(launch, torch, storages, options, outcome)


def _imports():
    try:
        import torch
        import triton
    except ImportError as exc:
        raise CannotRun(f"cannot import {exc.name or exc}") from None
    if not hasattr(triton, "jit"):
        raise CannotRun(f"this triton ({getattr(triton, '__file__', '?')}) has no triton.jit")
    return torch, triton


def _load_kernel(launch):
    path = os.path.join(HERE, "kernel.py")
    spec = importlib.util.spec_from_file_location("kernel", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["kernel"] = module
    try:
        spec.loader.exec_module(module)
    except (ImportError, AttributeError) as exc:  # an API this Triton or torch lacks
        raise CannotRun(f"kernel.py does not import here: {type(exc).__name__}: {exc}") from None
    kernel = getattr(module, launch["kernel"], None)
    if kernel is None:
        raise CannotRun(f"kernel.py has no {launch['kernel']}")
    return kernel


def _device(launch, torch):
    if launch["mode"] == "interpreter":
        return torch.device("cpu")
    wanted = [a["device"] for a in launch["args"] if a["kind"] == "tensor"] or ["cuda"]
    device = torch.device(wanted[0])
    if device.type == "cuda" and not torch.cuda.is_available():
        raise CannotRun("the launch was recorded on a GPU and torch sees none here")
    return device


def _value(value, triton):
    if isinstance(value, dict):
        if "float" in value:
            return float(value["float"])
        if "tl_dtype" in value:
            return triton.language.dtype(value["tl_dtype"])
        if "torch_dtype" in value:
            import torch

            return getattr(torch, value["torch_dtype"])
        raise CannotRun(f"a recorded value cannot be rebuilt: {value}")
    if isinstance(value, list):
        return tuple(_value(v, triton) for v in value)
    return value


def _storage(torch, device, index, dtype, nbytes, entry, use_recorded):
    path = entry.get("in") if use_recorded and entry else None
    if path:
        with open(os.path.join(HERE, path), "rb") as fh:
            data = fh.read()
        if len(data) != nbytes:
            raise CannotRun(f"{path} holds {len(data)} bytes, the launch's storage {nbytes}")
        return torch.frombuffer(bytearray(data), dtype=torch.uint8).to(device), True
    size = torch.empty(0, dtype=dtype).element_size()
    generator = torch.Generator().manual_seed(SEED + index)
    count = nbytes // size
    if dtype.is_floating_point:
        data = torch.randn(count, generator=generator).to(dtype)
    elif dtype == torch.bool:
        data = torch.randint(0, 2, (count,), generator=generator).bool()
    else:
        data = torch.randint(0, 2, (count,), generator=generator).to(dtype)
    raw = data.view(torch.uint8) if count else torch.empty(0, dtype=torch.uint8)
    padded = torch.zeros(nbytes, dtype=torch.uint8)
    padded[: raw.numel()] = raw
    return padded.to(device), False


def _dtype(torch, name):
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise CannotRun(f"this torch has no dtype {name}")
    return dtype


def _view(torch, storages, arg):
    dtype = _dtype(torch, arg["dtype"])
    return storages[arg["storage"]][0].view(dtype).as_strided(arg["shape"], arg["stride"], arg["storage_offset"])


def _build_args(launch, torch, device, random_inputs, outcome):
    storages, values = {}, {}
    entries = launch.get("io", {}).get("storages", {})
    import triton

    for arg in launch["args"]:
        tensor = arg.get("base") if arg["kind"] == "tensor_descriptor" else arg
        if arg["kind"] in ("tensor", "tensor_descriptor") and tensor["storage"] not in storages:
            dtype = _dtype(torch, tensor["dtype"])
            storages[tensor["storage"]] = _storage(
                torch,
                device,
                tensor["storage"],
                dtype,
                tensor["storage_bytes"],
                entries.get(str(tensor["storage"])),
                not random_inputs,
            )
        if arg["kind"] == "tensor":
            values[arg["name"]] = _view(torch, storages, arg)
        elif arg["kind"] == "tensor_descriptor":
            try:
                from triton.tools.tensor_descriptor import TensorDescriptor
            except ImportError:
                raise CannotRun("this Triton has no triton.tools.tensor_descriptor") from None
            values[arg["name"]] = TensorDescriptor(
                _view(torch, storages, tensor), arg["shape"], arg["strides"], arg["block_shape"]
            )
        elif arg["kind"] in ("int", "float", "bool", "constant"):
            values[arg["name"]] = _value(arg["value"], triton)
        elif arg["kind"] == "none":
            values[arg["name"]] = None
        else:
            raise CannotRun(f"argument {arg['name']} ({arg.get('type')}) was not recorded in a form a repro rebuilds")
    recorded = sum(1 for s in storages.values() if s[1])
    if storages:
        outcome.notes.append(
            f"inputs: {recorded} of {len(storages)} tensor storages hold recorded values, the "
            "others deterministic random data of the recorded shapes"
        )
    return storages, values


def _ast_source(triton, kernel, spec):
    from triton.compiler import ASTSource

    names = spec["arg_names"]
    index = {n: i for i, n in enumerate(names)}
    constexprs = {n: _value(v, triton) for n, v in spec["constexprs"].items()}
    accepted = inspect.signature(ASTSource.__init__).parameters
    if "constexprs" in accepted:  # Triton 3.3+
        signature = {n: spec["signature"].get(n, "constexpr") for n in names}
        attrs = {(index[n],): [list(a) for a in v] for n, v in spec["attrs"].items()}
        return ASTSource(kernel, signature, constexprs={(index[n],): v for n, v in constexprs.items()}, attrs=attrs)
    descriptor = _attrs_descriptor()
    hints = {index[n]: (16 if a[0] == "tt.divisibility" else 1) for n, v in spec["attrs"].items() for a in v}
    if hasattr(descriptor, "from_hints"):  # Triton 3.2
        return ASTSource(kernel, dict(spec["signature"]), constants=constexprs, attrs=descriptor.from_hints(hints))
    signature = {index[n]: t for n, t in spec["signature"].items()}  # Triton 3.0-3.1: by position
    attrs = descriptor(
        divisible_by_16=tuple(i for i, h in hints.items() if h == 16),
        equal_to_1=tuple(i for i, h in hints.items() if h == 1),
    )
    return ASTSource(kernel, signature, constants={index[n]: v for n, v in constexprs.items()}, attrs=attrs)


def _attrs_descriptor():
    for where in ("triton.backends.compiler", "triton.compiler.compiler"):
        try:
            return importlib.import_module(where).AttrsDescriptor
        except (ImportError, AttributeError):
            continue
    raise CannotRun("this Triton's ASTSource takes neither constexprs= nor an AttrsDescriptor")


def _options(spec):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in spec.get("options", {}).items()}


def _compile(launch, triton, kernel, outcome, target):
    spec = launch["spec"]
    source = _ast_source(triton, kernel, spec)
    if target is None:
        target = triton.runtime.driver.active.get_current_target()
        recorded = spec.get("target") or {}
        if recorded and (recorded.get("backend"), recorded.get("arch")) != (target.backend, target.arch):
            outcome.notes.append(
                f"compiled for this GPU ({target.backend}:{target.arch}); the capture ran on "
                f"{recorded.get('backend')}:{recorded.get('arch')}"
            )
    try:
        return triton.compile(source, target=target, options=_options(spec))
    except Exception as exc:
        outcome.symptom("compile_error", f"compile error: {_one_line(exc)}", exception=type(exc).__name__)
        return None


def _compile_only(launch, triton, kernel, outcome):
    """A capture of a compile that failed: compile it again for the recorded target (no GPU needed)."""
    try:
        from triton.backends.compiler import GPUTarget
    except ImportError:
        raise CannotRun("this Triton has no triton.backends.compiler.GPUTarget") from None
    recorded = launch["spec"].get("target") or {}
    if not recorded.get("backend"):
        raise CannotRun("the capture does not say which target the failed compile was for")
    target = GPUTarget(recorded["backend"], recorded["arch"], recorded["warp_size"])
    error = launch.get("error") or {}
    outcome.facts["target"] = f"{recorded['backend']}:{recorded['arch']}"
    if _compile(launch, triton, kernel, outcome, target) is not None:
        outcome.good.append(
            f"compiles for {recorded['backend']}:{recorded['arch']}; the capture failed with "
            f"{error.get('type', 'an error')} at stage {error.get('failed_stage', '?')}"
        )


def _launch_compiled(launch, compiled, values):
    from triton.compiler import ASTSource

    names = launch["spec"]["arg_names"]
    if "constexprs" not in inspect.signature(ASTSource.__init__).parameters:  # up to 3.2: constants are not passed
        names = [n for n in names if n not in launch["spec"]["constexprs"]]
    compiled[tuple(launch["grid"])](*[values[n] for n in names])


def _launch_jit(launch, kernel, values):
    metadata = launch.get("metadata") or {}
    chosen = {**(launch.get("interpreter") or {}).get("options", {}), **(launch.get("spec") or {}).get("options", {})}
    options = {k: chosen.get(k, metadata.get(k)) for k in OPTION_NAMES if chosen.get(k, metadata.get(k)) is not None}
    kernel[tuple(launch["grid"])](**values, **{k: v for k, v in options.items() if k not in values})


def _is_compile_error(exc):
    text = f"{type(exc).__name__} {exc}"
    return any(word in text for word in ("CompilationError", "PTXASError", "PassManager", "MLIR"))


def _one_line(exc):
    """The line of an error that names it: the first "error:" line after the heading (a compiler's own message,
    not the command it ran), else the last line that says error, else the last one."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    body = lines[1:] if len(lines) > 1 else lines
    specific = [line for line in body if re.search(r"error\s*:", line, re.IGNORECASE)]
    named = [line for line in lines if "error" in line.lower() and not line.startswith("Repro command")]
    shown = specific[0] if specific else (named or lines or [""])[-1]
    return f"{type(exc).__name__}: {shown[:300]}"


def _tolerance(torch, dtype, options):
    rtol, atol = TOLERANCES.get(str(dtype).replace("torch.", ""), FP8_TOLERANCE if dtype.itemsize == 1 else (0, 0))
    return (options.rtol if options.rtol is not None else rtol), (options.atol if options.atol is not None else atol)


def _recorded(torch, path, device):
    with open(os.path.join(HERE, path), "rb") as fh:
        return torch.frombuffer(bytearray(fh.read()), dtype=torch.uint8).to(device)


def _compare(launch, torch, storages, options, outcome):
    entries = launch.get("io", {}).get("storages", {})
    inputs_finite = all((e.get("nonfinite_before") or 0) == 0 for e in entries.values() if not e.get("changed"))
    compared = 0
    for arg in launch["args"]:
        if arg["kind"] != "tensor":
            continue
        entry = entries.get(str(arg["storage"])) or {}
        actual = _view(torch, storages, arg)
        if not entry.get("in") or not storages[arg["storage"]][1]:
            continue
        expected_raw = _recorded(torch, entry["out"] if entry.get("changed") else entry["in"], actual.device)
        expected = expected_raw.view(actual.dtype).as_strided(arg["shape"], arg["stride"], arg["storage_offset"])
        compared += 1
        if (
            entry.get("changed")
            and (entry.get("nonfinite_after") or 0) > 0
            and inputs_finite
            and actual.dtype.is_floating_point
        ):
            _judge_recorded_symptom(torch, arg, actual, outcome)
        else:
            _judge_values(torch, arg, actual, expected, entry, options, outcome)
    if compared and not outcome.bad and not outcome.good:
        # The captured launch changed none of them (a tuner's second config writing what the first one wrote):
        # the replay left them as recorded too.
        outcome.good.append(f"{compared} tensors match the recording; the captured launch changed none of them")
    if compared == 0:
        outcome.notes.append(
            "no recorded values to compare with (capture with --save-io): crashes and compile errors are checked"
        )
        for arg in launch["args"]:
            if arg["kind"] == "tensor" and _dtype(torch, arg["dtype"]).is_floating_point:
                bad = int((~torch.isfinite(_view(torch, storages, arg).float())).sum())
                if bad:
                    outcome.notes.append(
                        f"{arg['name']} holds {bad} NaN/Inf after the launch (not judged: the capture kept no values)"
                    )


def _judge_recorded_symptom(torch, arg, actual, outcome):
    """The capture itself saw NaN/Inf appear from finite inputs: that is the symptom to look for."""
    bad = int((~torch.isfinite(actual.float())).sum())
    total = actual.numel()
    if bad:
        outcome.symptom(
            "nonfinite",
            f"NaN/Inf in {arg['name']}: {bad} of {total} elements, as in the capture",
            arg=arg["name"],
            count=bad,
            total=total,
        )
    else:
        outcome.good.append(f"{arg['name']} is finite ({total} elements); the capture had NaN/Inf there")


def _judge_values(torch, arg, actual, expected, entry, options, outcome):
    total = actual.numel()
    if actual.dtype.is_floating_point:
        a = actual.float() if actual.itemsize < 8 else actual
        e = expected.float() if expected.itemsize < 8 else expected
        rtol, atol = _tolerance(torch, actual.dtype, options)
        new_nonfinite = int(((~torch.isfinite(a)) & torch.isfinite(e)).sum())
        wrong = ~torch.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        count = int(wrong.sum())
        finite = wrong & torch.isfinite(a) & torch.isfinite(e)
        err = float((a - e).abs()[finite].max()) if bool(finite.any()) else None
    else:
        new_nonfinite, err = 0, None
        count = int((actual != expected).sum())
    what = "mismatch in" if entry.get("changed") else "write into (the capture left it unchanged)"
    if new_nonfinite:
        outcome.symptom(
            "nonfinite",
            f"NaN/Inf in {arg['name']}: {new_nonfinite} of {total} elements where the recording had finite values",
            arg=arg["name"],
            count=new_nonfinite,
            total=total,
        )
    if count:
        shown = f", max abs err {err:.3g}" if err is not None else ""
        outcome.symptom(
            "mismatch",
            f"{what} {arg['name']}: {count} of {total} elements{shown}",
            arg=arg["name"],
            count=count,
            total=total,
            max_abs_err=err,
        )
    elif entry.get("changed"):
        outcome.good.append(f"{arg['name']} matches the recording: {total} elements")


if __name__ == "__main__":
    sys.exit(main(globals().get("LAUNCH")))
