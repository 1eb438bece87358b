"""What one setup run carries from step to step: the context, its facts, plan and report as they grow.

The step handlers of bootstrap.pipeline.setup.execute and of the modules beside it (LLVM, distcc, verify)
take this, so none of them imports the executor that calls them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.runner import Runner
from bootstrap.git.checkouts import CheckoutReport
from bootstrap.pipeline.built.records import Records
from bootstrap.pipeline.setup.facts import SetupFacts
from bootstrap.pipeline.setup.plan import SetupPlan
from bootstrap.pipeline.setup.report import SetupReport

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext


@dataclass
class StepRun:
    ctx: AppContext
    console: Console | None
    facts: SetupFacts
    plan: SetupPlan
    report: SetupReport
    stamp: dict[str, object] = field(default_factory=dict)  # the LLVM build's record as it is being updated
    checkouts: dict[str, CheckoutReport] = field(default_factory=dict)
    forced: dict[str, str] = field(default_factory=dict)  # step -> why it runs whatever its record says
    prechecked: bool = False
    touched: set[Path] = field(default_factory=set)  # checkouts this run moved or wrote into .git/info of

    @property
    def runner(self) -> Runner:
        return self.ctx.runner

    @property
    def dry_run(self) -> bool:
        return self.ctx.dry_run

    @property
    def records(self) -> Records:
        return Records(self.ctx.workspace.state)
