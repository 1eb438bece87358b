"""A repro folder's repro.py, from one checked record: its header, the commands around it, LAUNCH. Pure.

repro.py = comment lines (what was captured; the `tritondev compile`, `run --dump-ir` and `bisect` lines
for this folder) + `LAUNCH = <the record as a Python literal>` + the runner body (bootstrap/core/target/scripts/
tritondev_repro_runner.py below its marker line). LAUNCH comes from KernelRecord.to_launch, whose
values are checked JSON values, written with pprint: a string in it is a Python string literal, so no
text of a record can become code. Header lines drop control characters, so none can end a comment.
"""

from __future__ import annotations

import pprint
import shlex
from pathlib import Path
from typing import Any

from bootstrap.kernels.signature import SCALAR_TYPES
from bootstrap.repro.records import KernelRecord

RUNNER_MARKER = "# ---- repro.py ----"
# torch dtype -> Triton's type name, for a `--signature` derived from an interpreter launch's arguments.
TRITON_TYPES = {
    "float32": "fp32",
    "float16": "fp16",
    "bfloat16": "bf16",
    "float64": "fp64",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "bool": "i1",
    "float8_e4m3fn": "fp8e4nv",
    "float8_e5m2": "fp8e5",
}


def _clean(text: object) -> str:
    return "".join(c if c.isprintable() else " " for c in str(text))


def runner_body(runner_source: str) -> str:
    """The part of the runner script that goes into every repro.py."""
    if RUNNER_MARKER not in runner_source:
        raise ValueError("the runner script has no marker line")
    return runner_source.split(RUNNER_MARKER, 1)[1].lstrip("\n")


def target_label(record: KernelRecord) -> str | None:
    target = (record.spec.target if record.spec else None) or record.metadata.get("target")
    if not isinstance(target, dict):
        return None
    return f"{target['backend']}:{target['arch']}"


def _value_text(value: Any) -> str | None:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return None


def _signature_items(record: KernelRecord) -> tuple[list[str], dict[str, Any], str | None]:
    """(name=type[:16] entries, constexprs, why none can be given)."""
    if record.spec is not None:
        divisible = {n for n, attrs in record.spec.attrs.items() if ["tt.divisibility", 16] in attrs}
        signature = record.spec.signature
        items = [
            f"{n}={signature[n]}" + (":16" if n in divisible else "") for n in record.spec.arg_names if n in signature
        ]
        types = list(record.spec.signature.values())
        return items, dict(record.spec.constexprs), _unknown_types(types)
    constexpr_names = set((record.interpreter or {}).get("constexprs", []))
    items, constexprs, types = [], {}, []
    for arg in record.args:
        if arg["name"] in constexpr_names:
            constexprs[arg["name"]] = arg.get("value")
        elif arg["kind"] == "tensor":
            types.append("*" + TRITON_TYPES.get(arg["dtype"], arg["dtype"]))
            items.append(f"{arg['name']}={types[-1]}" + (":16" if arg.get("aligned16") else ""))
        elif arg["kind"] in ("int", "bool", "float"):
            types.append({"int": "i32", "bool": "i1", "float": "fp32"}[arg["kind"]])
            items.append(f"{arg['name']}={types[-1]}")
        else:
            return [], {}, f"argument {arg['name']} is not a tensor or a number"
    return items, constexprs, _unknown_types(types)


def _unknown_types(types: list[str]) -> str | None:
    unknown = sorted({t for t in types if t.lstrip("*").removeprefix("k") not in SCALAR_TYPES})
    return f"types `tritondev compile` does not take: {', '.join(unknown)}" if unknown else None


def compile_line(record: KernelRecord, folder: Path) -> tuple[str | None, str | None]:
    """The `tritondev compile` line that cross-compiles this kernel at its specialization, or why there is none."""
    items, constexprs, problem = _signature_items(record)
    if problem:
        return None, problem
    words = ["tritondev", "compile", f"{folder / 'kernel.py'}::{record.kernel}", "--signature", ",".join(items)]
    for name, value in constexprs.items():
        text = _value_text(value)
        if text is None:
            return None, f"the constexpr {name} is not a number, boolean or none"
        words += ["--constexpr", f"{name}={text}"]
    words += ["--target", target_label(record) or "cuda:90"]
    options = record.spec.options if record.spec else (record.interpreter or {}).get("options", {})
    for option in ("num_warps", "num_stages"):
        value = options.get(option, record.metadata.get(option))
        if isinstance(value, int) and not isinstance(value, bool):
            words += [f"--{option.replace('_', '-')}", str(value)]
    return " ".join(shlex.quote(w) for w in words), None


