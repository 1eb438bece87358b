"""What a Triton commit looks like: pure functions over its files, one per fact.

Triton moved things around over the years (triton-build-facts.md, section 1.1):
- setup.py under python/ (<= 3.3) or at the root (>= 3.4);
- the LLVM pin in cmake/llvm-hash.txt (<= 3.7) or cmake/llvm-info.json (>= 3.8). Beside it,
  cmake/llvm-build-info.json (3.8 on) is the input of the workflow that builds the prebuilt LLVM: it
  runs ahead of the pin during an LLVM bump (triton-lang/triton PR #11160) and may name a fork
  (triton-lang/llvm-project); scripts/build-llvm-project.sh names the repository it clones;
- on newest main, a second LLVM for the AMD codegen library (cmake/amd-llvm-info.json);
- what setup.py passes to CMake and downloads (bootstrap.git.setup_py);
- Python bindings through pybind11 (downloaded by setup.py in <= 3.1, then a build requirement)
  or nanobind (2026-06 on);
- scripts/build-llvm-project.sh from 2025-05 on (its LLVM_PROJECTS default names the LLVM projects);
- the top CMakeLists.txt's cmake_minimum_required, the oldest CMake that configures it.

Every function takes `read(path) -> text | None` (None: no such file at that commit), so the same
code runs on a checkout, on `git show <sha>:<path>` or on raw files over HTTPS, and unit tests feed
it real file contents.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bootstrap.core.errors import MismatchError
from bootstrap.core.fsutil import parse_json
from bootstrap.git import build_requires as requirements
from bootstrap.git.refs import SHA_RE, parse_pin_file, validate_slug
from bootstrap.git.setup_py import SetupPyArgs, read_setup_py_args

ReadFile = Callable[[str], str | None]

LLVM_INFO = "cmake/llvm-info.json"
LLVM_HASH = "cmake/llvm-hash.txt"
LLVM_BUILD_INFO = "cmake/llvm-build-info.json"
AMD_LLVM_INFO = "cmake/amd-llvm-info.json"
AMD_LLVM_BUILD_INFO = "cmake/amd-llvm-build-info.json"
BUILD_LLVM_SCRIPT = "scripts/build-llvm-project.sh"
TOP_CMAKELISTS = "CMakeLists.txt"
# Every file detect_layout may read, in any era: read ahead in one go where the reader can (a local
# checkout), a file not listed is still read when asked, one by one.
LAYOUT_FILES = (
    "setup.py",
    "python/setup.py",
    "pyproject.toml",
    "python/pyproject.toml",
    "python/requirements.txt",
    "python/build_helpers.py",
    LLVM_INFO,
    LLVM_HASH,
    LLVM_BUILD_INFO,
    AMD_LLVM_INFO,
    AMD_LLVM_BUILD_INFO,
    BUILD_LLVM_SCRIPT,
    TOP_CMAKELISTS,
    # read by setup_py's era rules: pybind11's pin (3.0/3.1), the backends' -Werror and CUPTI lines
    "cmake/pybind11-version.txt",
    "third_party/nvidia/CMakeLists.txt",
    "third_party/amd/CMakeLists.txt",
)
DEFAULT_LLVM_REPOSITORY = "llvm/llvm-project"
# The fork Triton's release branches pin LLVM backports in (release/3.5.x #8081, release/3.8.x #10719).
TRITON_LLVM_FORK = "triton-lang/llvm-project"


@dataclass(frozen=True)
class LlvmBuildInfo:
    """cmake/llvm-build-info.json: what the LLVM build workflow builds next (not the consumer pin)."""

    commit: str
    repository: str | None  # "repository" (since #10632), None when the file names none

    def to_json(self) -> dict[str, object]:
        return {"llvm_hash": self.commit, "repository": self.repository}


@dataclass(frozen=True)
class AmdLlvm:
    """cmake/amd-llvm-info.json (newest main): the LLVM of the AMD codegen library, built apart."""

    commit: str
    build_number: int | None
    repository: str | None  # amd-llvm-build-info.json's repository (ROCm/llvm-project)
    published: tuple[str, ...]  # platform suffixes with a published codegen package (sha256sum keys)

    def to_json(self) -> dict[str, object]:
        return {
            "llvm_hash": self.commit,
            "build_number": self.build_number,
            "repository": self.repository,
            "published": list(self.published),
        }


@dataclass(frozen=True)
class TritonLayout:
    setup_py_dir: str  # "python" or "."
    llvm_pin_file: str  # "cmake/llvm-hash.txt" or "cmake/llvm-info.json" (or llvm-build-info.json, see llvm_pin)
    llvm_commit: str  # 40-hex
    llvm_repository: str  # e.g. "llvm/llvm-project" or "triton-lang/llvm-project"
    binding: str  # "pybind11" | "nanobind" | "unknown"
    build_requires: tuple[str, ...]
    has_build_llvm_script: bool
    version: str | None  # TRITON_VERSION base in setup.py, e.g. "3.8.0"
    # The LLVM_PROJECTS default of scripts/build-llvm-project.sh ("mlir;llvm;lld"), None without one.
    llvm_projects: tuple[str, ...] | None = None
    # cmake_minimum_required(VERSION x.y) of the top CMakeLists.txt, None when it names none.
    cmake_minimum: tuple[int, ...] | None = None
    # The text of cmake/llvm-info.json (None before 3.8): build number and sums of the prebuilt LLVM.
    llvm_info: str | None = None
    llvm_build_info: LlvmBuildInfo | None = None
    # Other repositories to try when llvm_repository lacks the pinned commit, most likely first.
    llvm_forks: tuple[str, ...] = ()
    amd_llvm: AmdLlvm | None = None
    setup_args: SetupPyArgs = field(default_factory=SetupPyArgs)

    @property
    def llvm_pin_note(self) -> str | None:
        """What to say when llvm-build-info.json names another commit than the pin."""
        info = self.llvm_build_info
        if info is None or info.commit == self.llvm_commit:
            return None
        where = f" of {info.repository}" if info.repository else ""
        return (
            f"{LLVM_BUILD_INFO} names {info.commit}{where}: that is what the LLVM build workflow builds next, "
            f"ahead of the pin during an LLVM bump; Triton builds against {self.llvm_pin_file}'s {self.llvm_commit}"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "setup_py_dir": self.setup_py_dir,
            "llvm_pin_file": self.llvm_pin_file,
            "llvm_commit": self.llvm_commit,
            "llvm_repository": self.llvm_repository,
            "binding": self.binding,
            "build_requires": list(self.build_requires),
            "has_build_llvm_script": self.has_build_llvm_script,
            "version": self.version,
            "llvm_projects": list(self.llvm_projects) if self.llvm_projects is not None else None,
            "cmake_minimum": ".".join(map(str, self.cmake_minimum)) if self.cmake_minimum else None,
            "llvm_build_info": self.llvm_build_info.to_json() if self.llvm_build_info else None,
            "llvm_forks": list(self.llvm_forks),
            "amd_llvm": self.amd_llvm.to_json() if self.amd_llvm else None,
            "setup_args": self.setup_args.to_json(),
        }


def setup_py_dir(read: ReadFile) -> str:
    """Where setup.py lives: "." (Triton >= 3.4) or "python" (older)."""
    if read("setup.py") is not None:
        return "."
    if read("python/setup.py") is not None:
        return "python"
    raise MismatchError(
        "no setup.py at the root or under python/: this commit does not look like Triton",
        fix="check --triton-commit / --triton-url, or the pin in PyTorch's triton.txt",
    )


def _json_object(text: str, path: str) -> dict[str, Any]:
    try:
        data = parse_json(text)
    except ValueError as exc:
        raise MismatchError(f"{path} is not valid JSON: {exc}", fix="check the Triton commit") from None
    if not isinstance(data, dict):
        raise MismatchError(f"{path} is not a JSON object", fix="check the Triton commit")
    return data


def _hash_in(data: dict[str, Any], path: str) -> str:
    value = data.get("llvm_hash")
    if not isinstance(value, str):
        raise MismatchError(f"{path} has no string 'llvm_hash'", fix="check the Triton commit")
    return parse_pin_file(value, f"{path} llvm_hash")


def llvm_pin(read: ReadFile) -> tuple[str, str]:
    """(pin file, LLVM commit): cmake/llvm-info.json's llvm_hash, else cmake/llvm-hash.txt.

    cmake/llvm-build-info.json is not a pin: during an LLVM bump it names the commit whose prebuilt
    packages are built first, before llvm-info.json moves to it (see LlvmBuildInfo).
    """
    info = read(LLVM_INFO)
    if info is not None:
        return LLVM_INFO, _hash_in(_json_object(info, LLVM_INFO), LLVM_INFO)
    text = read(LLVM_HASH)
    if (old := triton_2_version(read)) is not None:  # Triton 2.x (2.2/2.3 already with llvm-hash.txt)
        raise MismatchError(
            f"Triton {old} (the Triton PyTorch 2.0 to 2.3 pin) predates what tritondev builds,"
            " Triton 3.0 and newer: its python/setup.py downloads the one LLVM package it names",
            fix=f"use PyTorch {OLDEST_TORCH} or newer (--torch-ref v{OLDEST_TORCH}.0), or"
            " --triton-commit of a Triton 3.x commit",
        )
    if text is None:
        raise MismatchError(
            f"neither {LLVM_INFO} nor {LLVM_HASH} exists at this Triton commit",
            fix="check --triton-commit; Triton pins LLVM in one of these files",
        )
    return LLVM_HASH, parse_pin_file(text, LLVM_HASH)


OLDEST_TORCH = "2.4"  # its Triton pin (3.0) has cmake/llvm-hash.txt; PyTorch 2.0-2.3 pin Triton 2.x
_SETUP_VERSION = re.compile(r"""^\s*version\s*=\s*["'](2\.\d+\.\d+[^"']*)["']""", re.MULTILINE)


def triton_2_version(read: ReadFile) -> str | None:
    """The version a Triton 2.x python/setup.py gives (`version="2.1.0"` in its setup() call), else None."""
    match = _SETUP_VERSION.search(read("python/setup.py") or "")
    return match.group(1) if match else None


def _repository_in(data: dict[str, Any], path: str) -> str | None:
    value = data.get("repository")
    if value is None:
        return None
    if not isinstance(value, str):
        raise MismatchError(f"{path}: 'repository' is not a string", fix="check the Triton commit")
    return validate_slug(value, path)


def llvm_build_info(read: ReadFile) -> LlvmBuildInfo | None:
    """cmake/llvm-build-info.json, None without one (or without an llvm_hash in it)."""
    text = read(LLVM_BUILD_INFO)
    if text is None:
        return None
    data = _json_object(text, LLVM_BUILD_INFO)
    if "llvm_hash" not in data:
        return None
    return LlvmBuildInfo(_hash_in(data, LLVM_BUILD_INFO), _repository_in(data, LLVM_BUILD_INFO))


_GITHUB_URL_RE = re.compile(r"^(?:https://|git@)github\.com[/:]([^/\s]+/[^/\s]+?)(?:\.git)?/?$")


def script_repository(read: ReadFile) -> str | None:
    """OWNER/REPO that scripts/build-llvm-project.sh clones by default (its LLVM_PROJECT_URL)."""
    text = read(BUILD_LLVM_SCRIPT)
    url = script_default(text, "LLVM_PROJECT_URL") if text is not None else None
    match = _GITHUB_URL_RE.match(url or "")
    return validate_slug(match.group(1), BUILD_LLVM_SCRIPT) if match else None


def llvm_sources(read: ReadFile, commit: str) -> tuple[str, tuple[str, ...]]:
    """(OWNER/REPO to fetch the pinned LLVM `commit` from, other repositories to try when it lacks it).

    The repository llvm-build-info.json names when it builds this very commit, else the one
    scripts/build-llvm-project.sh clones, else llvm/llvm-project. The others: every repository these
    files name, the triton-lang fork release branches pin backports in, and llvm/llvm-project.
    """
    info = llvm_build_info(read)
    script = script_repository(read)
    if info is not None and info.repository and info.commit == commit:
        primary = info.repository
    elif script:
        primary = script
    else:
        primary = DEFAULT_LLVM_REPOSITORY
    named = (info.repository if info else None, script, TRITON_LLVM_FORK, DEFAULT_LLVM_REPOSITORY)
    forks = tuple(dict.fromkeys(r for r in named if r and r != primary))
    return primary, forks


def llvm_repository(read: ReadFile, commit: str | None = None) -> str:
    """OWNER/REPO of the LLVM sources for the pinned commit (see llvm_sources)."""
    return llvm_sources(read, commit if commit is not None else llvm_pin(read)[1])[0]


def amd_llvm(read: ReadFile) -> AmdLlvm | None:
    """cmake/amd-llvm-info.json (+ amd-llvm-build-info.json's repository), None where there is none."""
    text = read(AMD_LLVM_INFO)
    if text is None:
        return None
    data = _json_object(text, AMD_LLVM_INFO)
    number = data.get("build_number")
    sums = data.get("sha256sum")
    build = read(AMD_LLVM_BUILD_INFO)
    repository = _repository_in(_json_object(build, AMD_LLVM_BUILD_INFO), AMD_LLVM_BUILD_INFO) if build else None
    return AmdLlvm(
        _hash_in(data, AMD_LLVM_INFO),
        number if isinstance(number, int) else None,
        repository,
        tuple(sorted(sums)) if isinstance(sums, dict) else (),
    )


def build_requires(read: ReadFile, where: str | None = None) -> tuple[str, ...]:
    """Build requirements next to setup.py (bootstrap.git.build_requires); `where`: setup.py's folder."""
    return requirements.build_requires(read, setup_py_dir(read) if where is None else where)


def binding(read: ReadFile, requires: tuple[str, ...] | None = None, where: str | None = None) -> str:
    """ "nanobind" or "pybind11" (bootstrap.git.build_requires); `where`: setup.py's folder."""
    return requirements.binding(read, setup_py_dir(read) if where is None else where, requires)


_TRITON_VERSION_RE = re.compile(r"^TRITON_VERSION\s*=\s*[\"'](\d+\.\d+[^\"']*)[\"']", re.MULTILINE)
_SETUP_VERSION_RE = re.compile(r"^\s*version\s*=\s*[\"'](\d+\.\d+[^\"']*)[\"']", re.MULTILINE)
_INIT_VERSION_RE = re.compile(r"^__version__\s*=\s*[\"'](\d+\.\d+[^\"']*)[\"']", re.MULTILINE)


def triton_version(read: ReadFile, where: str | None = None) -> str | None:
    """The base version in setup.py (`TRITON_VERSION = "3.8.0" + ...` or `version="3.0.0" + ...`),
    else python/triton/__init__.py's __version__; None when neither says."""
    where = setup_py_dir(read) if where is None else where
    setup = read("setup.py" if where == "." else f"{where}/setup.py") or ""
    for pattern in (_TRITON_VERSION_RE, _SETUP_VERSION_RE):
        match = pattern.search(setup)
        if match:
            return match.group(1)
    init = read("python/triton/__init__.py") or ""
    match = _INIT_VERSION_RE.search(init)
    return match.group(1) if match else None


def has_build_llvm_script(read: ReadFile) -> bool:
    return read(BUILD_LLVM_SCRIPT) is not None


# `NAME=${NAME:-default}` (quotes optional), as build-llvm-project.sh sets its defaults.
_SCRIPT_DEFAULT = r'^\s*{name}=["\']?\$\{{{name}:-["\']?([^"\'}}]*)["\']?\}}'


def script_default(script: str, name: str) -> str | None:
    """The default a shell script gives variable `name` (`NAME=${NAME:-value}`), None when it sets none."""
    match = re.search(_SCRIPT_DEFAULT.format(name=name), script, re.MULTILINE)
    return match.group(1).strip() if match else None


def llvm_projects(read: ReadFile) -> tuple[str, ...] | None:
    """The LLVM projects Triton's own scripts/build-llvm-project.sh builds by default, None without
    the script (or a default): "mlir;llvm" in 2025-05, lld added 2025-07, clang 2026-03."""
    text = read(BUILD_LLVM_SCRIPT)
    raw = script_default(text, "LLVM_PROJECTS") if text is not None else None
    if not raw:
        return None
    return tuple(p for p in raw.split(";") if p)


_CMAKE_MINIMUM_RE = re.compile(r"cmake_minimum_required\s*\(\s*VERSION\s+(\d+(?:\.\d+)*)", re.IGNORECASE)


def cmake_minimum_required(read: ReadFile) -> tuple[int, ...] | None:
    """The CMake version the top CMakeLists.txt asks for (`cmake_minimum_required(VERSION 3.20)` ->
    (3, 20); a range `3.18...3.27` gives its minimum), None when it asks for none."""
    text = read(TOP_CMAKELISTS)
    match = _CMAKE_MINIMUM_RE.search(text) if text is not None else None
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def detect_layout(read_file: ReadFile) -> TritonLayout:
    """Every layout fact of one Triton commit. Raises MismatchError when the files are not Triton's."""
    where = setup_py_dir(read_file)
    pin_file, commit = llvm_pin(read_file)
    assert SHA_RE.match(commit)
    requires = build_requires(read_file, where)
    repository, forks = llvm_sources(read_file, commit)
    return TritonLayout(
        setup_py_dir=where,
        llvm_pin_file=pin_file,
        llvm_commit=commit,
        llvm_repository=repository,
        binding=binding(read_file, requires, where),
        build_requires=requires,
        has_build_llvm_script=has_build_llvm_script(read_file),
        version=triton_version(read_file, where),
        llvm_projects=llvm_projects(read_file),
        cmake_minimum=cmake_minimum_required(read_file),
        llvm_info=read_file(LLVM_INFO),
        llvm_build_info=llvm_build_info(read_file),
        llvm_forks=forks,
        amd_llvm=amd_llvm(read_file),
        setup_args=read_setup_py_args(read_file, where),
    )
