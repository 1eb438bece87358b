"""`tritondev env`: exports for `eval "$(tritondev env)"`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.commands.options import DumpIr, DumpKernel, dump_kernel
from bootstrap.core.outcome import Outcome

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.env.exports import Exports
    from bootstrap.pipeline.recipe.editor import EditorConfig

# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Shell = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--shell", help="bash, zsh or fish (default: from $SHELL, else bash)."),
]


Editor = Annotated[
    bool,
    options.flag(
        "--editor",
        help="Print the clangd configuration for the workspace's Triton build instead (save it as .clangd in"
        " the checkout): where compile_commands.json is. tritondev writes it itself only into a checkout it made.",
    ),
]


@options.command("backend", "workspace", "python", reads_target=True)
def env(
    ctx: AppContext, dump_ir: DumpIr = False, shell: Shell = None, kernel: DumpKernel = None, editor: Editor = False
) -> Outcome:
    """Print exports for `eval "$(tritondev env)"` (fish: `tritondev env --shell fish | source`).

    The workspace env file's variables: the ptxas and cache settings `tritondev doctor --fix` proved.

    PATH with the target environment's folder first, when `python3` there is another interpreter: what an editor's terminal needs too.

    With --dump-ir also the IR-dump switches. Only exports go to stdout. With --editor: the .clangd text instead.
    """  # noqa: E501
    if editor:
        from bootstrap.pipeline.built.triton_build import find_build
        from bootstrap.pipeline.recipe.editor import EditorConfig

        build = find_build(ctx.workspace.root, ctx.workspace.state)
        return EditorAdvice(EditorConfig(build.triton_src, build.build_dir))
    from bootstrap.env.exports import exports_for

    return ExportsOutcome(exports_for(ctx, shell=shell, dump_ir=dump_ir, kernel=dump_kernel(dump_ir, kernel)))


@dataclass(frozen=True)
class ExportsOutcome(Outcome):
    """The export lines, verbatim on stdout for `eval`; where there are none, why (on stderr)."""

    exports: Exports

    def to_json(self) -> None:
        return None  # `env` takes no --json: its output is for the shell

    def render(self) -> None:
        from bootstrap.core import ui

        if not self.exports.text:
            # stdout stays empty, for eval; the reason goes where the user reads it.
            ui.info(
                f"nothing to export: no {self.exports.env_file} (doctor --fix writes one), no --dump-ir, and "
                "python3 on PATH already is the target"
            )
        # Unmasked on purpose: the shell evaluates these exports (docs/safety.md, "Secrets").
        out = ui.raw_stdout()
        out.write(self.exports.text)
        out.flush()


@dataclass(frozen=True)
class EditorAdvice(Outcome):
    """`env --editor`: the .clangd text for the workspace's Triton build, a file the user saves as it is."""

    config: EditorConfig

    def to_json(self) -> None:
        return None  # `env` takes no --json: its output is a file's text

    def render(self) -> None:
        from bootstrap.core import ui

        out = ui.raw_stdout()  # paths only, never a secret
        out.write(self.config.advice())
        out.flush()


def register(app: typer.Typer) -> None:
    app.command("env")(env)
