"""The settings table: every setting declared once, with its type, default, choices and help."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path
from typing import Any

from bootstrap.core.settings.values import LlvmSource, parse_llvm_source

BUILD_TYPES = ("Debug", "Release", "RelWithDebInfo")  # CMake's own: the LLVM build's choices


# What upstream's `pip install -e .` builds when no variable chooses (setup.py's get_build_type()):
# -O2 -g without NDEBUG, so Triton's assertions and its passes' LLVM_DEBUG output are there.
TRITON_DEFAULT_BUILD_TYPE = "TritonRelBuildWithAsserts"


TRITON_BUILD_TYPES = (TRITON_DEFAULT_BUILD_TYPE, "Debug", "RelWithDebInfo", "Release")


BACKENDS = ("nvidia", "amd")


SANITIZERS = ("address", "none")


CONFIG_FILE = "tritondev.toml"


ENV_PREFIX = "TRITONDEV_"


WORKSPACE_ENV = "TRITONDEV_WORKSPACE"


_DECLARATION = "tritondev.setting"  # key of a field's metadata that makes it a setting


# The largest whole number any setting takes: what a C int holds (ninja, make, cmake read them so).
_MAX_INT = 2**31 - 1


# More parallel jobs than any machine has cores is a typo (jobs = 10**29), not a wish.
MAX_JOBS = 4096


class SourceKind(Enum):
    """Where a setting's value came from, lowest precedence first."""

    DEFAULT = "default"
    WORKSPACE = "workspace"  # remembered from how the workspace was set up (core.remembered)
    FILE = "file"
    ENV = "env"
    CLI = "cli"


class SettingSource(str):
    """A setting's source: its kind and the detail (the file, variable or option), as one text, the form
    `config show` and --json print: "default", "workspace:<path>", "file:<path>", "env:<VAR>",
    "cli:<--option>"."""

    __slots__ = ()

    @classmethod
    def of(cls, kind: SourceKind, detail: str = "") -> SettingSource:
        return cls(kind.value if kind is SourceKind.DEFAULT else f"{kind.value}:{detail}")

    @property
    def kind(self) -> SourceKind:
        return SourceKind(self.partition(":")[0])

    @property
    def detail(self) -> str:
        return self.partition(":")[2]

    @property
    def given(self) -> bool:
        """Given by the user (anywhere but the default)."""
        return self.kind is not SourceKind.DEFAULT


DEFAULT_SOURCE = SettingSource.of(SourceKind.DEFAULT)


