"""`--signature "x_ptr=*fp32:16,n=i32"` and `--constexpr BLOCK=1024`: pure parsers with precise errors.

The type names are Triton's own (`triton.language.str_to_ty`); a pointer is `*T`, a pointer to
read-only memory `*kT`, and `:16` promises the compiler a multiple of 16 (pointer alignment or
integer divisibility), as in Triton's ahead-of-time compiler.

The signature is either named (`x_ptr=*fp32,n=i32`) or upstream's positional form, as
`python -m triton.tools.compile --signature` takes it: `"*fp32:16, *fp32:16, i32, 1024"`, one entry
per kernel argument in order, each a type (with an optional hint; `:1` means the value 1) or a
constexpr value (a number). Which argument a position is becomes known only inside the target,
where the kernel is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bootstrap.core.errors import UsageError
from bootstrap.core.suggest import closest

SCALAR_TYPES: tuple[str, ...] = (
    "i1", "i8", "i16", "i32", "i64",
    "u1", "u8", "u16", "u32", "u64",
    "fp16", "bf16", "fp32", "fp64",
    "fp8e4nv", "fp8e4b8", "fp8e4b15", "fp8e5", "fp8e5b16",
)  # fmt: skip
DIVISIBILITY_HINTS: tuple[int, ...] = (16,)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXAMPLE = "x_ptr=*fp32,y_ptr=*fp32,n=i32 (pointers: *fp16, *kfp16 read-only, *fp32:16 aligned)"

ConstValue = int | float | bool | str | None


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # a Triton type string: "i32", "*fp16", "*kfp32"
    divisibility: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "type": self.type, "divisibility": self.divisibility}


@dataclass(frozen=True)
class Positional:
    """One entry of the positional form: a type (and its hint), or a constexpr value when `type` is None."""

    type: str | None
    divisibility: int | None = None
    value: ConstValue = None

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "divisibility": self.divisibility, "value": self.value}


@dataclass(frozen=True)
class KernelArgs:
    """What the user said about the kernel's arguments, in the order they gave them."""

    params: tuple[Param, ...]
    constexprs: dict[str, ConstValue] = field(default_factory=dict)
    positional: tuple[Positional, ...] = ()  # upstream's form: the kernel's arguments from the first, in order

    def to_json(self) -> dict[str, object]:
        return {
            "params": [p.to_json() for p in self.params],
            "constexprs": dict(self.constexprs),
            "positional": [p.to_json() for p in self.positional],
        }


def valid_types_text() -> str:
    return ", ".join(SCALAR_TYPES) + "; pointers: *T or *kT (read-only) for any of them"


def _type_error(item: str, type_text: str) -> UsageError:
    base = type_text.lstrip("*")
    if type_text.startswith("*") and base.startswith("k") and base[1:] in SCALAR_TYPES:
        base = base[1:]
    close = closest(base, SCALAR_TYPES)
    hint = f" (did you mean {'*' if type_text.startswith('*') else ''}{close}?)" if close else ""
    return UsageError(
        f"--signature: unknown type {type_text!r} in {item!r}{hint}",
        fix=f"valid types: {valid_types_text()}",
    )


def parse_type(item: str, type_text: str) -> tuple[str, int | None]:
    """`*fp32:16` -> ("*fp32", 16). UsageError naming `item` when the type is unknown."""
    text = type_text.strip()
    hint: int | None = None
    if ":" in text:
        text, _, hint_text = text.partition(":")
        text = text.strip()
        if not hint_text.strip().isdigit() or int(hint_text) not in DIVISIBILITY_HINTS:
            raise UsageError(
                f"--signature: bad hint {':' + hint_text!r} in {item!r}",
                fix="the only hint Triton takes is ':16' (a multiple of 16), e.g. x_ptr=*fp32:16",
            )
        hint = int(hint_text)
    if not text:
        raise UsageError(f"--signature: {item!r} has no type", fix=f"write name=type, e.g. {_EXAMPLE}")
    base = text
    if base.startswith("*"):
        base = base[1:]
        if base.startswith("k") and base[1:] in SCALAR_TYPES:
            base = base[1:]
    if base not in SCALAR_TYPES:
        raise _type_error(item, text)
    return text, hint


def is_positional(text: str) -> bool:
    """Upstream's form: no entry names its argument."""
    return bool(text.strip()) and "=" not in text


