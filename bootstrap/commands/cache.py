"""`tritondev cache ls|show|clear|prune`: the Triton kernel cache."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.kernels.cache import CacheReport, Entry, Removal

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Dir = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--dir",
        help="The cache folder [default: $TRITON_CACHE_DIR, else $TRITON_HOME/.triton/cache, else ~/.triton/cache].",
        show_default=False,
    ),
]


def register(app: typer.Typer) -> None:
    cache_app = typer.Typer(
        help="The Triton kernel cache: list, inspect, clear and prune compiled kernels.", no_args_is_help=True
    )
    app.add_typer(cache_app, name="cache")

    @cache_app.command("ls")
    def ls(
        dir: Dir = None,
        workspace: options.Workspace = None,
        python: options.Python = None,
        json: options.Json = False,
        verbose: options.Verbose = False,
    ) -> None:
        """List cache entries: kernel, target, Triton version, size, age, registers, spills; stale ones flagged.

        Stale: built by another Triton than the target environment's (--python).

        Or built for a target that is not a GPU of this machine (checked only where a GPU is present).
        """
        from bootstrap.core.context import make_context
        from bootstrap.kernels.cache import inspect_cache, now

        ctx = make_context(options.given(workspace=workspace, python=python), json=json, verbose=verbose, logs=False)
        report = inspect_cache(ctx, dir)
        if json:
            from bootstrap.core import ui

            ui.emit_json(report.to_json(now()))
            return
        _print_listing(report)

    @cache_app.command("show")
    def show(
        entry: Annotated[str, typer.Argument(help="Entry key (or a unique prefix of 4+ characters) or kernel name.")],
        artifact: Annotated[
            Optional[str],  # noqa: UP045
            typer.Argument(help="Print this artifact: a file name or a stage (ttir, ttgir, llir, ptx, amdgcn, ...)."),
        ] = None,
        dir: Dir = None,
        workspace: options.Workspace = None,
        python: options.Python = None,
        json: options.Json = False,
    ) -> None:
        """Show one entry: its metadata and artifacts, or print one artifact."""
        import sys

        from bootstrap.core import ui
        from bootstrap.core.context import make_context
        from bootstrap.core.errors import UsageError
        from bootstrap.kernels.cache import find_artifact, find_entry, inspect_cache, now

        ctx = make_context(options.given(workspace=workspace, python=python), json=json, logs=False)
        report = inspect_cache(ctx, dir)
        found = find_entry(report.entries, entry)
        if artifact is None:
            if json:
                data = found.to_json(now())
                data["metadata"] = found.metadata
                ui.emit_json(data)
            else:
                _print_entry(found)
            return
        chosen = find_artifact(found, artifact)
        path = found.path / chosen.name
        try:
            content = path.read_bytes()
        except OSError as exc:
            raise UsageError(
                f"cannot read {path}: {exc.strerror}", fix="list the entry again: it may be gone"
            ) from None
        if json:
            ui.emit_json(
                {
                    "key": found.key,
                    "artifact": chosen.name,
                    "path": str(path),
                    "binary": chosen.binary,
                    "content": None if chosen.binary else content.decode("utf-8", "replace"),
                }
            )
            return
        if chosen.binary and sys.stdout.isatty():
            raise UsageError(
                f"{chosen.name} is binary ({len(content)} bytes): {path}",
                fix=f"redirect it to a file (> {chosen.name}) or {_binary_hint(chosen.name, path)}",
            )
        sys.stdout.buffer.write(content)
        sys.stdout.flush()

    @cache_app.command("clear")
    def clear(
        kernel: Annotated[
            Optional[str],  # noqa: UP045
            typer.Argument(help="Only entries of this kernel (shell wildcards allowed, e.g. 'matmul_*')."),
        ] = None,
        dir: Dir = None,
        workspace: options.Workspace = None,
        json: options.Json = False,
        dry_run: options.DryRun = False,
    ) -> None:
        """Remove every cache entry, or those of one kernel. Asks nothing; --dry-run lists what would go."""
        from bootstrap.core.context import make_context
        from bootstrap.kernels.cache import inspect_cache, plan_clear

        ctx = make_context(options.given(workspace=workspace), json=json, dry_run=dry_run, logs=False)
        report = inspect_cache(ctx, dir, check_stale=False)
        _apply(report, plan_clear(report.entries, kernel), dry_run=dry_run, json=json)

    @cache_app.command("prune")
    def prune(
        older_than: Annotated[
            Optional[str],  # noqa: UP045
            typer.Option("--older-than", help="Remove entries written longer ago than this: 30m, 12h, 7d, 2w."),
        ] = None,
        max_size: Annotated[
            Optional[str],  # noqa: UP045
            typer.Option("--max-size", help="Then remove the oldest entries until the cache fits: 500M, 5G, bytes."),
        ] = None,
        stale: Annotated[
            bool, typer.Option("--stale", help="Remove stale entries (other Triton version, or target not here).")
        ] = False,
        dir: Dir = None,
        workspace: options.Workspace = None,
        python: options.Python = None,
        json: options.Json = False,
        dry_run: options.DryRun = False,
    ) -> None:
        """Remove old entries, stale ones, or the oldest beyond a size. Asks nothing; --dry-run lists what would go."""
        from bootstrap.core.context import make_context
        from bootstrap.core.errors import UsageError
        from bootstrap.kernels.cache import inspect_cache, now, parse_duration, parse_size, plan_prune

        ctx = make_context(options.given(workspace=workspace, python=python), json=json, dry_run=dry_run, logs=False)
        if older_than is None and max_size is None and not stale:
            raise UsageError(
                "prune needs a rule: --older-than, --max-size or --stale",
                fix="e.g. tritondev cache prune --older-than 7d --max-size 5G",
            )
        age = parse_duration(older_than) if older_than is not None else None
        size = parse_size(max_size) if max_size is not None else None
        report = inspect_cache(ctx, dir, check_stale=stale)
        plan = plan_prune(report.entries, now(), older_than=age, max_size=size, stale=stale)
        _apply(report, plan, dry_run=dry_run, json=json)


def _apply(report: CacheReport, plan: list[Removal], *, dry_run: bool, json: bool) -> None:
    from bootstrap.core import ui
    from bootstrap.kernels.cache import human_size, remove_entries

    done = plan if dry_run else remove_entries(report.root, plan)
    removed_keys = {r.entry.key for r in done}
    failed = [r for r in plan if r.entry.key not in removed_keys]
    freed = sum(r.entry.size for r in done)
    if json:
        ui.emit_json(
            {
                "dir": str(report.root),
                "dry_run": dry_run,
                "removed": [
                    {
                        "key": r.entry.key,
                        "name": r.entry.name,
                        "kind": r.entry.kind,
                        "size": r.entry.size,
                        "reason": r.reason,
                    }
                    for r in done
                ],
                "failed": [{"key": r.entry.key, "name": r.entry.name, "reason": r.reason} for r in failed],
                "freed_bytes": freed,
                "kept": len(report.entries) - len(done),
            }
        )
        return
    from rich.markup import escape

    verb = "would remove" if dry_run else "removed"
    for r in done:
        name = escape(r.entry.name or "-")
        ui.info(f"{verb} {r.entry.key[:12]}  {name}  {human_size(r.entry.size)}  ({escape(r.reason)})")
    for r in failed:
        ui.warn(f"could not remove {r.entry.path} (permissions, or in use); it was left as it was")
    left = len(report.entries) - len(done)
    ui.info(
        f"{'Would remove' if dry_run else 'Removed'} {len(done)} entries ({human_size(freed)}) from "
        f"{escape(str(report.root))}; {left} kept"
    )


def _binary_hint(name: str, path: Path) -> str:
    if name.endswith(".cubin"):
        return f"disassemble it: nvdisasm {path}"
    if name.endswith(".hsaco"):
        return f"disassemble it: llvm-objdump -d {path}"
    return f"inspect it: nm -D {path}"


def _columns(rows: list[list[str]], right: set[int]) -> list[str]:
    """Plain aligned columns: never truncated, whatever the terminal width (and easy to grep)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
        for row in rows
    ]


