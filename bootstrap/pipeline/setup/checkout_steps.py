"""The checkout steps run: Triton's and llvm-project's checkouts brought to their pins (never losing local
work: bootstrap.git.checkouts), and an LLVM pin that only a fork has fetched from that fork.

When the pinned LLVM commit is not in the repository setup fetched from, the forks Triton's layout
names are tried in turn (bootstrap.git.forks) and the report says which one served; when the user chose
the repository (--llvm-url, a mirror), nothing else is tried and the error names the fork to pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bootstrap.core.errors import CommandFailed, MismatchError
from bootstrap.core.redact import redact
from bootstrap.git import forks
from bootstrap.git.checkouts import CheckoutReport, ensure_checkout
from bootstrap.pipeline.llvm import plan as llvm_steps
from bootstrap.pipeline.setup.checkout_facts import CheckoutFacts, history_of
from bootstrap.pipeline.setup.facts import LlvmCheckout
from bootstrap.pipeline.setup.report import ForkFetch

if TYPE_CHECKING:
    from bootstrap.pipeline.setup.plan import PlannedStep
    from bootstrap.pipeline.setup.step_run import StepRun


def _checkout_of(run: StepRun, step: PlannedStep) -> CheckoutFacts | None:
    if step.name == "checkout-triton":
        return run.facts.triton
    llvm = run.facts.llvm
    return llvm.checkout if isinstance(llvm, LlvmCheckout) else None


def run_checkout(run: StepRun, step: PlannedStep) -> str | None:
    facts = _checkout_of(run, step)
    if facts is None:
        return "LLVM is not built from source"
    s = run.settings
    url = run.facts.pins.triton_url if facts.name == "triton" else run.facts.pins.llvm_url
    try:
        report = ensure_checkout(
            facts.name,
            url,
            facts.commit,
            facts.path,
            run.runner,
            allow_dirty=s.allow_dirty,
            full_history=s.full_history,
            history=history_of(facts.name),
        )
    except CommandFailed as exc:
        if facts.name == "llvm-project" and not forks.not_in_repository(exc):
            exc.fix = llvm_steps.unreachable_llvm_fix(exc.fix)
        if facts.name != "llvm-project" or not forks.not_in_repository(exc):
            raise
        report = _from_a_fork(run, facts, url, exc)
    run.checkouts[facts.name] = report
    if report.action in ("cloned", "fetched"):
        run.touched.add(facts.path)
    return None


def _from_a_fork(run: StepRun, facts: CheckoutFacts, url: str, exc: CommandFailed) -> CheckoutReport:
    """The pinned LLVM commit is not in `url`: the checkout made from the first fork that has it, unless the
    user chose the repository (then MismatchError names the fork to try)."""
    s = run.settings
    if s.source_of("llvm_url").given or s.mirror is not None:  # the user's choice: theirs to change
        raise _name_a_fork(run, exc) from None
    layout = run.facts.pins.layout
    tried = forks.candidates(layout.llvm_repository, layout.llvm_forks, url)

    def say(line: str) -> None:
        if run.console is not None:
            from rich.markup import escape

            run.console.print(escape(line), highlight=False)

    report, used = forks.checkout_from_forks(
        facts.name,
        facts.commit,
        facts.path,
        run.runner,
        url,
        tried,
        say=say,
        allow_dirty=s.allow_dirty,
        full_history=s.full_history,
        history=history_of(facts.name),
    )
    if run.report.llvm is not None:
        run.report.llvm.fetched_from = ForkFetch(used.url, used.why, redact(url))
    return report


def _name_a_fork(run: StepRun, exc: CommandFailed) -> MismatchError:
    """The pinned LLVM commit is not in the repository the user chose: name the one to try instead."""
    pins = run.facts.pins
    layout = pins.layout
    candidates = forks.candidates(layout.llvm_repository, layout.llvm_forks, pins.llvm_url)
    log = f" (git's answer: {exc.log_path})" if exc.log_path else ""
    message = f"LLVM commit {pins.llvm_commit} is not in {pins.llvm_url} ({pins.llvm_url_source}){log}"
    if not candidates:
        return MismatchError(message, fix="pass --llvm-url with a repository that has it")
    first, rest = candidates[0], candidates[1:]
    fix = f"pass --llvm-url {first.url} ({first.why})"
    return MismatchError(message, fix=fix + (f"; other candidates: {', '.join(c.slug for c in rest)}" if rest else ""))
