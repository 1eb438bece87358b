"""Triton build folders kept per LLVM while a bisect crosses an LLVM bump.

setup.py builds in one folder (`build/cmake.<platform>-<X.Y>`). Configured against one LLVM build, it
starts from a fresh CMake cache for another (bootstrap.pipeline.host.fresh_cache), and then every
Triton file compiles again: at the first step past a bump, at each step that crosses it back, and at
the end, when the starting build is installed again. The bisect parks the folder instead, under the
LLVM it was configured against (`build/.tritondev-bisect-<12 hex of that LLVM build's path>`, beside
it), and puts back the folder of the LLVM a step needs when there is one: going back to an LLVM then
rebuilds only what the commits changed.

The LLVM a step needs is the one setup built for its pin, learnt at each step (the starting one from
the setup state). Setup's own rule still judges the folder it finds, so a wrong guess costs a fresh
cache, never a wrong build. The libraries ninja writes outside the folder (into setup.py's
CMAKE_LIBRARY_OUTPUT_DIRECTORY, the package's `_C`) are the other folder's when one comes back: those
that its build.ninja names are removed, so that ninja links them again.

What it may touch: only folders it made under the checkout's `build/` (named in
`<workspace>/state/bisect-builds.json`, which also names the pin each LLVM was built for), setup.py's
build folder (renamed, never deleted), and the libraries of the library output folder that the
returning folder's build.ninja names. The parked folders are removed when the bisect ends.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

from bootstrap.core.fsutil import parse_json, read_regular
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.writes import replace_json
from bootstrap.pipeline.host.buildtree import llvm_build_of, read_cmake_cache, setup_py_build_folder

PREFIX = ".tritondev-bisect-"
_LIBRARY_SUFFIXES = (".so", ".dylib", ".pyd")


def parked_name(llvm_build: str) -> str:
    """The name of a folder parked for the LLVM build at `llvm_build`. Pure."""
    return PREFIX + hashlib.sha256(llvm_build.encode()).hexdigest()[:12]


class BuildFolders:
    """setup.py's build folder, parked and put back per LLVM build across the steps of one bisect."""

    def __init__(self, state_dir: Path) -> None:
        self.record = StateFiles(state_dir).bisect_builds
        data = _read(self.record)
        self.learnt: dict[str, str] = dict(data.get("learnt", {}))  # LLVM pin -> the LLVM build setup used
        self.parked: dict[str, str] = dict(data.get("parked", {}))  # LLVM build -> its parked folder
        self.start: str | None = data.get("start", {}).get("pin")  # the starting build's pin

    def begin(self, pin: str | None, llvm_build: Path | None) -> None:
        """The starting build: its pin and LLVM (the first one seen is the start, also when resumed)."""
        if self.start is None and pin:
            self.start = pin
        self.learn(pin, llvm_build)

    def learn(self, pin: str | None, llvm_build: Path | None) -> None:
        """The LLVM build setup used for `pin` (from its state after a run)."""
        if pin and llvm_build is not None and self.learnt.get(pin) != str(llvm_build):
            self.learnt[pin] = str(llvm_build)
        self._write()

    def prepare(self, setup_dir: Path, python_version: str, pin: str | None) -> None:
        """Before setup runs for a commit pinning `pin`: park the folder when it was configured against
        another LLVM, and put back the one configured against this pin's LLVM when it is parked."""
        wanted = self.learnt.get(pin or "")
        folder = setup_py_build_folder(setup_dir, python_version)
        current = llvm_build_of(folder) if folder is not None else None
        if (
            folder is not None
            and current is not None
            and current != wanted
            and (wanted is not None or current in self.learnt.values())
        ):
            self._park(folder, current)
        if wanted is None or current == wanted or wanted not in self.parked:
            return
        self._put_back(Path(self.parked[wanted]), setup_dir, python_version, wanted)

    def discard(self) -> None:
        """The parked folders removed (only those this record names), and the record."""
        for path in map(Path, self.parked.values()):
            if path.name.startswith(PREFIX) and path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
        self.record.unlink(missing_ok=True)
        self.parked = {}

    def _park(self, folder: Path, llvm_build: str) -> None:
        target = folder.parent / parked_name(llvm_build)
        if os.path.lexists(target):
            shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
        os.rename(folder, target)
        self.parked[llvm_build] = str(target)
        self._write()

    def _put_back(self, parked: Path, setup_dir: Path, python_version: str, llvm_build: str) -> None:
        if not parked.is_dir() or parked.is_symlink() or setup_py_build_folder(setup_dir, python_version) is not None:
            return  # gone, or the place is taken: setup's own rule decides
        home = _home_of(parked)
        if home is None or home.parent != parked.parent:
            return
        os.rename(parked, home)
        del self.parked[llvm_build]
        self._write()
        _remove_outputs_outside(home)

    def _write(self) -> None:
        replace_json(self.record, {"learnt": self.learnt, "parked": self.parked, "start": {"pin": self.start or ""}})


def _home_of(parked: Path) -> Path | None:
    """Where a parked folder came from: the build folder its CMakeCache.txt was written for."""
    home = read_cmake_cache(parked / "CMakeCache.txt").get("CMAKE_CACHEFILE_DIR")
    return Path(home) if home else None


def _remove_outputs_outside(folder: Path) -> None:
    """The libraries its build.ninja writes into the library output folder were linked by another build
    folder since: removed, so that ninja links them again (it would take the newer file as up to date)."""
    out = read_cmake_cache(folder / "CMakeCache.txt").get("CMAKE_LIBRARY_OUTPUT_DIRECTORY")
    if not out or not Path(out).is_dir():
        return
    try:
        rules = read_regular(folder / "build.ninja", limit=1 << 30)
    except OSError:
        return
    for entry in Path(out).iterdir():
        if (
            entry.suffix in _LIBRARY_SUFFIXES
            and not entry.is_symlink()
            and entry.is_file()
            and str(entry).encode() in rules
        ):
            entry.unlink()


def _read(path: Path) -> dict[str, Any]:
    try:
        data = parse_json(read_regular(path, limit=1 << 20).decode("utf-8"))
    except (OSError, ValueError, RecursionError, UnicodeDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        key: {str(k): str(v) for k, v in value.items()}
        for key, value in data.items()
        if key in ("learnt", "parked", "start") and isinstance(value, dict)
    }
