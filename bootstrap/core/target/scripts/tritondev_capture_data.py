# mypy: ignore-errors
"""What the capture hook writes down about one launch: each argument, the specialization, the options.

Part of the capture hook (tritondev_capture.py). Everything here turns live objects (tensors, Triton's
ASTSource, its kernel metadata) into JSON values; nothing keeps a reference to them. Stdlib only: torch
and triton are only touched through the objects the program hands over.
"""

import math
import sys

# The compile options a repro passes back to triton.compile: what a user or Inductor chooses. Options
# Triton derives from the target (ptx_version, supported_fp8_dtypes, ...) are left for it to derive again.
REPLAY_OPTIONS = (
    "num_warps",
    "num_stages",
    "num_ctas",
    "maxnreg",
    "enable_fp_fusion",
    "launch_cooperative_grid",
    "launch_pdl",
    "debug",
    "sanitize_overflow",
    "cluster_dims",
    "default_dot_input_precision",
    "max_num_imprecise_acc_default",
    "matrix_instr_nonkdim",
    "waves_per_eu",
    "kpack",
    "schedule_hint",
    "instruction_sched_variant",
    "num_buffers_warp_spec",
    "num_consumer_groups",
    "ir_override",
)
# What the kernel metadata says about a compiled kernel, shown by `repro show`.
METADATA_FIELDS = (
    "name",
    "num_warps",
    "num_stages",
    "num_ctas",
    "maxnreg",
    "shared",
    "cluster_dims",
    "launch_pdl",
    "launch_cooperative_grid",
    "global_scratch_size",
    "enable_fp_fusion",
    "debug",
    "triton_version",
    "hash",
)
# Where launches come from while a tuner measures configurations (module -> functions; None: all of them).
AUTOTUNING_FRAMES = {
    "triton.testing": None,
    "triton.runtime.autotuner": {"_bench", "prune_configs"},
    "torch._inductor.runtime.benchmarking": None,
    "torch._inductor.autotune_process": None,
    "torch._inductor.select_algorithm": None,
    "torch._inductor.runtime.triton_heuristics": {
        "bench",
        "benchmark_all_configs",
        "autotune_to_one_config",
        "coordinate_descent_tuning",
        "_benchmark",
    },
}


class Unsupported(Exception):
    """An argument or specialization a repro cannot rebuild (said in the record, never raised to the program)."""


def json_value(value):
    """A constexpr, scalar or option as JSON; floats that JSON cannot hold as {"float": "nan"}."""
    inner = getattr(value, "value", value) if type(value).__name__ == "constexpr" else value
    if inner is None or isinstance(inner, (bool, int, str)):
        return inner
    if isinstance(inner, float):
        return inner if math.isfinite(inner) else {"float": repr(inner)}
    if isinstance(inner, (list, tuple)):
        return [json_value(v) for v in inner]
    if type(inner).__name__ == "dtype" and type(inner).__module__.startswith("triton"):
        return {"tl_dtype": str(inner)}
    if type(inner).__name__ == "dtype" and type(inner).__module__.startswith("torch"):
        return {"torch_dtype": str(inner).replace("torch.", "")}
    if hasattr(inner, "_asdict"):  # named tuples (GPUTarget up to 3.2)
        return {k: json_value(v) for k, v in inner._asdict().items()}
    if hasattr(inner, "__dataclass_fields__"):  # GPUTarget from 3.3
        return {k: json_value(getattr(inner, k)) for k in inner.__dataclass_fields__}
    return {"unsupported": type(inner).__name__, "repr": repr(inner)[:200]}


def is_tensor(value):
    return all(hasattr(value, a) for a in ("data_ptr", "dtype", "shape", "stride", "untyped_storage"))


def storage_key(tensor):
    storage = tensor.untyped_storage()
    return (str(tensor.device), storage.data_ptr(), storage.nbytes())


def describe_tensor(tensor, storages):
    """dtype, shape, strides, offset, the storage it views (shared by every argument on the same memory)."""
    key = storage_key(tensor)
    if key not in storages:
        storages[key] = len(storages)
    return {
        "kind": "tensor",
        "dtype": str(tensor.dtype).replace("torch.", ""),
        "shape": [int(s) for s in tensor.shape],
        "stride": [int(s) for s in tensor.stride()],
        "storage_offset": int(tensor.storage_offset()),
        "storage_bytes": int(key[2]),
        "storage": storages[key],
        "element_size": int(tensor.element_size()),
        "device": str(tensor.device),
        "aligned16": tensor.data_ptr() % 16 == 0,
    }


