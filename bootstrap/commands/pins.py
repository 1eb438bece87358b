"""`tritondev pins`: torch ref -> Triton commit -> LLVM commit, the Triton layout, and their sources."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import typer

from bootstrap.commands import options
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.git.pinned import Pins


@options.command(*options.SOURCES, "triton_src", "workspace", "python", "json", "verbose", echo="verbose")
def pins(ctx: AppContext) -> Outcome:
    """Show which Triton commit PyTorch pins, which LLVM commit that Triton pins, the Triton layout at that commit, and where each answer came from. Reads only; changes nothing.

    With --triton-src (or run inside a Triton clone, with no --torch-ref or --triton-commit), the clone's own: its HEAD and the LLVM its files pin; PyTorch is not asked.

    Exit codes: 0 ok; 2 bad option or unknown ref; 4 network or git failure; 5 a pin file is missing or malformed.
    """  # noqa: E501
    from bootstrap.git.pins import pins_here

    return PinsOutcome(pins_here(ctx))


def register(app: typer.Typer) -> None:
    app.command("pins")(pins)


@dataclass(frozen=True)
class PinsOutcome(Outcome):
    """One line per fact, `name  value  (where it came from)`: full commit ids, never truncated."""

    pins: Pins

    def to_json(self) -> dict[str, object]:
        return self.pins.to_json()

    def render(self) -> None:
        from rich.markup import escape

        from bootstrap.core import ui

        pins, layout = self.pins, self.pins.layout
        rows: list[tuple[str, str | None, str | None]] = [
            ("torch ref", pins.torch_ref, pins.torch_ref_source),
            ("torch commit", pins.torch_commit, None),
            ("Triton commit", pins.triton_commit, pins.triton_commit_source),
            ("Triton version", pins.triton_version, pins.triton_version_source),
            ("LLVM commit", pins.llvm_commit, pins.llvm_commit_source),
            ("LLVM repository", pins.llvm_url, pins.llvm_url_source),
            ("setup.py in", layout.setup_py_dir, None),
            ("LLVM pin file", layout.llvm_pin_file, None),
            ("bindings", layout.binding, None),
            ("build requires", ", ".join(str(r) for r in layout.build_requires), None),
            ("build-llvm-project.sh", "present" if layout.has_build_llvm_script else "absent", None),
        ]
        console = ui.out()
        for label, value, source in rows:
            if not value:
                continue
            line = f"[bold]{label:<22}[/bold] {escape(value)}"
            if source:
                line += f"  [dim]({escape(source)})[/dim]"
            console.print(line)
        for note in pins.notes:
            ui.warn(note)
