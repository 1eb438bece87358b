"""What one setup run carries from step to step: what the steps run with (settings, the workspace, a
runner, output flags), the facts and plan the driver hands over, and the report as it grows.

The step handlers of bootstrap.pipeline.setup.execute and of the modules beside it (the checkouts, the
target environment, LLVM, distcc, verify) take this, so none of them imports the executor that calls
them. It holds no command context: each handler gets what it uses and nothing above it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from bootstrap.core.io.workspace import Workspace
from bootstrap.core.process.runner import Runner
from bootstrap.core.settings.settings_table import Settings
from bootstrap.git.checkouts import CheckoutReport
from bootstrap.pipeline.built.records import Records
from bootstrap.pipeline.setup.facts import SetupFacts
from bootstrap.pipeline.setup.plan import SetupPlan
from bootstrap.pipeline.setup.report import KernelCheck, SetupReport

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.kernels.verify import Check

# The verify command's kernel check in the target (given the tools check setup already ran): what setup's
# verify step runs last (bootstrap.kernels.verify.run_verify, bound by setup's driver).
KernelChecker: TypeAlias = "Callable[[Check | None], KernelCheck]"


@dataclass
class StepRun:
    settings: Settings
    workspace: Workspace
    runner: Runner
    dry_run: bool
    json: bool  # one JSON document on stdout: no progress bars, nothing said on the console
    console: Console | None
    facts: SetupFacts  # as the driver read them last
    plan: SetupPlan  # as the driver planned it last
    report: SetupReport
    check_kernels: KernelChecker
    stamp: dict[str, object] = field(default_factory=dict)  # the LLVM build's record as it is being updated
    checkouts: dict[str, CheckoutReport] = field(default_factory=dict)
    forced: dict[str, str] = field(default_factory=dict)  # step -> why it runs whatever its record says
    prechecked: bool = False
    touched: set[Path] = field(default_factory=set)  # checkouts this run moved or wrote into .git/info of

    @property
    def records(self) -> Records:
        return Records(self.workspace.state)

    def say(self, line: str) -> None:
        """One line on the console, as written (no markup)."""
        if self.console is not None:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)
