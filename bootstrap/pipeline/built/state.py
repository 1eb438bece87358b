"""What a finished `tritondev setup` leaves for `tritondev build`: <workspace>/state/setup.json.

One typed record with a schema version: where Triton's checkout and setup.py are, the interpreter
it was installed into, the LLVM build, and the exact pip install command (with its environment) that
`build` runs again when the install is out of date. Whether it is out of date is not in this file:
that is the triton-install step's record (bootstrap.pipeline.built.records), the same one setup
reads.

A file that is not valid JSON, has another schema, or lacks a field is refused with one clear
line (exit 2) and the fix "run `tritondev setup` again", never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap.core.errors import UsageError
from bootstrap.core.fsutil import parse_json, read_regular
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.writes import replace_json
from bootstrap.pipeline.host.toolchain import Tool
from bootstrap.pipeline.recipe.inputs import Command

KIND = "tritondev-setup-state"
SCHEMA = 1


class StateError(UsageError):
    """The state file cannot be read as this version's setup state (exit 2)."""


class _Bad(Exception):
    """Why one field is not what the schema says (turned into a StateError with the file's path)."""


@dataclass(frozen=True)
class SetupState:
    triton_src: Path
    setup_dir: Path  # where setup.py is
    python: Path  # the interpreter Triton was installed into
    python_origin: str  # how it was chosen ("--python", "workspace venv", ...)
    llvm_build: Path
    triton_commit: str
    install: Command  # the pip install command setup ran (`build` runs it again when needed)
    ccache: Tool | None  # the compiler launcher the build uses, with its version
    schema: int = SCHEMA
    llvm_pin: str | None = None  # the LLVM commit the checkout pinned when setup built it (None: an older state)

    def to_json(self) -> dict[str, object]:
        return {
            "kind": KIND,
            "schema": self.schema,
            "triton_src": str(self.triton_src),
            "setup_dir": str(self.setup_dir),
            "python": str(self.python),
            "python_origin": self.python_origin,
            "llvm_build": str(self.llvm_build),
            "triton_commit": self.triton_commit,
            # env as [name, value] pairs: the order the command sets them in is kept
            "install": {
                "step": self.install.step,
                "argv": list(self.install.argv),
                "cwd": self.install.cwd,
                "env": [list(pair) for pair in self.install.env],
                "unset": list(self.install.unset),
            },
            "ccache": self.ccache.to_json() if self.ccache is not None else None,
            "llvm_pin": self.llvm_pin,
        }

    @staticmethod
    def from_json(data: object) -> SetupState:
        """The state in `data`; _Bad naming the first thing that is wrong."""
        if not isinstance(data, dict):
            raise _Bad("not a JSON object")
        if data.get("kind") != KIND:
            raise _Bad("not written by tritondev setup")
        if type(data.get("schema")) is not int or data.get("schema") != SCHEMA:
            raise _Bad(f"schema {data.get('schema')!r}, this tritondev reads schema {SCHEMA}")
        ccache = data.get("ccache")
        return SetupState(
            triton_src=_path(data, "triton_src"),
            setup_dir=_path(data, "setup_dir"),
            python=_path(data, "python"),
            python_origin=_text(data, "python_origin"),
            llvm_build=_path(data, "llvm_build"),
            triton_commit=_text(data, "triton_commit"),
            install=_command(_object(data, "install")),
            ccache=None if ccache is None else _tool(_object(data, "ccache")),
            llvm_pin=_optional_text(data, "llvm_pin"),
        )


def _object(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise _Bad(f"{key!r} is not an object")
    return value


def _text(data: Mapping[str, Any], key: str, *, empty: bool = False) -> str:
    value = data.get(key)
    if not isinstance(value, str) or (not value and not empty):
        raise _Bad(f"{key!r} is not a non-empty string")
    return value


def _optional_text(data: Mapping[str, Any], key: str) -> str | None:
    return None if data.get(key) is None else _text(data, key)


def _path(data: Mapping[str, Any], key: str) -> Path:
    value = _text(data, key)
    if not value.startswith("/") or "\0" in value:
        raise _Bad(f"{key!r} is not an absolute path")
    return Path(value)


def _strings(value: object, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Bad(f"{key!r} is not a list of strings")
    return tuple(value)


def _command(data: Mapping[str, Any]) -> Command:
    argv = _strings(data.get("argv"), "install.argv")
    env = data.get("env")
    cwd = data.get("cwd")
    if not argv or not all(argv):
        raise _Bad("'install.argv' is empty")
    if not isinstance(env, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(v, str) for v in p) for p in env
    ):
        raise _Bad("'install.env' is not a list of [name, value] strings")
    if cwd is not None and not isinstance(cwd, str):
        raise _Bad("'install.cwd' is not a string")
    pairs = tuple((name, value) for name, value in env)
    return Command(_text(data, "step"), argv, cwd, pairs, _strings(data.get("unset"), "install.unset"))


def _tool(data: Mapping[str, Any]) -> Tool:
    return Tool(_text(data, "name"), _text(data, "path"), _text(data, "version"))


def state_path(state_dir: Path) -> Path:
    return StateFiles(state_dir).setup


def read_state(state_dir: Path) -> SetupState | None:
    """The state of the last finished setup; None when there is none; StateError when it is unreadable."""
    path = state_path(state_dir)
    try:
        raw = read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _refused(path, f"cannot be read: {exc.strerror}") from None
    return parse_state(raw, path)


def parse_state(raw: bytes, path: Path) -> SetupState:
    """The state in the bytes of the file at `path`; StateError naming what is wrong."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _refused(path, "cannot be read: not UTF-8 text") from None
    try:
        data = parse_json(text)
    except (ValueError, RecursionError):
        raise _refused(path, "not valid JSON") from None
    try:
        return SetupState.from_json(data)
    except _Bad as exc:
        raise _refused(path, str(exc)) from None


def _refused(path: Path, why: str) -> StateError:
    return StateError(
        f"{path} is not a setup state this tritondev can read ({why})",
        fix="run `tritondev setup` again (it rewrites the file)",
    )


def write_state(state_dir: Path, state: SetupState) -> None:
    replace_json(state_path(state_dir), state.to_json())