def describe_arg(value, storages):
    if is_tensor(value):
        return describe_tensor(value, storages)
    if value is None:
        return {"kind": "none"}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, int):
        return {"kind": "int", "value": value}
    if isinstance(value, float):
        return {"kind": "float", "value": json_value(value)}
    base = getattr(value, "base", None)
    if is_tensor(base) and hasattr(value, "block_shape"):  # triton.tools.tensor_descriptor.TensorDescriptor
        return {
            "kind": "tensor_descriptor",
            "base": describe_tensor(base, storages),
            "shape": [int(s) for s in value.shape],
            "strides": [int(s) for s in value.strides],
            "block_shape": [int(s) for s in value.block_shape],
        }
    shown = json_value(value)
    if isinstance(shown, dict) and "unsupported" in shown:
        return {"kind": "unsupported", "type": shown["unsupported"], "repr": shown["repr"]}
    return {"kind": "constant", "value": shown}


def arg_key(value):
    """What makes two launches of one compiled kernel different launches for a repro."""
    if is_tensor(value):  # torch's dtype, Size and device hash: no string is made on this path (every launch)
        return (
            "T",
            value.dtype,
            value.shape,
            value.stride(),
            value.storage_offset(),
            value.device,
            value.data_ptr() % 16 == 0,
        )
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return type(value).__name__


def args_key(args):
    return tuple((name, arg_key(value)) for name, value in args.items())


def in_autotuning(skip=2):
    """Whether this launch comes from a tuner measuring configurations rather than from the program."""
    frame = sys._getframe(skip)
    depth = 0
    while frame is not None and depth < 60:
        functions = AUTOTUNING_FRAMES.get(frame.f_globals.get("__name__"), False)
        if functions is None or (functions and frame.f_code.co_name in functions):
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def _arg_name(key, names):
    if isinstance(key, tuple):
        if len(key) != 1:
            raise Unsupported(f"a tuple argument ({key}) of the signature")
        key = key[0]
    return names[key] if isinstance(key, int) else str(key)


def _attrs_by_name(raw, names):
    """attrs in every era's form -> {argument: [[attribute, value], ...]}."""
    if not raw:
        return {}
    if isinstance(raw, dict):  # 3.3+: {(index,): [["tt.divisibility", 16], ...]}
        return {_arg_name(k, names): [list(a) for a in v] for k, v in raw.items()}
    found = {}
    if hasattr(raw, "divisible_by_16"):  # 3.0-3.1: AttrsDescriptor(divisible_by_16=, equal_to_1=)
        for index in raw.divisible_by_16 or ():
            found.setdefault(names[index], []).append(["tt.divisibility", 16])
        for index in getattr(raw, "equal_to_1", None) or ():
            found.setdefault(names[index], []).append(["tt.equal_to", 1])
        return found
    values = getattr(raw, "property_values", None)  # 3.2: AttrsDescriptor.property_values {attr: [index]}
    if isinstance(values, dict):
        for attr, indices in values.items():
            for index in indices or ():
                found.setdefault(names[index], []).append([attr, 16 if "divisib" in attr else 1])
        return found
    raise Unsupported(f"attrs of an unknown form ({type(raw).__name__})")


def spec_of(src, target, options):
    """The specialization of a compiled ASTSource, by argument name, the same in every era."""
    fn = src.fn
    names = list(fn.arg_names)
    signature, constexprs = {}, {}
    for key, ty in dict(src.signature).items():
        name = _arg_name(key, names)
        if ty != "constexpr":
            signature[name] = str(ty)
    constants = getattr(src, "constants", None) or getattr(src, "constexprs", None) or {}
    for key, value in dict(constants).items():
        name = _arg_name(key, names)
        constexprs[name] = json_value(value)
        signature.pop(name, None)
    return {
        "arg_names": names,
        "signature": signature,
        "constexprs": constexprs,
        "attrs": _attrs_by_name(getattr(src, "attrs", None), names),
        "target": json_value(target) if target is not None else None,
        "options": {k: json_value(v) for k, v in (options or {}).items() if k in REPLAY_OPTIONS},
        "options_given": {str(k): json_value(v) for k, v in (options or {}).items()},
    }


def metadata_of(metadata):
    found = {}
    for field in METADATA_FIELDS:
        if hasattr(metadata, field):
            found[field] = json_value(getattr(metadata, field))
    if hasattr(metadata, "target"):
        found["target"] = json_value(metadata.target)
    return found


def versions():
    found = {"python": sys.version.split()[0]}
    for name in ("triton", "torch"):
        module = sys.modules.get(name)
        found[name] = getattr(module, "__version__", None) if module is not None else None
        if name == "torch" and module is not None:
            found[name] = str(found[name])
    return found
