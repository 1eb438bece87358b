"""What a capture recorded about one kernel, read from its record.json: every field checked. Pure.

A record is outside input: the capture hook wrote it inside someone's program, and anyone may have edited
it since. `parse_record` accepts only the shapes the hook writes (bootstrap/core/target/scripts/
tritondev_capture_io.py) and keeps only the fields a repro uses, so whatever else a file holds never
reaches repro.py; anything else is a RecordError naming the field. File names a record points to are
fixed patterns inside the record's own folder.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from bootstrap.repro.fields import (  # RecordError: the error of every parser here
    BIG,
    IDENTIFIER,
    MAX_ARGS,
    RecordError,
    as_dict,
    as_int,
    as_name,
    as_text,
    fail,
    json_value,
    optional,
    parse_arg,
)

FORMAT = 1
RECORD_ID = re.compile(r"^[0-9]{1,10}-[0-9]{4,10}-[A-Za-z0-9_-]{1,80}$")
IO_FILE = re.compile(r"^io/[0-9]{1,6}\.(in|out)$")
IR_FILE = re.compile(r"^last-ir\.[A-Za-z0-9]{1,16}$")
TYPE_TEXT = re.compile(r"^[^\x00-\x1f\x7f]{1,200}$")
STATUSES = ("launching", "launched", "crashed", "compile-failed")
MODES = ("gpu", "interpreter", "compile")


@dataclass(frozen=True)
class Spec:
    """The specialization the kernel was compiled with (by argument name)."""

    arg_names: tuple[str, ...]
    signature: dict[str, str]
    constexprs: dict[str, Any]
    attrs: dict[str, list[list[Any]]]
    target: dict[str, Any] | None
    options: dict[str, Any]

    def to_launch(self) -> dict[str, Any]:
        return {
            "arg_names": list(self.arg_names),
            "signature": dict(self.signature),
            "constexprs": dict(self.constexprs),
            "target": self.target,
            "options": dict(self.options),
            "attrs": {k: [list(a) for a in v] for k, v in self.attrs.items()},
        }


def _target(value: object, where: str) -> dict[str, Any]:
    data = as_dict(value, where)
    backend = as_name(data.get("backend"), f"{where}.backend")
    arch = data.get("arch")
    if not (isinstance(arch, str) and IDENTIFIER.match(arch)):
        arch = as_int(arch, f"{where}.arch", 0, 100000)
    return {"backend": backend, "arch": arch, "warp_size": as_int(data.get("warp_size"), f"{where}.warp_size", 1, 1024)}


def parse_spec(value: object, where: str = "spec") -> Spec:
    data = as_dict(value, where)
    raw_names = data.get("arg_names")
    if not isinstance(raw_names, list) or len(raw_names) > MAX_ARGS:
        raise fail(f"{where}.arg_names", "not a list of argument names")
    names = tuple(as_name(n, f"{where}.arg_names[{i}]") for i, n in enumerate(raw_names))
    known = set(names)

    def by_name(key: str, parse: Any) -> dict[str, Any]:
        found = {}
        for name, item in as_dict(data.get(key, {}), f"{where}.{key}").items():
            if name not in known:
                raise fail(f"{where}.{key}", f"{name!r} is not an argument of the kernel")
            found[name] = parse(item, f"{where}.{key}.{name}")
        return found

    def attrs(item: object, at: str) -> list[list[Any]]:
        if not isinstance(item, list) or len(item) > 8:
            raise fail(at, "not a list of [attribute, value]")
        pairs = []
        for pair in item:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                raise fail(at, "not a list of [attribute, value]")
            pairs.append([as_text(pair[0], at, 100), as_int(pair[1], at, 0, 1 << 30)])
        return pairs

    def sig_type(item: object, at: str) -> str:
        text = as_text(item, at, 200)
        if not TYPE_TEXT.match(text):
            raise fail(at, "not a Triton type")
        return text

    options = {
        as_name(k, f"{where}.options"): json_value(v, f"{where}.options.{k}")
        for k, v in as_dict(data.get("options", {}), f"{where}.options").items()
    }
    return Spec(
        names,
        by_name("signature", sig_type),
        by_name("constexprs", json_value),
        by_name("attrs", attrs),
        optional(data.get("target"), _target, f"{where}.target"),
        options,
    )


@dataclass(frozen=True)
class IoStorage:
    """What --save-io kept of one tensor storage."""

    size: int
    inputs: str | None = None
    outputs: str | None = None
    changed: bool = False
    nonfinite_before: int | None = None
    nonfinite_after: int | None = None
    skipped: str | None = None

    def to_launch(self) -> dict[str, Any]:
        found: dict[str, Any] = {"bytes": self.size, "changed": self.changed}
        for key, value in (
            ("in", self.inputs),
            ("out", self.outputs),
            ("nonfinite_before", self.nonfinite_before),
            ("nonfinite_after", self.nonfinite_after),
            ("skipped", self.skipped),
        ):
            if value is not None:
                found[key] = value
        return found


def _io_file(value: object, where: str) -> str:
    text = as_text(value, where, 40)
    if not IO_FILE.match(text):
        raise fail(where, "not io/<n>.in or io/<n>.out")
    return text


def parse_io(value: object, where: str = "io") -> tuple[bool, dict[int, IoStorage]]:
    data = as_dict(value, where)
    storages = {}
    for key, item in as_dict(data.get("storages", {}), f"{where}.storages").items():
        at = f"{where}.storages.{key}"
        if not key.isdigit() or len(key) > 6:
            raise fail(at, "not a storage number")
        entry = as_dict(item, at)
        changed = entry.get("changed", False)
        if not isinstance(changed, bool):
            raise fail(f"{at}.changed", "not true or false")
        storages[int(key)] = IoStorage(
            as_int(entry.get("bytes"), f"{at}.bytes", 0, BIG),
            optional(entry.get("in"), _io_file, f"{at}.in"),
            optional(entry.get("out"), _io_file, f"{at}.out"),
            changed,
            optional(entry.get("nonfinite_before"), lambda v, w: as_int(v, w, 0, BIG), f"{at}.nonfinite_before"),
            optional(entry.get("nonfinite_after"), lambda v, w: as_int(v, w, 0, BIG), f"{at}.nonfinite_after"),
            optional(entry.get("skipped"), as_text, f"{at}.skipped"),
        )
    saved = data.get("saved", False)
    if not isinstance(saved, bool):
        raise fail(f"{where}.saved", "not true or false")
    return saved, storages


@dataclass(frozen=True)
class KernelRecord:
    """One capture record: a distinct launch of a kernel, or a compile of it that failed."""

    id: str
    kernel: str
    status: str
    mode: str
    launches: int
    autotuning: bool
    grid: tuple[int, int, int] | None
    args: tuple[dict[str, Any], ...]
    spec: Spec | None
    spec_problem: str | None
    io_saved: bool
    io: dict[int, IoStorage]
    metadata: dict[str, Any] = field(default_factory=dict)
    error: dict[str, Any] | None = None
    origin: dict[str, Any] = field(default_factory=dict)
    source_problems: tuple[str, ...] = ()
    versions: dict[str, str | None] = field(default_factory=dict)
    interpreter: dict[str, Any] | None = None
    captured_at: float = 0.0
    has_module: bool = False

    @property
    def origin_kind(self) -> str | int | None:
        """How the kernel was defined (`jit`, `inductor`, ...), as the capture recorded it."""
        return self.origin.get("kind")

    @property
    def origin_place(self) -> str:
        """`FILE:LINE (KIND)` of the kernel's definition."""
        return f"{self.origin.get('file')}:{self.origin.get('line')} ({self.origin.get('kind')})"

    @property
    def error_type(self) -> str | None:
        """The exception a failed compile (or launch) raised; None: none recorded."""
        return None if self.error is None else str(self.error.get("type"))

    @property
    def error_text(self) -> str | None:
        """`TYPE: MESSAGE` (the message's last 400 characters); None: none recorded."""
        if self.error is None:
            return None
        return f"{self.error.get('type')}: {str(self.error.get('message', '')).strip()[-400:]}"

    @property
    def stages_text(self) -> str | None:
        """The compile stages that ran and the one that failed; None when the failure names no stage."""
        if self.error is None or "failed_stage" not in self.error:
            return None
        done = " -> ".join(self.error.get("stages_done", [])) or "none"
        return f"{done}, failed at {self.error['failed_stage']}"

    @property
    def io_files(self) -> list[str]:
        return sorted({f for s in self.io.values() for f in (s.inputs, s.outputs) if f})

    def to_launch(self) -> dict[str, Any]:
        """What repro.py's LAUNCH holds: only checked fields."""
        return {
            "kernel": self.kernel,
            "status": self.status,
            "mode": self.mode,
            "grid": list(self.grid or ()),
            "args": [dict(a) for a in self.args],
            "spec": self.spec.to_launch() if self.spec else None,
            "metadata": dict(self.metadata),
            "interpreter": self.interpreter,
            "error": self.error,
            "io": {"saved": self.io_saved, "storages": {str(k): v.to_launch() for k, v in sorted(self.io.items())}},
        }