def launch_summary(record: KernelRecord) -> str:
    """grid, config and argument shapes in one line."""
    if record.status == "compile-failed":
        error = record.error or {}
        return f"compile failed ({error.get('type', '?')} at stage {error.get('failed_stage', '?')})"
    config = config_text(record)
    shapes = ", ".join(arg_text(a) for a in record.args)
    return f"grid {tuple(record.grid or ())}, {config}; {shapes}"


def config_text(record: KernelRecord) -> str:
    constexprs = (
        record.spec.constexprs
        if record.spec
        else {
            a["name"]: a.get("value")
            for a in record.args
            if a["name"] in (record.interpreter or {}).get("constexprs", [])
        }
    )
    parts = [f"{k}={v}" for k, v in constexprs.items()]
    for option in ("num_warps", "num_stages", "num_ctas"):
        value = record.metadata.get(option, (record.spec.options if record.spec else {}).get(option))
        if value is not None and not (option == "num_ctas" and value == 1):
            parts.append(f"{option}={value}")
    return ", ".join(parts) or "no constexprs"


def arg_text(arg: dict[str, Any]) -> str:
    if arg["kind"] == "tensor":
        return f"{arg['name']}: {arg['dtype']}{list(arg['shape'])}"
    if arg["kind"] in ("int", "float", "bool", "constant"):
        return f"{arg['name']}={arg.get('value')}"
    return f"{arg['name']}: {arg['kind']}"


def header(record: KernelRecord, folder: Path, captured_by: str) -> list[str]:
    versions = record.versions
    compile_text, why = compile_line(record, folder)
    inputs = (
        "recorded values (io/)"
        if record.io_files
        else "deterministic random data of the recorded shapes, strides and dtypes"
    )
    checks = "a crash or compile error"
    if any(s.outputs or s.inputs for s in record.io.values()):
        checks += "; a mismatch against the recorded outputs; NaN/Inf where the recording had none"
    origin = record.origin
    lines = [
        f"Standalone repro of the Triton kernel {record.kernel}, written by tritondev repro make.",
        f"Captured: {captured_by}",
        f"Kernel:   {record.kernel} in kernel.py, from {origin.get('file', '?')}:{origin.get('line', '?')} "
        f"({origin.get('kind', 'triton')}); Triton {versions.get('triton')}, torch {versions.get('torch')}, "
        f"{record.mode}" + (f" {target_label(record)}" if target_label(record) else ""),
        f"Launch:   {launch_summary(record)}",
        f"Inputs:   {inputs}",
        f"Checks:   {checks}",
        "",
        "Run:      python repro.py [--json] [--jit] [--random]",
        "          exit 0: good (symptom absent), 1: bad (it reproduces), 125: cannot run with this Triton",
        f"Compile:  {compile_text}" if compile_text else f"Compile:  no `tritondev compile` line: {why}",
        f"Dump IR:  tritondev run --dump-ir -- python {folder / 'repro.py'}",
        f"Bisect:   tritondev bisect triton --good GOOD --bad BAD -- python {folder / 'repro.py'}",
    ]
    if compile_text and target_label(record) is None:
        lines.insert(
            lines.index(f"Compile:  {compile_text}") + 1,
            "          (no target was recorded: cuda:90 stands for the one you want)",
        )
    if record.mode == "interpreter":
        lines.insert(
            4,
            "          (captured under TRITON_INTERPRET=1: repro.py runs the interpreter too, unless "
            "TRITON_INTERPRET is set otherwise)",
        )
    if record.source_problems:
        lines.append("Warning:  kernel.py could not copy everything the kernel refers to (see its docstring)")
    return [_clean(line) for line in lines]


def repro_text(record: KernelRecord, folder: Path, captured_by: str, runner_source: str) -> str:
    comments = "\n".join(f"# {line}".rstrip() for line in header(record, folder, captured_by))
    launch = pprint.pformat(record.to_launch(), indent=1, width=116, sort_dicts=False)
    return f"#!/usr/bin/env python3\n{comments}\n\nLAUNCH = {launch}\n\n\n{runner_body(runner_source)}"
