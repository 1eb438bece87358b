"""The one rule for CMake build folders configured again: a configure input that differs from what the
folder's CMakeCache.txt holds starts the folder from a fresh cache, never a stale one.

Why: CMake keeps what an earlier configure found or was given unless told otherwise. Triton's
CMakeLists.txt derives MLIR_DIR from LLVM_LIBRARY_DIR, and MLIRConfig.cmake's
`find_package(LLVM ... CONFIG HINTS ...)` caches LLVM_DIR, so a folder configured again against another
LLVM tree keeps the first LLVM (and links it). From 3.7 TRITON_OFFLINE_BUILD, JSON_SYSPATH and the
TRITON_*_PATH tool overrides are cache options that setup.py passes only when set, so a later online
build stays offline; the sanitizer and lld flags, the compiler and the ccache launcher stay as the
first configure left them. The same holds for an LLVM build folder whose launcher, linker or flags
change.

`decide` is pure: what this configure needs each cache entry to be (`Expect`, built for a Triton
folder by bootstrap.pipeline.host.triton_configure, for an LLVM folder by `llvm_expectations`) against the cache as read
(`CacheView`), to a `CacheDecision` whose reason leads the step's reason ("LLVM changed: fresh CMake
cache"). `read_cache` and `start_fresh` are the read and the one write: `start_fresh` removes exactly
`<folder>/CMakeCache.txt` and `<folder>/CMakeFiles` (a link there is removed as a link, never
followed), what `cmake --fresh` itself discards; object files stay, so ninja and ccache keep the
rebuild cheap. tritondev runs LLVM's configure itself and passes `--fresh` where CMake has it (3.24
on); setup.py runs Triton's configure, so that folder's cache files are removed before pip runs.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Literal

from bootstrap.core.fsutil import read_regular_text

CACHE_FILE = "CMakeCache.txt"
CACHE_FOLDER = "CMakeFiles"
FRESH_SINCE = (3, 24)  # `cmake --fresh`


class Input(str, Enum):
    """What a changed cache entry stands for; its value names it in the step's reason."""

    SOURCE = "source folder"
    LLVM = "LLVM"
    OFFLINE = "offline build"
    TOOLS = "tool paths"
    SANITIZER = "sanitizer"
    COMPILER = "compiler"
    LINKER = "linker"
    LAUNCHER = "compiler launcher"
    BUILD_TYPE = "build type"
    BACKENDS = "backends"
    OPTIONS = "build options"
    FLAGS = "configure flags"


# equals: the entry holds `value` (an absent or empty entry counts as "" unless `if_present`);
# path: the same, compared as resolved paths; under: a path inside the folder `value` (a cached program
# resolves through its links: bin/clang++ -> bin/clang); switch: an ON/OFF value, compared as such;
# has_flag / lacks_flag: a flags string holds, or does not hold, the word `value`.
Kind = Literal["equals", "path", "under", "switch", "has_flag", "lacks_flag"]


@dataclass(frozen=True)
class Expect:
    """One cache entry and what this configure needs it to be."""

    name: str
    input: Input
    kind: Kind
    value: str = ""
    if_present: bool = False  # an absent (or empty) entry is fine: this configure does not set it


@dataclass(frozen=True)
class CacheView:
    """A folder's CMakeCache.txt as read: NAME -> value, paths resolved (see `read_cache`)."""

    folder: Path
    values: Mapping[str, str]


@dataclass(frozen=True)
class Change:
    name: str
    input: Input
    cached: str
    wanted: str

    def describe(self) -> str:
        return f"{self.name}: {self.cached or '(unset)'} -> {self.wanted or '(unset)'}"


