"""The options every command shares, declared once, and `@command`, which gives a command the ones it takes.

Options that set a setting (--workspace, --python, --build-type, --jobs, ...) are generated from the
settings table in bootstrap/core/settings/settings.py: name, type, choices, help, env var and default come from
there, and their values go into the settings precedence by name. The output flags --json, --dry-run and
-v/--verbose are declared here. Only typer, the standard library, the settings table and the run's
state (both stdlib-only) are imported at module level, so that `tritondev --help` stays fast.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional

import typer

from bootstrap.core import run_state
from bootstrap.core.settings.settings_table import BY_NAME, Setting

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext, LockKind
    from bootstrap.core.outcome import Outcome

# Where pins and sources come from (pins, setup).
SOURCES = ("torch_ref", "triton_commit", "backend", "pytorch_url", "triton_url", "llvm_url", "mirror")
EVERY_SETTING = tuple(BY_NAME)


def flag(*names: str, help: str) -> Any:
    """A boolean option, shown in --help as a bare flag (not `--name <bool>`)."""
    return typer.Option(*names, help=help, metavar="", show_default=False)


def help_as_flag(command: Any) -> Any:
    """`command` (the built click tree of the app) with its -h/--help, and every subcommand's, shown as
    the flag it is: Typer gives its own help option the metavar `<bool>`, which no other flag shows."""
    make = command.get_help_option

    def get_help_option(ctx: Any) -> Any:
        option = make(ctx)
        if option is not None:
            option.metavar = ""
        return option

    command.get_help_option = get_help_option
    for sub in getattr(command, "commands", {}).values():
        help_as_flag(sub)
    return command


def triton_clone_around(ctx: AppContext) -> Path | None:
    """bootstrap.git.pins_adopted.clone_around, for `setup`'s offer until setup owns it."""
    from bootstrap.git.pins_adopted import clone_around

    return clone_around(ctx.settings, ctx.runner, ctx.workspace.triton_src)


def with_clone(ctx: AppContext, clone: Path) -> AppContext:
    """`ctx` with `clone` as the --triton-src setting (AppContext.adopting), for `setup`'s offer."""
    return ctx.adopting(clone)


# The output flags, by the name a command gives in @command(...).
_FLAGS: dict[str, Any] = {
    "json": flag("--json", help="One JSON document on stdout, nothing else there."),
    "dry_run": flag("--dry-run", help="Show what would run; change nothing."),
    "verbose": flag("-v", "--verbose", help="More detail."),
}


def _setting_option(setting: Setting) -> Any:
    """The annotation of the option that sets `setting`; None (not given) leaves it to file, env or default."""
    names = [setting.option]
    metavar = None
    if setting.kind is bool:
        metavar = ""
        if setting.default is True:  # on unless turned off: --ccache/--no-ccache
            names = [f"{setting.option}/--no-{setting.option[2:]}"]
    if setting.short:
        names.append(setting.short)
    info = typer.Option(*names, help=setting.option_help, metavar=metavar, show_default=False)
    return Annotated[Optional[setting.kind], info]  # noqa: UP045


def _annotation(name: str) -> Any:
    if name in _FLAGS:
        return Annotated[bool, _FLAGS[name]]
    if name in BY_NAME:
        return _setting_option(BY_NAME[name])
    raise ValueError(f"unknown shared option {name!r}: use a setting name or one of {', '.join(_FLAGS)}")


# The common options, also accepted before the command name (`tritondev --workspace W doctor`).
ROOT_OPTIONS = ("workspace", "python", "json", "dry_run", "verbose")


@dataclass
class _BeforeCommand:
    """What the user gave before the command name, by option name (a part of the run:
    bootstrap.core.run_state)."""

    given: dict[str, Any] = field(default_factory=dict)


def root_option(name: str) -> Any:
    """The root command's option for common option `name`: the same names and help as the command's."""
    if name in _FLAGS:
        return _FLAGS[name]
    setting = BY_NAME[name]
    return typer.Option(setting.option, help=setting.option_help, metavar="PATH", show_default=False)


def give_before_command(**given: Any) -> None:
    """Record the common options given before the command name; None or False: not given."""
    run_state.part(_BeforeCommand).given.update(
        {name: value for name, value in given.items() if value not in (None, False)}
    )


def _option_name(name: str) -> str:
    return BY_NAME[name].option if name in BY_NAME else "--" + name.replace("_", "-")


def _merge_before_command(takes: tuple[str, ...], values: dict[str, Any]) -> None:
    """The options given before the command name count as given to it, unless given after it as well
    (the later one wins); one the command does not take is a usage error, as it would be after it."""
    for name, value in run_state.part(_BeforeCommand).given.items():
        if name not in takes:
            from bootstrap.core.errors import UsageError

            raise UsageError(
                f"this command has no option {_option_name(name)} (given before the command name)",
                fix="leave it out; `--help` after the command lists its options",
            )
        if values.get(name) in (None, False):
            values[name] = value


CommandBody = Callable[..., "Outcome | None"]

