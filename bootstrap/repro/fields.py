"""The field checkers of capture records: numbers, names, values, tensors and arguments. Pure.

A capture record is outside input (bootstrap/repro/records.py): each checker accepts only the shapes the
capture hook writes and raises RecordError naming the field otherwise.
"""

from __future__ import annotations

import math
import re
from typing import Any

MAX_ARGS = 1024
MAX_DIMS = 16
MAX_TEXT = 20000
BIG = 1 << 62
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,199}$")
DEVICE = re.compile(r"^(cpu|cuda|hip|xpu|mps|meta)(:[0-9]{1,4})?$")
DTYPES = frozenset(
    {
        "float64",
        "float32",
        "float16",
        "bfloat16",
        "float8_e4m3fn",
        "float8_e5m2",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "float8_e8m0fnu",
        "int64",
        "int32",
        "int16",
        "int8",
        "uint64",
        "uint32",
        "uint16",
        "uint8",
        "bool",
        "complex64",
        "complex128",
    }
)
ARG_KINDS = ("tensor", "tensor_descriptor", "int", "float", "bool", "none", "constant", "unsupported")


class RecordError(ValueError):
    """A record that is not what the capture hook writes; the message names the field."""


def fail(where: str, what: str) -> RecordError:
    return RecordError(f"{where}: {what}")


def as_dict(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail(where, "not an object")
    return value


def as_int(value: object, where: str, low: int = -BIG, high: int = BIG) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise fail(where, f"not an integer in [{low}, {high}]")
    return value


def as_text(value: object, where: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise fail(where, f"not a string of at most {limit} characters")
    return value


def as_name(value: object, where: str) -> str:
    if not isinstance(value, str) or not IDENTIFIER.match(value):
        raise fail(where, "not a Python identifier")
    return value


def optional(value: object, parse: Any, where: str) -> Any:
    return None if value is None else parse(value, where)


def json_value(value: object, where: str, depth: int = 0) -> Any:
    """A constexpr or option value: what json_value of the hook writes (tritondev_capture_data)."""
    if depth > 4:
        raise fail(where, "nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value if not isinstance(value, str) else as_text(value, where, 1000)
    if isinstance(value, int):
        return as_int(value, where)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise fail(where, "a non-finite number")
        return value
    if isinstance(value, list):
        if len(value) > 64:
            raise fail(where, "a list of more than 64 values")
        return [json_value(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        if key == "float" and inner in ("nan", "inf", "-inf"):
            return {"float": inner}
        if key in ("tl_dtype", "torch_dtype") and isinstance(inner, str) and IDENTIFIER.match(inner):
            return {key: inner}
    raise fail(where, "not a value a repro can rebuild")


def as_dims(value: object, where: str, low: int) -> list[int]:
    if not isinstance(value, list) or len(value) > MAX_DIMS:
        raise fail(where, f"not a list of at most {MAX_DIMS} integers")
    return [as_int(v, f"{where}[{i}]", low, BIG) for i, v in enumerate(value)]


def parse_tensor(value: object, where: str, storages: int) -> dict[str, Any]:
    data = as_dict(value, where)
    dtype = data.get("dtype")
    if dtype not in DTYPES:
        raise fail(f"{where}.dtype", f"not a dtype a repro rebuilds ({', '.join(sorted(DTYPES))})")
    device = as_text(data.get("device"), f"{where}.device", 20)
    if not DEVICE.match(device):
        raise fail(f"{where}.device", "not a torch device")
    shape = as_dims(data.get("shape"), f"{where}.shape", 0)
    stride = as_dims(data.get("stride"), f"{where}.stride", -BIG)
    if len(shape) != len(stride):
        raise fail(where, "shape and stride of different lengths")
    size = as_int(data.get("element_size"), f"{where}.element_size", 1, 16)
    offset = as_int(data.get("storage_offset"), f"{where}.storage_offset", 0, BIG)
    nbytes = as_int(data.get("storage_bytes"), f"{where}.storage_bytes", 0, BIG)
    # The view must lie inside its storage, as torch's as_strided will insist.
    if any(s == 0 for s in shape):
        last = offset
    elif any(st < 0 for st in stride):
        raise fail(f"{where}.stride", "negative strides are not a view torch makes")
    else:
        last = offset + sum((d - 1) * st for d, st in zip(shape, stride, strict=True))
    if (all(shape) and (last + 1) * size > nbytes) or nbytes % size:
        raise fail(where, "the view does not fit its storage")
    aligned = data.get("aligned16", True)
    return {
        "kind": "tensor",
        "dtype": dtype,
        "shape": shape,
        "stride": stride,
        "storage_offset": offset,
        "storage_bytes": nbytes,
        "element_size": size,
        "device": device,
        "storage": as_int(data.get("storage"), f"{where}.storage", 0, storages - 1),
        "aligned16": aligned if isinstance(aligned, bool) else True,
    }


def parse_arg(value: object, where: str, storages: int) -> dict[str, Any]:
    data = as_dict(value, where)
    name, kind = as_name(data.get("name"), f"{where}.name"), data.get("kind")
    if kind == "tensor":
        return {"name": name, **parse_tensor(data, where, storages)}
    if kind == "tensor_descriptor":
        return {
            "name": name,
            "kind": kind,
            "base": parse_tensor(data.get("base"), f"{where}.base", storages),
            "shape": as_dims(data.get("shape"), f"{where}.shape", 0),
            "strides": as_dims(data.get("strides"), f"{where}.strides", -BIG),
            "block_shape": as_dims(data.get("block_shape"), f"{where}.block_shape", 0),
        }
    if kind == "none":
        return {"name": name, "kind": kind}
    if kind in ("int", "float", "bool", "constant"):
        value_ = json_value(data.get("value"), f"{where}.value")
        expected = {"int": int, "bool": bool}.get(kind)
        wrong_type = expected is not None and not isinstance(value_, expected)
        if wrong_type or (expected is int and isinstance(value_, bool)):
            raise fail(f"{where}.value", f"not a {kind}")
        return {"name": name, "kind": kind, "value": value_}
    if kind == "unsupported":
        return {"name": name, "kind": kind, "type": as_text(data.get("type", "?"), f"{where}.type", 200)}
    raise fail(f"{where}.kind", f"not one of {', '.join(ARG_KINDS)}")