def _print_listing(report: CacheReport) -> None:
    from rich.markup import escape

    from bootstrap.core import ui
    from bootstrap.kernels.cache import human_age, human_size, now

    console = ui.out()
    if not report.root.is_dir():
        console.print(f"No kernel cache at {escape(str(report.root))} ({escape(report.source)}).")
        return
    moment = now()
    rows = [["ENTRY", "KIND", "NAME", "TARGET", "TRITON", "SIZE", "AGE", "REGS", "SPILLS", "STALE"]]
    for e in report.entries:
        rows.append(
            [
                e.key[:12],
                e.kind,
                e.name or "-",
                e.target or "-",
                e.triton_version or (e.triton_hash[:10] if e.triton_hash else "-"),
                human_size(e.size),
                human_age(e.age(moment)),
                "-" if e.n_regs is None else str(e.n_regs),
                "-" if e.n_spills is None else str(e.n_spills),
                "stale" if e.stale else "",
            ]
        )
    console.print(f"Triton kernel cache {escape(str(report.root))} ({escape(report.source)})")
    for line in _columns(rows, right={5, 6, 7, 8}):
        console.print(escape(line))
    stale = [e for e in report.entries if e.stale]
    console.print(
        f"{len(report.entries)} entries, {human_size(report.total_size)}; {len(stale)} stale"
        + (f"; installed Triton {report.installed_version}" if report.installed_version else "")
        + (f"; GPUs {', '.join(report.local_targets)}" if report.local_targets else "")
    )
    for e in stale:
        console.print(f"  stale {e.key[:12]} {escape(e.name or '-')}: {escape('; '.join(e.stale))}")
    for note in report.notes:
        ui.info(f"[dim]note: {escape(note)}[/dim]")
    if stale:
        ui.info("fix: tritondev cache prune --stale")


def _print_entry(e: Entry) -> None:
    from rich.markup import escape
    from rich.table import Table

    from bootstrap.core import ui
    from bootstrap.kernels.cache import human_age, human_size, now

    console = ui.out()
    fields = [
        ("entry", e.key),
        ("path", str(e.path)),
        ("kind", e.kind),
        ("name", e.name or "-"),
        ("target", e.target or "-"),
        ("triton", e.triton_version or "-"),
        ("hash", e.triton_hash or "-"),
        ("size", human_size(e.size)),
        ("age", human_age(e.age(now()))),
        ("registers", "-" if e.n_regs is None else str(e.n_regs)),
        ("spills", "-" if e.n_spills is None else str(e.n_spills)),
        ("stack", "-" if e.stack_bytes is None else f"{e.stack_bytes} bytes"),
    ]
    for key in ("num_warps", "num_stages", "num_ctas", "shared"):
        if key in e.metadata:
            fields.append((key, str(e.metadata[key])))
    fields.append(("stale", "; ".join(e.stale) if e.stale else "no"))
    for label, value in fields:
        console.print(f"[bold]{label:>10}[/bold]  {escape(value)}")
    table = Table(title="artifacts", title_justify="left")
    for column in ("file", "stage", "size"):
        table.add_column(column, justify="right" if column == "size" else "left")
    for a in e.artifacts:
        table.add_row(escape(a.name), a.stage, human_size(a.size))
    console.print(table)
    if e.artifacts:
        ui.info(f"print one: tritondev cache show {e.key[:12]} <file or stage>")