@dataclass(frozen=True)
class CacheDecision:
    """Reuse the folder's cache, or start it fresh (`changes` say why)."""

    changes: tuple[Change, ...] = ()

    @property
    def fresh(self) -> bool:
        return bool(self.changes)

    @property
    def inputs(self) -> tuple[Input, ...]:
        return tuple(dict.fromkeys(c.input for c in self.changes))

    @property
    def reason(self) -> str:
        if not self.changes:
            return "the CMake cache agrees with this configure"
        return f"{', '.join(i.value for i in self.inputs)} changed: fresh CMake cache"

    def to_json(self) -> dict[str, object]:
        return {"fresh": self.fresh, "reason": self.reason, "changes": [c.describe() for c in self.changes]}


@dataclass(frozen=True)
class FreshStart:
    """A folder that starts from a fresh cache, why, and how: `cmake --fresh` in the configure command
    (`by_argument`), else its cache files removed before the configure."""

    folder: Path
    decision: CacheDecision
    by_argument: bool = False

    def notice(self) -> str:
        shown = "; ".join(c.describe() for c in self.decision.changes[:3])
        more = f" (and {len(self.decision.changes) - 3} more)" if len(self.decision.changes) > 3 else ""
        return f"{self.folder}: {self.decision.reason} ({shown}{more})"


_TRUE = {"1", "on", "yes", "true", "y"}


def is_on(value: str) -> bool:
    """An ON/OFF cache value (or a variable setup.py reads with check_env_flag) as a boolean."""
    return value.strip().lower() in _TRUE


def _words(value: str) -> set[str]:
    return set(value.split())


def _mismatch(expect: Expect, cached: str | None) -> Change | None:
    have = (cached or "").strip()
    if expect.if_present and not have:
        return None
    if expect.kind == "switch":
        differs = is_on(have) != is_on(expect.value)
    elif expect.kind == "path":
        differs = os.path.normpath(have) != os.path.normpath(expect.value) if have or expect.value else False
    elif expect.kind == "under":
        root = os.path.normpath(expect.value)
        differs = not have.startswith("/") or os.path.commonpath([os.path.normpath(have), root]) != root
    elif expect.kind == "has_flag":
        differs = expect.value not in _words(have)
    elif expect.kind == "lacks_flag":
        differs = expect.value in _words(have)
    else:
        differs = have != expect.value
    if not differs:
        return None
    wanted = (
        expect.value
        if expect.kind in ("equals", "path", "switch")
        else f"inside {expect.value}"
        if (expect.kind == "under")
        else (f"with {expect.value}" if expect.kind == "has_flag" else f"without {expect.value}")
    )
    return Change(expect.name, expect.input, have, wanted)


def decide(expectations: Iterable[Expect], cache: CacheView | None) -> CacheDecision:
    """Fresh when any entry differs from what this configure needs; reuse otherwise, and when the folder
    has no cache yet (its first configure starts fresh anyway). Pure."""
    if cache is None:
        return CacheDecision()
    changes = [c for c in (_mismatch(e, cache.values.get(e.name)) for e in expectations) if c is not None]
    return CacheDecision(tuple(changes))


# -- what a configure needs --------------------------------------------------------------------------

# LLVM entries a configure sets only in some runs: unset when this run does not pass them.
_LLVM_SOMETIMES = {
    "CMAKE_C_COMPILER_LAUNCHER": Input.LAUNCHER,
    "CMAKE_CXX_COMPILER_LAUNCHER": Input.LAUNCHER,
    "LLVM_ENABLE_LLD": Input.LINKER,
    "LLVM_USE_SPLIT_DWARF": Input.FLAGS,
}
_LLVM_KIND: Mapping[str, Input] = {
    "CMAKE_C_COMPILER": Input.COMPILER,
    "CMAKE_CXX_COMPILER": Input.COMPILER,
    "CMAKE_BUILD_TYPE": Input.BUILD_TYPE,
    **_LLVM_SOMETIMES,
}
_SWITCH_VALUES = {"ON", "OFF"}