def _error(value: object) -> dict[str, Any]:
    data = as_dict(value, "error")
    found: dict[str, Any] = {
        "type": as_text(data.get("type", "?"), "error.type", 200),
        "message": as_text(data.get("message", ""), "error.message"),
    }
    if "stages_done" in data:
        stages = data["stages_done"]
        if not isinstance(stages, list) or len(stages) > 32:
            raise fail("error.stages_done", "not a list of stages")
        found["stages_done"] = [as_text(s, "error.stages_done", 40) for s in stages]
    if "failed_stage" in data:
        found["failed_stage"] = as_text(data["failed_stage"], "error.failed_stage", 100)
    if data.get("ir_file") is not None:
        ir_file = as_text(data["ir_file"], "error.ir_file", 40)
        if not IR_FILE.match(ir_file):
            raise fail("error.ir_file", "not last-ir.<stage>")
        found["ir_file"] = ir_file
    return found


def _strings(value: object, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
    data = as_dict(value or {}, where)
    found: dict[str, Any] = {}
    for key in keys:
        item = data.get(key)
        if isinstance(item, (str, int)) and not isinstance(item, bool):
            found[key] = item if isinstance(item, int) else as_text(item, f"{where}.{key}", 4096)
    return found


def _metadata(value: object) -> dict[str, Any]:
    data = as_dict(value or {}, "metadata")
    found = {}
    for key, item in data.items():
        if IDENTIFIER.match(str(key)):
            try:
                at = f"metadata.{key}"
                found[key] = _target(item, at) if key == "target" else json_value(item, at)
            except RecordError:
                continue  # metadata is shown, never replayed from: an odd field is left out
    return found


def parse_record(value: object) -> KernelRecord:
    data = as_dict(value, "record")
    if data.get("format") != FORMAT:
        raise fail("format", f"not {FORMAT} (a capture of another tritondev version?)")
    record_id = as_text(data.get("id"), "id", 120)
    if not RECORD_ID.match(record_id):
        raise fail("id", "not <pid>-<n>-<name>")
    status, mode = data.get("status"), data.get("mode")
    if status not in STATUSES or mode not in MODES:
        raise fail("status" if status not in STATUSES else "mode", "not a known value")
    raw_args = data.get("args", [])
    if not isinstance(raw_args, list) or len(raw_args) > MAX_ARGS:
        raise fail("args", f"not a list of at most {MAX_ARGS} arguments")
    saved, io = parse_io(data.get("io", {}))
    args = tuple(parse_arg(a, f"args[{i}]", len(raw_args)) for i, a in enumerate(raw_args))
    grid = data.get("grid")
    if grid is not None:
        if not isinstance(grid, list) or len(grid) != 3:
            raise fail("grid", "not three integers")
        grid = tuple(as_int(g, "grid", 0, (1 << 31) - 1) for g in grid)
    spec = optional(data.get("spec"), parse_spec, "spec")
    if status == "compile-failed" and spec is None:
        raise fail("spec", "a failed compile without its specialization")
    if status != "compile-failed" and grid is None:
        raise fail("grid", "a launch without its grid")
    autotuning = data.get("autotuning", False)
    source = as_dict(data.get("source") or {}, "source")
    problems = source.get("problems", [])
    return KernelRecord(
        id=record_id,
        kernel=as_name(data.get("kernel"), "kernel"),
        status=status,
        mode=mode,
        launches=as_int(data.get("launches", 0), "launches", 0, BIG),
        autotuning=autotuning is True,
        grid=grid,
        args=args,
        spec=spec,
        spec_problem=optional(data.get("spec_problem"), as_text, "spec_problem"),
        io_saved=saved,
        io=io,
        metadata=_metadata(data.get("metadata")),
        error=optional(data.get("error"), lambda v, w: _error(v), "error"),
        origin=_strings(data.get("origin"), "origin", ("kind", "file", "line", "module", "name")),
        source_problems=tuple(as_text(p, "source.problems", 1000) for p in problems)
        if isinstance(problems, list)
        else (),
        versions=_strings(data.get("versions"), "versions", ("python", "triton", "torch")),
        interpreter=_interpreter(data.get("interpreter")),
        captured_at=float(data["captured_at"])
        if isinstance(data.get("captured_at"), (int, float)) and math.isfinite(data["captured_at"])
        else 0.0,
        has_module=data.get("module_file") == "module.py",
    )


def _interpreter(value: object) -> dict[str, Any] | None:
    if value is None:
        return None
    data = as_dict(value, "interpreter")
    names = data.get("constexprs", [])
    if not isinstance(names, list) or len(names) > MAX_ARGS:
        raise fail("interpreter.constexprs", "not a list of names")
    return {
        "constexprs": [as_name(n, "interpreter.constexprs") for n in names],
        "options": {
            as_name(k, "interpreter.options"): json_value(v, f"interpreter.options.{k}")
            for k, v in as_dict(data.get("options", {}), "interpreter.options").items()
        },
    }
