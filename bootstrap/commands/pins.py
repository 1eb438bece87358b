"""`tritondev pins`: torch ref -> Triton commit -> LLVM commit, the Triton layout, and their sources."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext


@options.command(*options.SOURCES, "triton_src", "workspace", "python", "json", "verbose")
def pins(ctx: AppContext) -> None:
    """Show which Triton commit PyTorch pins, which LLVM commit that Triton pins, the Triton layout at that commit, and where each answer came from. Reads only; changes nothing.

    With --triton-src (or run inside a Triton clone, with no --torch-ref or --triton-commit), the clone's own: its HEAD and the LLVM its files pin; PyTorch is not asked.

    Exit codes: 0 ok; 2 bad option or unknown ref; 4 network or git failure; 5 a pin file is missing or malformed.
    """  # noqa: E501
    from bootstrap.core import ui
    from bootstrap.git.pins import resolve_pins

    ctx = ctx.with_runner(ctx.runner.quiet(not ctx.verbose))
    around = options.triton_clone_around(ctx)
    if around is not None:  # as setup finds it; reading it changes nothing, so nothing is asked
        ui.note(f"reading the Triton checkout you are in, {around} (as --triton-src); --torch-ref or "
                "--triton-commit asks PyTorch's pin instead")
        ctx = options.with_clone(ctx, around)
    result = resolve_pins(ctx, use_cache=False)
    if ctx.json:
        ui.emit_json(result.to_json())
        return
    _render(result.to_json())


def register(app: typer.Typer) -> None:
    app.command("pins")(pins)


def _render(data: dict[str, object]) -> None:
    """One line per fact, `name  value  (where it came from)`: full commit ids, never truncated."""
    from rich.markup import escape

    from bootstrap.core import ui

    requires = data.get("build_requires")
    rows: list[tuple[str, object, object]] = [
        ("torch ref", data.get("torch_ref"), data.get("torch_ref_source")),
        ("torch commit", data.get("torch_commit"), None),
        ("Triton commit", data.get("triton_commit"), data.get("triton_commit_source")),
        ("Triton version", data.get("triton_version"), data.get("triton_version_source")),
        ("LLVM commit", data.get("llvm_commit"), data.get("llvm_commit_source")),
        ("LLVM repository", data.get("llvm_url"), data.get("llvm_url_source")),
        ("setup.py in", data.get("setup_py_dir"), None),
        ("LLVM pin file", data.get("llvm_pin_file"), None),
        ("bindings", data.get("binding"), None),
        ("build requires", ", ".join(str(r) for r in requires) if isinstance(requires, list) else None, None),
        ("build-llvm-project.sh", "present" if data.get("has_build_llvm_script") else "absent", None),
    ]
    console = ui.out()
    for label, value, source in rows:
        if value is None or value == "":
            continue
        line = f"[bold]{label:<22}[/bold] {escape(str(value))}"
        if source:
            line += f"  [dim]({escape(str(source))})[/dim]"
        console.print(line)
    notes = data.get("notes")
    if isinstance(notes, list):
        for note in notes:
            ui.warn(str(note))