def llvm_expectations(
    source: Path, cache_args: Sequence[tuple[str, str]], volatile: Iterable[str] = ()
) -> list[Expect]:
    """An LLVM build folder: every -D the configure passes, as given (paths resolved by the caller), the
    entries it passes only sometimes unset when it does not, and its source folder."""
    skip = set(volatile)
    out = [Expect("CMAKE_HOME_DIRECTORY", Input.SOURCE, "path", str(source), if_present=True)]
    given = dict(cache_args)
    for name, value in cache_args:
        if name in skip:
            continue
        kind: Kind = "switch" if value.upper() in _SWITCH_VALUES else "path" if value.startswith("/") else "equals"
        out.append(Expect(name, _LLVM_KIND.get(name, Input.FLAGS), kind, value))
    for name, what in _LLVM_SOMETIMES.items():
        if name not in given:
            out.append(Expect(name, what, "switch" if name.startswith("LLVM_") else "path", ""))
    return out


# -- the read and the write ----------------------------------------------------------------------------


def resolve_path(value: str, path: str | None = None) -> str:
    """An absolute path as the file system has it (links resolved); a bare program name as `path` (PATH)
    finds it; anything else as it is."""
    if not value:
        return value
    if value.startswith("/"):
        return os.path.realpath(value)
    if "/" not in value:
        found = shutil.which(value, path=path)
        return os.path.realpath(found) if found else value
    return value


def _resolved(value: str, kind: str) -> str:
    """A cache entry's value with its paths resolved: PATH and FILEPATH entries, the absolute paths of
    the others, and a bare program name given on the command line (UNINITIALIZED: `clang++`)."""
    if not value or ";" in value:
        return value
    if kind in ("PATH", "FILEPATH", "UNINITIALIZED") or value.startswith("/"):
        return resolve_path(value) if kind != "STRING" or value.startswith("/") else value
    return value


def read_cache(folder: Path) -> CacheView | None:
    """The folder's CMakeCache.txt (a regular file only), or None when it has none."""
    try:
        text = read_regular_text(folder / CACHE_FILE)
    except OSError:
        return None
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith(("#", "//")) or "=" not in line:
            continue
        name_type, value = line.split("=", 1)
        name, _, kind = name_type.partition(":")
        values[name] = _resolved(value, kind)
    return CacheView(folder, values)


def fresh_argument(cmake_version: str) -> bool:
    """Whether this cmake has `--fresh` (3.24 on)."""
    parts = [int(p) for p in cmake_version.split(".")[:2] if p.isdigit()]
    return len(parts) == 2 and (parts[0], parts[1]) >= FRESH_SINCE


def start_fresh(folder: Path) -> list[Path]:
    """Remove `<folder>/CMakeCache.txt` and `<folder>/CMakeFiles`, and nothing else: a link at either
    place is removed as a link (its target stays); a folder that is itself a link is left alone (the
    cache is not where the rule looked). Returns what was removed."""
    if folder.is_symlink() or not folder.is_dir():
        return []
    removed: list[Path] = []
    cache = folder / CACHE_FILE
    if cache.is_symlink() or cache.is_file():
        cache.unlink()
        removed.append(cache)
    files = folder / CACHE_FOLDER
    if files.is_symlink() or files.is_file():
        files.unlink()
        removed.append(files)
    elif files.is_dir():
        shutil.rmtree(files)  # rmtree removes links inside as links, never what they point to
        removed.append(files)
    return removed


def fresh_for_llvm(
    folder: Path, source: Path, cache_args: Sequence[tuple[str, str]], cmake_version: str, volatile: Iterable[str] = ()
) -> FreshStart | None:
    """An LLVM build folder configured outside setup's plan (`bisect llvm`'s), likewise."""
    cache = read_cache(folder)
    if cache is None:
        return None
    args = [(name, resolve_path(value) if value.startswith("/") else value) for name, value in cache_args]
    decision = decide(llvm_expectations(Path(resolve_path(str(source / "llvm"))), args, volatile), cache)
    return FreshStart(folder, decision, fresh_argument(cmake_version)) if decision.fresh else None