def parse_positional(text: str) -> tuple[Positional, ...]:
    """`*fp32:16, i32, 1024` -> a type with hint 16, a type, the value 1024. Pure."""
    entries: list[Positional] = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            raise UsageError(
                f"--signature: empty entry in {text!r} (two commas, or a trailing comma)",
                fix='one entry per kernel argument, e.g. "*fp32:16, *fp32:16, i32, 1024"',
            )
        type_text, colon, hint = item.partition(":")
        if colon and hint.strip() == "1":
            entries.append(Positional(None, None, 1))  # upstream: `:1` is the value 1
            continue
        value = parse_constexpr_value(item)
        if isinstance(value, (int, float)) or value is None or isinstance(value, bool):
            entries.append(Positional(None, None, value))
            continue
        base = type_text.strip().lstrip("*")
        if not (base in SCALAR_TYPES or (base.startswith("k") and base[1:] in SCALAR_TYPES)):
            if not type_text.strip().startswith("*") and _NAME.fullmatch(type_text.strip()) and not colon:
                raise UsageError(
                    f"--signature: {item!r} is not name=type, nor a type or a value of the positional form",
                    fix=f'name each argument ({_EXAMPLE}), or give types in order: "*fp32:16, *fp32:16, i32, 1024"',
                )
            raise _type_error(item, type_text.strip())
        type_name, divisibility = parse_type(item, item)
        entries.append(Positional(type_name, divisibility))
    return tuple(entries)


def parse_signature(text: str) -> tuple[Param, ...]:
    """`x_ptr=*fp32,n=i32` -> (Param("x_ptr", "*fp32"), Param("n", "i32")). Pure."""
    if not text.strip():
        raise UsageError("--signature is empty", fix=f"name every non-constexpr argument with its type: {_EXAMPLE}")
    params: list[Param] = []
    seen: set[str] = set()
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            raise UsageError(
                f"--signature: empty entry in {text!r} (two commas, or a trailing comma)",
                fix=f"separate name=type pairs with single commas: {_EXAMPLE}",
            )
        name, sep, type_text = item.partition("=")
        name = name.strip()
        if not sep:
            raise UsageError(
                f"--signature: {item!r} is not name=type",
                fix=f"name every argument: {_EXAMPLE}",
            )
        if not _NAME.fullmatch(name):
            raise UsageError(f"--signature: {name!r} in {item!r} is not an argument name", fix=f"e.g. {_EXAMPLE}")
        if name in seen:
            raise UsageError(f"--signature: argument {name!r} is given twice", fix="give each argument once")
        seen.add(name)
        type_name, hint = parse_type(item, type_text)
        params.append(Param(name, type_name, hint))
    return tuple(params)


def parse_constexpr_value(text: str) -> ConstValue:
    """`1024` -> 1024, `0.5` -> 0.5, `true` -> True, `none` -> None, `'relu'`/`relu` -> "relu"."""
    value = text.strip()
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    try:
        return int(value, 0)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        pass
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_constexprs(items: list[str] | tuple[str, ...]) -> dict[str, ConstValue]:
    """[`BLOCK=1024`, `ACT=relu`] -> {"BLOCK": 1024, "ACT": "relu"}. Pure."""
    result: dict[str, ConstValue] = {}
    for raw in items:
        name, sep, value = raw.partition("=")
        name = name.strip()
        if not sep or not value.strip():
            raise UsageError(f"--constexpr {raw!r} is not NAME=VALUE", fix="e.g. --constexpr BLOCK=1024")
        if not _NAME.fullmatch(name):
            raise UsageError(f"--constexpr: {name!r} is not an argument name", fix="e.g. --constexpr BLOCK=1024")
        if name in result:
            raise UsageError(f"--constexpr {name} is given twice", fix="give each constexpr once")
        result[name] = parse_constexpr_value(value)
    return result


def parse_kernel_args(signature: str | None, constexprs: list[str] | tuple[str, ...]) -> KernelArgs:
    """The named or positional signature and the constexprs; no signature at all: the kernel's own
    argument list, read in the target, becomes the fix."""
    values = parse_constexprs(constexprs)
    if signature is None:
        return KernelArgs((), values)
    if is_positional(signature):
        return KernelArgs((), values, parse_positional(signature))
    params = parse_signature(signature)
    both = sorted({p.name for p in params} & values.keys())
    if both:
        raise UsageError(
            f"{', '.join(both)} given both in --signature and as --constexpr",
            fix="a tl.constexpr argument goes only in --constexpr NAME=VALUE",
        )
    return KernelArgs(params, values)


def split_kernel_ref(text: str) -> tuple[str, str]:
    """`path/to/file.py::kernel` -> ("path/to/file.py", "kernel"). Pure; UsageError on other forms."""
    path, sep, kernel = text.rpartition("::")
    fix = "name the kernel as FILE.py::KERNEL, e.g. kernels/add.py::add_kernel"
    if not sep:
        raise UsageError(f"{text!r} names no kernel", fix=fix)
    if not path:
        raise UsageError(f"{text!r} names no file", fix=fix)
    if not _NAME.fullmatch(kernel):
        raise UsageError(f"{kernel!r} in {text!r} is not a kernel name", fix=fix)
    return path, kernel