# Which of the commands a command runs are echoed on stderr (`$ git fetch ...`); -v shows them all, except
# for `run`. always: in every mode. text: not under --json (stderr stays calm beside the document).
# verbose: only with -v (a command whose runs are lookups: pins). run: only on a real run shown as text,
# -v or not (setup: --json keeps stderr calm, and --dry-run's plan lists every command itself).
Echo = Literal["always", "text", "verbose", "run"]


def command(
    *takes: str,
    writes_logs: bool = False,
    reads_target: bool = False,
    lock: LockKind | None = None,
    echo: Echo = "always",
) -> Callable[[CommandBody], Callable[..., Any]]:
    """Make `body(ctx, **own_options)` a command that also takes the shared options named in `takes`.

    The command's signature (what Typer reads) is the body's own parameters after `ctx`, then the
    options in `takes`: setting names (their options come from the settings table) and json, dry_run,
    verbose. Calling the command builds the AppContext from them, calls the body, and shows the Outcome
    it returns once (bootstrap.core.outcome.deliver: the JSON document or the text, then the failure or
    the exit code); it can be called directly too, with keyword arguments (left out: not given).

    What every command does alike is declared here, never done by the body: writes_logs: the runner logs
    into the workspace from the start, except under --dry-run (otherwise logs begin when the workspace
    lock is taken, and a reading command never creates the workspace). reads_target: the command only
    reads the target environment, so with nothing given and no workspace venv it may fall back to the
    first python3 on PATH (AppContext.reads_target). lock: the workspace lock the command's package takes
    through `ctx.locked()`, shared (it reads the build folder) or exclusive (it changes the workspace).
    echo: which commands it runs are echoed (Echo).
    """
    keyword = inspect.Parameter.KEYWORD_ONLY
    added = [
        inspect.Parameter(name, keyword, default=False if name in _FLAGS else None, annotation=_annotation(name))
        for name in takes
    ]
    declared = _Declared(takes, writes_logs, reads_target, lock, echo)

    def decorate(body: CommandBody) -> Callable[..., Any]:
        @functools.wraps(body)
        def invoke(**given: Any) -> int | None:
            running = given.pop(_RUNNING, None)  # Typer's context: the command's path as typed
            arguments = signature.bind(**given)
            arguments.apply_defaults()
            values = dict(arguments.arguments)
            ctx = _context(declared, values, _holder(running, body))
            outcome = body(ctx, **values)
            if outcome is None:  # a body that shows its outcome itself: NOT_YET_ON_THE_PROTOCOL of the tests
                return None
            from bootstrap.core.outcome import deliver

            return deliver(outcome, json=ctx.json)

        signature = _declare_parameters(invoke, body, added)
        invoke.tritondev_takes = takes  # type: ignore[attr-defined]  # read by accepted_options
        return invoke

    return decorate


def _declare_parameters(
    invoke: Callable[..., Any], body: CommandBody, shared: list[inspect.Parameter]
) -> inspect.Signature:
    """Give `invoke` the parameters Typer reads: the body's own after `ctx` (keyword-only, their annotations
    evaluated), then the `shared` options, then Typer's context. Returns them without that context: the
    signature a call's values are bound to."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    own = list(inspect.signature(body).parameters.values())[1:]  # the first is the AppContext
    # The body's annotations are strings (postponed evaluation): get_type_hints evaluates them
    # in the body's module, which it finds through __wrapped__.
    invoke.__annotations__ = {p.name: p.annotation for p in own}
    hints = typing.get_type_hints(invoke, include_extras=True)
    signature = inspect.Signature(
        [*(p.replace(kind=keyword, annotation=hints[p.name]) for p in own), *shared], return_annotation=None
    )
    # What Typer reads also asks for its context (a parameter of that type is given, never parsed).
    running = inspect.Parameter(_RUNNING, keyword, default=None, annotation=typer.Context)
    shown = signature.replace(parameters=[*signature.parameters.values(), running])
    invoke.__signature__ = shown  # type: ignore[attr-defined]
    invoke.__annotations__ = {p.name: p.annotation for p in shown.parameters.values()}
    return signature


@dataclass(frozen=True)
class _Declared:
    """What a command declared to @command: its shared options, and what it does as every command does."""

    takes: tuple[str, ...]
    writes_logs: bool
    reads_target: bool
    lock: LockKind | None
    echo: Echo


def _context(declared: _Declared, values: dict[str, Any], holder: str) -> AppContext:
    """The AppContext of one run of the command, its shared options taken out of `values` (those given
    before the command name count as given to it)."""
    from bootstrap.core import fixlines
    from bootstrap.core.context import LockDeclaration, make_context
    from bootstrap.pipeline.built.attempt import asked_clone

    takes = declared.takes
    _merge_before_command(takes, values)
    flags = {name: bool(values.pop(name)) for name in takes if name in _FLAGS}
    settings = {name: values.pop(name) for name in takes if name in BY_NAME}
    json, dry_run, verbose = (flags.get(name, False) for name in ("json", "dry_run", "verbose"))
    ctx: AppContext = make_context(
        settings,
        json=json,
        dry_run=dry_run,
        verbose=verbose,
        logs=declared.writes_logs and not dry_run,
        reads_target=declared.reads_target,
        quiet=_quiet(declared.echo, json=json, dry_run=dry_run, verbose=verbose),
        lock=LockDeclaration(declared.lock, holder) if declared.lock is not None else None,
    )
    clone = asked_clone(ctx)
    fixlines.setup_asked_for(str(clone) if clone is not None else None)
    return ctx


def _quiet(echo: Echo, *, json: bool, dry_run: bool, verbose: bool) -> bool:
    """The runner's echo off, as the command declared it (Echo)."""
    if echo == "run":
        return json or dry_run
    return not verbose and (echo == "verbose" or (echo == "text" and json))


