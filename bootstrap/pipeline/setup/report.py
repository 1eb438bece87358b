"""What `tritondev setup` reports: the plan's numbers, each step's outcome, the commands, verify.

Typed to the edge: every part is the object its owner made (the pins, where LLVM comes from, the
verification's findings), turned into JSON only by `to_json`, and rendered by the command from its fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from bootstrap.core.errors import TritondevError
from bootstrap.core.process.runner import PlannedCommand
from bootstrap.core.settings.settings_table import Settings
from bootstrap.git.checkouts import CheckoutReport
from bootstrap.git.pinned import Pins
from bootstrap.pipeline.built.records import StepOutcome, StepStatus
from bootstrap.pipeline.ccache.stats import CcacheDelta
from bootstrap.pipeline.distcc.client import DistccCounts, DistccSetup
from bootstrap.pipeline.host.jobs import Jobs, Resources
from bootstrap.pipeline.host.toolchain import Toolchain
from bootstrap.pipeline.recipe.presets import Presets
from bootstrap.pipeline.setup.facts import LlvmFacts
from bootstrap.pipeline.setup.provenance import Provenance

if TYPE_CHECKING:
    # Types only: the kernel check (bootstrap.kernels.verify) is imported by the verify step when it runs,
    # so that a setup with nothing to do does not import it.
    from bootstrap.kernels.verify import Check, VerifyReport


@dataclass(frozen=True)
class KernelsSkipped:
    """The kernel check did not run (no torch or numpy in the target, an ASAN build): why."""

    why: str

    @property
    def ok(self) -> bool:
        return True

    def to_json(self) -> dict[str, object]:
        return {"ok": True, "skipped": self.why}


# The verify command's kernel check as setup's verify step ran it, or why it did not.
KernelCheck: TypeAlias = "VerifyReport | KernelsSkipped"


@dataclass
class Verification:
    """What setup's verify step found: provenance, then the runtime's tools, then the kernel check."""

    provenance: Provenance
    tools: Check | None = None  # NVIDIA: the installed Triton finds ptxas by itself
    kernels: KernelCheck | None = None  # the verify command's kernel check (or why it was skipped)

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {"provenance": self.provenance.to_json()}
        if self.tools is not None:
            found["tools"] = self.tools.to_json()
        if self.kernels is not None:
            found["kernels"] = self.kernels.to_json()
        return found


@dataclass(frozen=True)
class ForkFetch:
    """The pinned LLVM commit is only in a fork: fetched from `url` (why that one), not in `not_in`."""

    url: str
    why: str
    not_in: str  # the repository the pin names, masked

    def to_json(self) -> dict[str, object]:
        return {"url": self.url, "why": self.why, "not_in": self.not_in}


@dataclass(frozen=True)
class PackageCopied:
    """The package was already unpacked here by Triton's own setup.py: copied, nothing downloaded."""

    source: Path

    def to_json(self) -> dict[str, object]:
        return {"copied_from": str(self.source), "received": 0}


@dataclass(frozen=True)
class ArchiveKept:
    """An archive an earlier run downloaded, hashed again and unpacked again."""

    archive: Path
    sha256: str
    note: str

    def to_json(self) -> dict[str, object]:
        return {"archive": str(self.archive), "received": 0, "sha256": self.sha256, "note": self.note}


@dataclass(frozen=True)
class PackageDownloaded:
    """The package downloaded (resumed where an earlier download stopped), its sha256 checked."""

    archive: Path
    size: int
    received: int
    resumed_from: int
    attempts: int
    sha256: str

    def to_json(self) -> dict[str, object]:
        return {
            "archive": str(self.archive),
            "size": self.size,
            "received": self.received,
            "resumed_from": self.resumed_from,
            "attempts": self.attempts,
            "sha256": self.sha256,
        }


# How the prebuilt package got here.
PackageFetch = PackageCopied | ArchiveKept | PackageDownloaded


@dataclass
class LlvmReport:
    """Where LLVM comes from (`--llvm`, auto's choice made), where its build is, and what getting it did."""

    source: LlvmFacts
    build: Path
    source_build_cost: str | None = None  # a cold source build ahead: what it costs here
    fetched_from: ForkFetch | None = None
    download: PackageFetch | None = None

    def to_json(self) -> dict[str, object]:
        data = {**self.source.to_json(), "build": str(self.build)}
        if self.source_build_cost is not None:
            data["source_build_cost"] = self.source_build_cost
        if self.fetched_from is not None:
            data["fetched_from"] = self.fetched_from.to_json()
        if self.download is not None:
            data["download"] = self.download.to_json()
        return data


