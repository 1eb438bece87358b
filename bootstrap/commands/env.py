"""`tritondev env`: exports for `eval "$(tritondev env)"`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options
from bootstrap.commands.options import DumpIr, DumpKernel, dump_kernel
from bootstrap.env.exports import target_variables

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

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
def env(ctx: AppContext, dump_ir: DumpIr = False, shell: Shell = None, kernel: DumpKernel = None,
        editor: Editor = False) -> None:
    """Print exports for `eval "$(tritondev env)"` (fish: `tritondev env --shell fish | source`).

    The workspace env file's variables: the ptxas and cache settings `tritondev doctor --fix` proved.

    PATH with the target environment's folder first, when `python3` there is another interpreter: what an editor's terminal needs too.

    With --dump-ir also the IR-dump switches. Only exports go to stdout. With --editor: the .clangd text instead.
    """  # noqa: E501
    import os

    from bootstrap.core import ui
    from bootstrap.core.errors import UsageError
    from bootstrap.env.exports import SHELLS, collect_variables, detect_shell, render_exports

    if editor:
        out = ui.raw_stdout()  # a file the user saves as it is (paths only, never a secret)
        out.write(editor_config(ctx))
        out.flush()
        return
    if shell is not None and shell not in SHELLS:
        raise UsageError(f"unknown shell '{shell}'", fix=f"use --shell {' | '.join(SHELLS)}")
    values = collect_variables(ctx.workspace.env_file, dump_ir=dump_ir, backend=ctx.settings.backend,
                               kernel=dump_kernel(dump_ir, kernel))
    values.update(target_variables(ctx))
    if not values:
        # stdout stays empty, for eval; the reason goes where the user reads it.
        ui.info(f"nothing to export: no {ctx.workspace.env_file} (doctor --fix writes one), no --dump-ir, and "
                "python3 on PATH already is the target")
    # Unmasked on purpose: the shell evaluates these exports (docs/safety.md, "Secrets").
    out = ui.raw_stdout()
    out.write(render_exports(values, shell or detect_shell(os.environ)))
    out.flush()


def editor_config(ctx: AppContext) -> str:
    """The .clangd text for the workspace's Triton build, after what clangd already finds by itself: the
    compile_commands.json linked at the checkout root (setup.py links it from 3.4 on). A .clangd file is
    not ignored by upstream's .gitignore (it ignores a `.clangd/` folder): the exclude line keeps it out
    of `git status`."""
    from bootstrap.pipeline.built.triton_build import find_build
    from bootstrap.pipeline.recipe.editor import CLANGD, COMPILE_COMMANDS, EditorConfig

    build = find_build(ctx.workspace.root, ctx.workspace.state)
    config = EditorConfig(build.triton_src, build.build_dir)
    linked = build.triton_src / COMPILE_COMMANDS
    clangd = build.triton_src / CLANGD
    git_dir = build.triton_src / ".git"
    exclude = (f"echo /{CLANGD} >> {git_dir / 'info' / 'exclude'}" if git_dir.is_dir()
               else f"echo /{CLANGD} >> \"$(git -C {build.triton_src} rev-parse --git-path info/exclude)\"")
    lines = []
    if linked.exists() and linked.resolve() == config.compile_commands.resolve():
        lines.append(f"# clangd already finds the compile commands: {linked} links to {config.compile_commands};"
                     " nothing to save for that.")
        lines.append(f"# To name the build folder yourself (a link that points at another build), save what"
                     f" follows as {clangd}, or pass --compile-commands-dir={build.build_dir}.")
    else:
        lines.append(f"# Save what follows as {clangd} (clangd), or pass --compile-commands-dir={build.build_dir}.")
        lines.append(f"# The compile commands: {config.compile_commands}.")
    if not clangd.exists():
        lines.append(f"# upstream's .gitignore ignores a .clangd/ folder, not this file; keep it out of `git status`:"
                     f" {exclude}")
    return "\n".join(lines) + "\n" + config.clangd()


def register(app: typer.Typer) -> None:
    app.command("env")(env)
