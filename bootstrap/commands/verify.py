"""`tritondev verify`: run real Triton kernels in the target environment and check them against torch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext, ChosenTarget
    from bootstrap.core.errors import TritondevError
    from bootstrap.kernels.verify import VerifyReport

Targets = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--target",
        "-t",
        help="Also compile ahead of time for this target, e.g. cuda:90 or hip:gfx942; repeatable "
        "(default without a GPU: cuda:80, cuda:90, hip:gfx942; with an NVIDIA GPU: its own arch).",
    ),
]


UseTritonCache = Annotated[
    bool,
    options.flag(
        "--use-triton-cache",
        help="Compile into your Triton cache (TRITON_CACHE_DIR, else ~/.triton/cache) instead of a private one "
        "that is removed afterwards.",
    ),
]


@options.command("python", "workspace", "json", "verbose", reads_target=True)
def verify(ctx: AppContext, target: Targets = None, use_triton_cache: UseTritonCache = False) -> Outcome:
    """Check that the target environment's Triton works: provenance, the tools it finds by itself, kernels checked against torch.

    Triton must find ptxas without TRITON_*_PATH set, as in a fresh shell. With a GPU: a vector add, a softmax and a matmul launched on it, the vector add's bandwidth beside a torch copy's, and an ahead-of-time compile for its arch. Without one: the same kernels under TRITON_INTERPRET=1, and an ahead-of-time compile for each --target. Kernels compile into a private Triton cache, removed afterwards.

    Exit codes: 0 ok; 1 a kernel or check failed; 3 triton, torch or numpy missing in the target environment.
    """  # noqa: E501
    from bootstrap.kernels.targets import parse_targets
    from bootstrap.kernels.verify import run_verify

    targets = parse_targets(target or [])
    return VerifyOutcome(run_verify(ctx, targets, keep_user_cache=use_triton_cache), ctx.chosen_target())


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)


@dataclass(frozen=True)
class VerifyOutcome(Outcome):
    """Where the target's Triton comes from, and each check with its verdict."""

    report: VerifyReport
    target: ChosenTarget

    def to_json(self) -> dict[str, object]:
        return {**self.report.to_json(), "target_python": self.target.to_json()}

    @property
    def failure(self) -> TritondevError | None:
        from bootstrap.core.errors import CheckFailed

        if self.report.ok:
            return None
        failed = [c.name for c in self.report.checks if not c.ok]
        return CheckFailed(
            f"verify failed: {', '.join(failed)}",
            fix="see the failures above; `tritondev doctor` checks the toolchain, -v shows the commands run",
        )

    def render(self) -> None:
        from rich.markup import escape

        from bootstrap.core import ui
        from bootstrap.kernels.verify import describe_active

        report, console = self.report, ui.out()
        triton, torch = report.triton, report.environment.torch
        dists = (
            ", ".join(f"{d.name} {d.version}" + (" (editable)" if d.editable else "") for d in triton.distributions)
            or "no distribution metadata"
        )
        console.print(f"[bold]triton {escape(triton.version)}[/bold] from {escape(triton.file)}")
        console.print(f"  installed as: {escape(dists)}; commit: {escape(triton.commit or 'release build')}")
        backend = describe_active(triton)
        console.print(f"  backends: {escape(', '.join(triton.backends) or '?')}; active: {escape(backend)}")
        device = f", GPU {torch.device}" if torch is not None and torch.device else ", no GPU"
        console.print(
            f"  torch {escape(str(torch.version if torch is not None else None))}{escape(device)};"
            f" numpy {escape(str(report.environment.numpy_version))}"
        )
        where = "on the GPU" if report.mode == "gpu" else "under the interpreter (TRITON_INTERPRET=1)"
        console.print(f"checks (kernels {where}):")
        for check in report.checks:
            mark = "[green]ok[/green]  " if check.ok else "[red]FAIL[/red]"
            console.print(f"  {mark} {escape(check.name):<18} {escape(check.summary)}")
            if not check.ok:
                for line in check.tail[-5:]:
                    if line:
                        console.print(f"         [dim]{escape(line)}[/dim]")
        bandwidth = report.bandwidth
        if bandwidth is not None and bandwidth.ok:
            console.print(
                f"bandwidth: vector add {bandwidth.add_gbps} GB/s, torch copy {bandwidth.copy_gbps} GB/s "
                f"({100 * (bandwidth.ratio or 0.0):.0f}% of the copy)"
            )
        elif bandwidth is not None:
            console.print(f"bandwidth: not measured ({escape(str(bandwidth.error))})")
        if report.ok:
            console.print("[bold green]verify: ok[/bold green]")