@dataclass(frozen=True)
class Setting:
    """One row of the settings table, derived from its field of `Settings`."""

    name: str
    kind: type  # str, int, bool or Path (None stripped from an optional type)
    default: Any  # None where the field has none (workspace: found at load time)
    help: str
    choices: tuple[str, ...] = ()
    secret: bool = False
    in_file: bool = True  # may this key appear in tritondev.toml?
    default_help: str | None = None  # the default in words, where the value alone does not say it
    short: str | None = None
    maximum: int = _MAX_INT  # whole-number settings: the largest value that makes sense

    @property
    def env_var(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def shown_default(self) -> str | None:
        if self.default_help is not None:
            return self.default_help
        if isinstance(self.default, bool):
            return "on" if self.default else "off"
        return None if self.default is None else str(self.default)

    @property
    def option_help(self) -> str:
        """The help of the command-line option that sets it: what, the choices, env var and default."""
        text = self.help
        if self.choices:
            text += ": " + _one_of(self.choices)
        where = f"env: {self.env_var}"
        if self.shown_default is not None:
            where += f"; default: {self.shown_default}"
        return f"{text} ({where})."


def setting(
    help: str,
    *,
    choices: tuple[str, ...] = (),
    secret: bool = False,
    in_file: bool = True,
    default_help: str | None = None,
    short: str | None = None,
    maximum: int = _MAX_INT,
) -> dict[str, Setting]:
    """The metadata that declares a field of `Settings` a setting: `field(default=..., metadata=setting(...))`.

    help: what it is, a phrase without a closing period (the option's help adds env var and default).
    default_help: the default in words where the value alone does not say it.
    short: a one-letter option besides --name, e.g. "-j".
    maximum: for a whole number, the largest value that makes sense (bigger ones are an error).
    """
    # name, kind and default are the field's own: _table() fills them in.
    return {_DECLARATION: Setting("", object, None, help, choices, secret, in_file, default_help, short, maximum)}


@dataclass(frozen=True)
class Settings:
    workspace: Path = field(
        metadata=setting(
            "Where checkouts, builds, logs and state live",
            in_file=False,
            default_help="the nearest folder upward holding a tritondev.toml, else ~/tritondev",
        )
    )
    python: Path | None = field(
        default=None,
        metadata=setting(
            "Target Python environment, an interpreter or an env folder",
            default_help="the active venv/conda env, else <workspace>/venv; commands that only read it fall "
            "back to the first python3 on PATH until that venv exists",
        ),
    )
    build_type: str = field(
        default=TRITON_DEFAULT_BUILD_TYPE,
        metadata=setting(
            "Triton build type",
            choices=TRITON_BUILD_TYPES,
            default_help="TritonRelBuildWithAsserts, what upstream's `pip install -e .` builds (-O2 -g, assertions"
            " and LLVM_DEBUG kept)",
        ),
    )
    llvm_build_type: str = field(
        default="Release",
        metadata=setting(
            "LLVM/MLIR build type, assertions on",
            choices=BUILD_TYPES,
            default_help="Release, as a Debug LLVM needs tens of GB and links slowly, and Triton work rarely "
            "steps into it",
        ),
    )
    backend: str = field(
        default="nvidia",
        metadata=setting(
            "GPU backend, for pins (amd: triton-rocm.txt), targets and the assembly dump of --dump-ir", choices=BACKENDS
        ),
    )
    torch_ref: str | None = field(
        default=None,
        metadata=setting(
            "PyTorch tag, branch or commit whose Triton pin is used", default_help="the installed torch's, else main"
        ),
    )
    triton_commit: str | None = field(
        default=None, metadata=setting("Use this Triton commit (40 hex) instead of PyTorch's pin")
    )
    triton_src: Path | None = field(
        default=None,
        metadata=setting(
            "Your own Triton clone, built as it stands (its HEAD, local changes and LLVM pin) instead of a checkout"
            " tritondev makes; never moved, never fetched into; build, test, opt and bisect use it too",
            default_help="unset: <workspace>/src/triton, a checkout of the pin",
        ),
    )
    pytorch_url: str = field(
        default="https://github.com/pytorch/pytorch.git",
        metadata=setting(
            "Where PyTorch's pin files are read: git URL, local repository, or raw+https://BASE",
            default_help="PyTorch's GitHub repository",
        ),
    )
    triton_url: str = field(
        default="https://github.com/triton-lang/triton.git",
        metadata=setting("Triton repository", default_help="Triton's GitHub repository"),
    )
    llvm_url: str | None = field(
        default=None, metadata=setting("LLVM repository", default_help="the one Triton's pin names")
    )
    llvm: str = field(
        default="auto",
        metadata=setting(
            "Where LLVM/MLIR comes from: auto (Triton's prebuilt package when one exists for the pin and this"
            " machine, else a source build; the host is asked once per pin), source (build the pinned commit),"
            " prebuilt (Triton's own package, downloaded and checked), or the PATH of an existing LLVM build or"
            " install tree",
            default_help="auto; see docs/llvm-sources.md",
        ),
    )
    llvm_prebuilt_url: str = field(
        default="https://oaitriton.blob.core.windows.net/public/llvm-builds",
        metadata=setting(
            "Base URL of Triton's prebuilt LLVM packages (--llvm prebuilt), e.g. a mirror",
            default_help="the one Triton's setup.py uses",
        ),
    )
    allow_llvm_mismatch: bool = field(
        default=False, metadata=setting("Build against an LLVM (--llvm PATH) whose revision is not the pin")
    )
    mirror: Path | None = field(
        default=None, metadata=setting("Folder of bare mirrors pytorch.git, triton.git, llvm-project.git")
    )
    jobs: int | None = field(
        default=None,
        metadata=setting("Compile jobs", default_help="sized from cores and memory", short="-j", maximum=MAX_JOBS),
    )
    link_jobs: int | None = field(
        default=None, metadata=setting("Parallel link jobs", default_help="sized from memory", maximum=MAX_JOBS)
    )
    ccache: bool = field(default=True, metadata=setting("Use ccache as the compiler launcher when installed"))
    lld: bool = field(default=True, metadata=setting("Build with clang and link with lld when installed"))
    ccache_remote: str | None = field(
        default=None,
        metadata=setting("ccache remote storage URL, redis:// or http(s)://; never shown unmasked", secret=True),
    )
    distcc: str | None = field(
        default=None,
        metadata=setting(
            "Compile on these distcc hosts, behind ccache, in distcc's DISTCC_HOSTS syntax (e.g. 'host1/8,lzo"
            " host2/8'); each host is proven before a build; none turns it off",
            default_help="off; see docs/distributed-builds.md",
        ),
    )
    sanitize: str | None = field(
        default=None,
        metadata=setting(
            "Build Triton with a sanitizer (address: setup.py's TRITON_BUILD_WITH_ASAN=1; none: without), for "
            "triton-opt and the lit tests; GPU programs do not run under it",
            choices=SANITIZERS,
        ),
    )
    allow_dirty: bool = field(default=False, metadata=setting("Build checkouts with local changes as they stand"))
    skip_verify: bool = field(
        default=False, metadata=setting("Skip the kernel check at the end of setup; provenance is still checked")
    )
    full_history: bool = field(default=False, metadata=setting("Clone full history instead of the pinned commits only"))
    offline: bool = field(
        default=False,
        metadata=setting(
            "Build Triton with TRITON_OFFLINE_BUILD: nlohmann/json (JSON_SYSPATH) and the CUDA tools (CUDA_HOME) come"
            " from this machine instead of downloads, and the tools are then placed where Triton looks for them"
        ),
    )
    sources: Mapping[str, SettingSource] = field(default_factory=dict, compare=False)  # name -> where from

    def source_of(self, name: str) -> SettingSource:
        return self.sources.get(name, DEFAULT_SOURCE)

    @property
    def llvm_source(self) -> LlvmSource:
        """Where LLVM comes from (`llvm`, with `llvm_prebuilt_url`), as its parser reads it."""
        return parse_llvm_source(self.llvm, self.llvm_prebuilt_url)


def _one_of(choices: tuple[str, ...]) -> str:
    return choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"


def _kind(annotation: Any) -> type:
    """`Path | None` -> Path: the type a value of the setting has once given."""
    present = [arg for arg in typing.get_args(annotation) if arg is not type(None)] or [annotation]
    (kind,) = present
    assert isinstance(kind, type)
    return kind


def _table() -> tuple[Setting, ...]:
    hints = typing.get_type_hints(Settings)
    rows = []
    for f in fields(Settings):
        row = f.metadata.get(_DECLARATION)
        if isinstance(row, Setting):
            default = None if f.default is dataclasses.MISSING else f.default
            rows.append(dataclasses.replace(row, name=f.name, kind=_kind(hints[f.name]), default=default))
    return tuple(rows)


SETTINGS: tuple[Setting, ...] = _table()


BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