_RUNNING = "tritondev_running"  # the name of the parameter Typer gives its context in


def _holder(running: typer.Context | None, body: CommandBody) -> str:
    """The running command's path as the user typed it ("test lit", "purge"), for the workspace lock's
    file; the body's name when it is called directly, without the option parser."""
    if running is None:
        return body.__name__
    path = str(running.command_path)
    return path.partition(" ")[2] or path


def accepted_options(app: typer.Typer, prefix: str = "") -> dict[str, frozenset[str]]:
    """Every command path of `app` ("doctor", "cache prune") and the shared options it takes, as written
    on the command line (--workspace, --python, --json ...), for bootstrap.core.fixlines."""
    found: dict[str, frozenset[str]] = {}
    for info in app.registered_commands:
        takes = getattr(info.callback, "tritondev_takes", None)
        if info.name and takes is not None:
            found[prefix + info.name] = frozenset(_option_name(name) for name in takes)
    for group in app.registered_groups:
        if group.name and group.typer_instance is not None:
            found.update(accepted_options(group.typer_instance, f"{prefix}{group.name} "))
    return found


class OwnOptionsThenCommand(typer.core.TyperCommand):
    """A command that runs another program: its own options first, then that program's command line.

    The program's words start after `--`, or at the first word that is neither an option of ours nor
    an option's value. An option before that which the command does not know is a usage error (exit 2,
    with "did you mean"), never the start of the program's command line, and nothing after it is read
    as ours (`tritondev run python k.py -v`: -v is the program's).
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        takes_value: dict[str, bool] = {}
        for param in self.get_params(ctx):
            if hasattr(param, "is_flag"):  # an option, not an argument
                for name in [*param.opts, *param.secondary_opts]:
                    takes_value[name] = not (param.is_flag or getattr(param, "count", False))
        own, program = _split_own_options(args, takes_value, str(ctx.command_path))
        return list(super().parse_args(ctx, [*own, "--", *program] if program is not None else own))


def _split_own_options(
    args: list[str], takes_value: dict[str, bool], command: str
) -> tuple[list[str], list[str] | None]:
    """(our options, the program's words or None when there are none); UsageError for an unknown option."""
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return args[:i], args[i + 1 :]
        if not word.startswith("-") or word == "-":
            return args[:i], args[i:]
        name = word.partition("=")[0] if word.startswith("--") else word[:2]
        if name not in takes_value:
            from bootstrap.core.errors import UsageError
            from bootstrap.core.suggest import closest

            close = closest(name, [n for n in takes_value if n.startswith("--")])
            hint = f" (did you mean {close}?)" if close else ""
            raise UsageError(
                f"{command} has no option {name}{hint}",
                fix=f"give only its own options before `--`, the command after it (see `{command} --help`)",
            )
        attached = "=" in word if word.startswith("--") else len(word) > 2
        i += 2 if takes_value[name] and not attached else 1
    return args, None


# --dump-ir and --kernel, shared by `env` and `run`.
DumpIr = Annotated[
    bool,
    flag(
        "--dump-ir",
        help="Also TRITON_ALWAYS_COMPILE=1, MLIR_ENABLE_DUMP=1 (a kernel's name already there is kept: Triton's "
        "own filter), TRITON_DISABLE_LINE_INFO=1 and NVPTX_ENABLE_DUMP=1 (nvidia) or AMDGCN_ENABLE_DUMP=1 (amd).",
    ),
]
DumpKernel = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--kernel", help="With --dump-ir: dump only this kernel's passes (MLIR_ENABLE_DUMP=NAME)."),
]


def dump_kernel(dump_ir: bool, kernel: str | None) -> str | None:
    """--kernel, which goes with --dump-ir only."""
    if kernel is not None and not dump_ir:
        from bootstrap.core.errors import UsageError

        raise UsageError(
            "--kernel chooses the kernel --dump-ir dumps", fix=f"add --dump-ir: --dump-ir --kernel {kernel}"
        )
    if kernel is not None and not kernel.strip():
        from bootstrap.core.errors import UsageError

        raise UsageError("--kernel is empty", fix="name a kernel, e.g. --dump-ir --kernel add_kernel")
    return kernel
