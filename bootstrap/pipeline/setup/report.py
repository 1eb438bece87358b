"""What `tritondev setup` reports: the plan's numbers, each step's outcome, the commands, verify."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.errors import TritondevError
from bootstrap.core.runner import PlannedCommand
from bootstrap.git.checkouts import CheckoutReport
from bootstrap.kernels.verify import Check
from bootstrap.pipeline.built.records import StepOutcome, StepStatus
from bootstrap.pipeline.ccache.stats import CcacheDelta
from bootstrap.pipeline.distcc.client import DistccCounts, DistccSetup
from bootstrap.pipeline.host.jobs import Jobs, Resources
from bootstrap.pipeline.host.toolchain import Toolchain
from bootstrap.pipeline.recipe.presets import Presets


@dataclass
class Verification:
    """What setup's verify step found: provenance, then the runtime's tools, then the kernel check."""

    provenance: dict[str, object]  # provenance.verify_provenance's findings
    tools: Check | None = None  # NVIDIA: the installed Triton finds ptxas by itself
    kernels: dict[str, object] | None = None  # the verify command's kernel check (or why it was skipped)

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {"provenance": self.provenance}
        if self.tools is not None:
            found["tools"] = self.tools.to_json()
        if self.kernels is not None:
            found["kernels"] = self.kernels
        return found


@dataclass
class SetupReport:
    workspace: Path
    dry_run: bool
    pins: dict[str, object] = field(default_factory=dict)
    toolchain: Toolchain | None = None
    jobs: Jobs | None = None
    resources: Resources | None = None  # what the jobs were sized from
    presets: Presets | None = None
    llvm_build: str = ""
    llvm_reused_from: str | None = None
    llvm: dict[str, object] = field(default_factory=dict)  # where LLVM comes from (--llvm), what it cost
    target_python: str = ""
    checkouts: list[CheckoutReport] = field(default_factory=list)
    steps: list[StepOutcome] = field(default_factory=list)
    # What the run executed (or, under --dry-run, would execute), probes left out.
    commands: list[PlannedCommand] = field(default_factory=list)
    ccache: dict[str, CcacheDelta] = field(default_factory=dict)
    # --distcc: the hosts given, used and left out (and why); what distcc did in each build.
    distcc: DistccSetup | None = None
    distcc_builds: dict[str, DistccCounts] = field(default_factory=dict)
    verify: Verification | None = None
    notices: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # good news (an LLVM build reused), and your clone's line
    # What a --dry-run could not resolve (offline: the pins, and the steps that follow them), and why.
    unresolved: dict[str, str] = field(default_factory=dict)
    # Why a --dry-run's real run would certainly fail (the pins cannot be read): the command ends with it.
    failure: TritondevError | None = field(default=None, repr=False, compare=False)

    @property
    def up_to_date(self) -> bool:
        return not self.unresolved and all(o.status == StepStatus.UP_TO_DATE for o in self.steps)

    def to_json(self) -> dict[str, object]:
        return {
            "workspace": str(self.workspace),
            "dry_run": self.dry_run,
            "up_to_date": self.up_to_date,
            "pins": self.pins,
            "target_python": self.target_python,
            "toolchain": self.toolchain.to_json() if self.toolchain is not None else {},
            "jobs": {**(self.jobs.to_json() if self.jobs is not None else {}),
                     **(self.resources.to_json() if self.resources is not None else {})},
            "llvm_build": self.llvm_build,
            "llvm_reused_from": self.llvm_reused_from,
            "llvm": self.llvm,
            "checkouts": [c.to_json() for c in self.checkouts],
            "steps": [o.to_json() for o in self.steps],
            "commands": [c.to_json() for c in self.commands],
            "ccache": {k: v.to_json() for k, v in self.ccache.items()},
            "distcc": {**self.distcc.to_json(), "builds": {k: v.to_json() for k, v in self.distcc_builds.items()}}
            if self.distcc is not None else None,
            "verify": self.verify.to_json() if self.verify is not None else None,
            "notices": self.notices,
            "notes": self.notes,
            "unresolved": self.unresolved,
            "error": self.failure.to_json() if self.failure is not None else None,
            "presets": self.presets.to_json() if self.presets is not None else {},
        }
