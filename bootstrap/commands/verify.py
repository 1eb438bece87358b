"""`tritondev verify`: run real Triton kernels in the target environment and check them against torch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
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
def verify(ctx: AppContext, target: Targets = None, use_triton_cache: UseTritonCache = False) -> None:
    """Check that the target environment's Triton works: provenance, the tools it finds by itself, kernels checked against torch.

    Triton must find ptxas without TRITON_*_PATH set, as in a fresh shell. With a GPU: a vector add, a softmax and a matmul launched on it, the vector add's bandwidth beside a torch copy's, and an ahead-of-time compile for its arch. Without one: the same kernels under TRITON_INTERPRET=1, and an ahead-of-time compile for each --target. Kernels compile into a private Triton cache, removed afterwards.

    Exit codes: 0 ok; 1 a kernel or check failed; 3 triton, torch or numpy missing in the target environment.
    """  # noqa: E501
    from bootstrap.core import ui
    from bootstrap.core.errors import CheckFailed
    from bootstrap.kernels.targets import parse_targets
    from bootstrap.kernels.verify import run_verify

    targets = parse_targets(target or [])
    report = run_verify(ctx, targets, keep_user_cache=use_triton_cache)
    if ctx.json:
        ui.emit_json({**report.to_json(), "target_python": ctx.target_json()})
    else:
        _render(report)
    if not report.ok:
        failed = [c.name for c in report.checks if not c.ok]
        raise CheckFailed(
            f"verify failed: {', '.join(failed)}",
            fix="see the failures above; `tritondev doctor` checks the toolchain, -v shows the commands run",
            reported=ctx.json,
        )


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)


def _render(report: VerifyReport) -> None:
    from rich.markup import escape

    from bootstrap.core import ui
    from bootstrap.kernels.verify import describe_active

    console = ui.out()
    triton = report.triton
    dists = ", ".join(f"{d['name']} {d['version']}" + (" (editable)" if d.get("editable") else "")
                      for d in triton.get("distributions") or []) or "no distribution metadata"
    console.print(f"[bold]triton {escape(str(triton.get('version')))}[/bold] from {escape(str(triton.get('file')))}")
    console.print(f"  installed as: {escape(dists)}; commit: {escape(str(triton.get('commit') or 'release build'))}")
    backend = describe_active(triton)
    console.print(f"  backends: {escape(', '.join(triton.get('backends') or []) or '?')}; active: {escape(backend)}")
    torch = report.environment.get("torch") or {}
    numpy = report.environment.get("numpy") or {}
    device = f", GPU {torch.get('device')}" if torch.get("device") else ", no GPU"
    console.print(
        f"  torch {escape(str(torch.get('version')))}{escape(device)}; numpy {escape(str(numpy.get('version')))}"
    )
    where = "on the GPU" if report.mode == "gpu" else "under the interpreter (TRITON_INTERPRET=1)"
    console.print(f"checks (kernels {where}):")
    for check in report.checks:
        mark = "[green]ok[/green]  " if check.ok else "[red]FAIL[/red]"
        console.print(f"  {mark} {escape(check.name):<18} {escape(check.summary)}")
        if not check.ok:
            for line in (check.data.get("tail") or [])[-5:]:
                if line:
                    console.print(f"         [dim]{escape(str(line))}[/dim]")
    bw = report.bandwidth
    if bw and bw.get("ok"):
        console.print(
            f"bandwidth: vector add {bw['add_gbps']} GB/s, torch copy {bw['copy_gbps']} GB/s "
            f"({100 * bw['ratio']:.0f}% of the copy)"
        )
    elif bw:
        console.print(f"bandwidth: not measured ({escape(str(bw.get('error')))})")
    if report.ok:
        console.print("[bold green]verify: ok[/bold green]")
