"""`tritondev env`: exports for `eval "$(tritondev env)"`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bootstrap.commands import options

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

DumpIr = Annotated[
    bool,
    options.flag(
        "--dump-ir",
        help="Also TRITON_ALWAYS_COMPILE=1, MLIR_ENABLE_DUMP=1, TRITON_DISABLE_LINE_INFO=1 and "
        "NVPTX_ENABLE_DUMP=1 (nvidia) or AMDGCN_ENABLE_DUMP=1 (amd).",
    ),
]
# Typer needs Optional[...] at runtime on Python 3.10 for these annotations.
Shell = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--shell", help="bash, zsh or fish (default: from $SHELL, else bash)."),
]


@options.command("backend", "workspace", "python", reads_target=True)
def env(ctx: AppContext, dump_ir: DumpIr = False, shell: Shell = None) -> None:
    """Print exports for `eval "$(tritondev env)"` (fish: `tritondev env --shell fish | source`).

    The workspace env file's variables: the ptxas and cache settings `tritondev doctor --fix` proved.

    PATH with the target environment's folder first, when `python3` there is another interpreter.

    With --dump-ir also the IR-dump switches. Only exports go to stdout.
    """
    import os

    from bootstrap.core import ui
    from bootstrap.core.errors import UsageError
    from bootstrap.env.exports import SHELLS, collect_variables, detect_shell, render_exports

    if shell is not None and shell not in SHELLS:
        raise UsageError(f"unknown shell '{shell}'", fix=f"use --shell {' | '.join(SHELLS)}")
    values = collect_variables(ctx.workspace.env_file, dump_ir=dump_ir, backend=ctx.settings.backend)
    values.update(target_variables(ctx))
    # Unmasked on purpose: the shell evaluates these exports (docs/safety.md, "Secrets").
    out = ui.raw_stdout()
    out.write(render_exports(values, shell or detect_shell(os.environ)))
    out.flush()


def target_variables(ctx: AppContext) -> dict[str, str]:
    """PATH with the target environment's folder first, so that `python` there is the target's.

    Nothing when `python3` on PATH already is the target, when the target was found on PATH (the
    user's shell finds it as it is), or when there is none. A --python that is not an interpreter is
    an error (exit 2).
    """
    import os

    from bootstrap.core.interpreter import PATH_PYTHON
    from bootstrap.env.exports import path_with_first

    if ctx.settings.python is not None:
        executable = ctx.target_python().executable
    else:
        executable, origin = ctx.target_choice()
        if origin == PATH_PYTHON or not executable.exists():
            return {}
    path = path_with_first(executable.parent, os.environ.get("PATH", ""))
    return {} if path is None else {"PATH": path}


def register(app: typer.Typer) -> None:
    app.command("env")(env)