@dataclass(frozen=True)
class UnresolvedPins:
    """The pins a --dry-run could not read (offline, a server down): what was given for them, and why."""

    torch_ref: str | None
    triton_commit: str | None
    backend: str
    pytorch_url: str | None
    triton_url: str | None
    llvm_url: str | None
    mirror: Path | None
    why: str

    @staticmethod
    def of(settings: Settings, why: str) -> UnresolvedPins:
        s = settings
        return UnresolvedPins(
            s.torch_ref, s.triton_commit, s.backend, s.pytorch_url, s.triton_url, s.llvm_url, s.mirror, why
        )

    def to_json(self) -> dict[str, object]:
        return {
            "torch_ref": self.torch_ref,
            "triton_commit": self.triton_commit,
            "backend": self.backend,
            "pytorch_url": self.pytorch_url,
            "triton_url": self.triton_url,
            "llvm_url": self.llvm_url,
            "mirror": str(self.mirror) if self.mirror else None,
            "unresolved": self.why,
        }


@dataclass(frozen=True)
class Unresolved:
    """What a --dry-run could not resolve: the pins (why), hence the steps that follow them."""

    pins: str
    steps: str = "checkouts, LLVM and Triton builds, purge and verify: planned once the pins resolve"

    def to_json(self) -> dict[str, str]:
        return {"pins": self.pins, "steps": self.steps}


@dataclass
class SetupReport:
    workspace: Path
    dry_run: bool
    pins: Pins | UnresolvedPins | None = None
    toolchain: Toolchain | None = None
    jobs: Jobs | None = None
    resources: Resources | None = None  # what the jobs were sized from
    presets: Presets | None = None
    llvm_build: str = ""
    llvm_reused_from: str | None = None
    llvm: LlvmReport | None = None  # None: not known (the pins did not resolve)
    target_python: str = ""
    checkouts: list[CheckoutReport] = field(default_factory=list)
    steps: list[StepOutcome] = field(default_factory=list)
    # What the run executed (or, under --dry-run, would execute), probes left out.
    commands: list[PlannedCommand] = field(default_factory=list)
    ccache: list[tuple[str, CcacheDelta]] = field(default_factory=list)  # (build, ccache's figures over it)
    # --distcc: the hosts given, used and left out (and why); what distcc did in each build.
    distcc: DistccSetup | None = None
    distcc_builds: list[tuple[str, DistccCounts]] = field(default_factory=list)
    verify: Verification | None = None
    notices: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # good news (an LLVM build reused), and your clone's line
    # What a --dry-run could not resolve (offline: the pins, and the steps that follow them), and why.
    unresolved: Unresolved | None = None
    # Why a --dry-run's real run would certainly fail (the pins cannot be read): the command ends with it.
    failure: TritondevError | None = field(default=None, repr=False, compare=False)

    @property
    def up_to_date(self) -> bool:
        return self.unresolved is None and all(o.status == StepStatus.UP_TO_DATE for o in self.steps)

    def to_json(self) -> dict[str, object]:
        return {
            "workspace": str(self.workspace),
            "dry_run": self.dry_run,
            "up_to_date": self.up_to_date,
            "pins": self.pins.to_json() if self.pins is not None else {},
            "target_python": self.target_python,
            "toolchain": self.toolchain.to_json() if self.toolchain is not None else {},
            "jobs": {
                **(self.jobs.to_json() if self.jobs is not None else {}),
                **(self.resources.to_json() if self.resources is not None else {}),
            },
            "llvm_build": self.llvm_build,
            "llvm_reused_from": self.llvm_reused_from,
            "llvm": self.llvm.to_json() if self.llvm is not None else {},
            "checkouts": [c.to_json() for c in self.checkouts],
            "steps": [o.to_json() for o in self.steps],
            "commands": [c.to_json() for c in self.commands],
            "ccache": {label: delta.to_json() for label, delta in self.ccache},
            "distcc": {**self.distcc.to_json(), "builds": {label: c.to_json() for label, c in self.distcc_builds}}
            if self.distcc is not None
            else None,
            "verify": self.verify.to_json() if self.verify is not None else None,
            "notices": self.notices,
            "notes": self.notes,
            "unresolved": self.unresolved.to_json() if self.unresolved is not None else {},
            "error": self.failure.to_json() if self.failure is not None else None,
            "presets": self.presets.to_json() if self.presets is not None else {},
        }
