"""The command line: parses arguments, renders results, and maps errors to exit codes.

No work happens here beyond wiring; each command lives in bootstrap/commands/<name>.py.
"""

from __future__ import annotations

import errno
import importlib
import os
import signal
import sys
from typing import Annotated, Optional

import typer

from bootstrap import __version__
from bootstrap.commands import COMMAND_MODULES, coercion, options
from bootstrap.core.errors import ExitCode, TritondevError
from bootstrap.core.interrupt import CtrlC
from bootstrap.core.process import live_children

# OSErrors that mean a full disk, not a bug in tritondev.
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def _version(value: bool) -> None:
    if value:
        print(f"tritondev {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, metavar="", help="Show the version and exit."
    ),
    workspace: Annotated[Optional[str], options.root_option("workspace")] = None,  # noqa: UP045 - Typer, 3.10
    python: Annotated[Optional[str], options.root_option("python")] = None,  # noqa: UP045
    json: Annotated[bool, options.root_option("json")] = False,
    dry_run: Annotated[bool, options.root_option("dry_run")] = False,
    verbose: Annotated[bool, options.root_option("verbose")] = False,
) -> None:
    """The options before the command name: --version, and the common ones, which count as given to the command."""
    options.give_before_command(workspace=workspace, python=python, json=json, dry_run=dry_run, verbose=verbose)


def build_app(only: str | None = None) -> typer.Typer:
    """The CLI: every command, or with `only` (a name of COMMAND_MODULES) that one command or group alone.

    Each command module is imported to register its command, and each defines the one of its name
    (tests/unit/commands/test_program.py). Importing the 17 of them is about 0.05 s, a sixth of a
    setup that finds nothing to do, so a start imports only the command it runs."""
    app = typer.Typer(
        name="tritondev",
        help="Build the Triton compiler from source, matched to your PyTorch, and keep it healthy.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.callback()(_root)
    for name in (only,) if only in COMMAND_MODULES else COMMAND_MODULES:
        importlib.import_module(f"bootstrap.commands.{name}").register(app)
    return app


def _command_named_first(arguments: list[str]) -> str | None:
    """The command or group the command line names first, for which alone the app is built; None where
    the first word is no command's name: `--help`, `--version`, options before the command, a name it
    does not know (its error names the commands there are), nothing at all. The whole app answers those."""
    name = arguments[0] if arguments else None
    return name if name in COMMAND_MODULES else None


def _report_error(exc: TritondevError) -> None:
    if exc.reported:
        return
    from rich.markup import escape

    from bootstrap.core import ui

    _error_document(exc.to_json())
    console = ui.err()  # masks credentials in everything it prints
    console.print(f"[bold red]error:[/bold red] {escape(_one_line(exc.message))}")
    if exc.details:
        console.print(f"[dim]{escape(exc.details)}[/dim]")
    if exc.fix:
        console.print(f"[bold]fix:[/bold] {escape(_one_line(exc.shown_fix or ''))}")


def _error_document(document: dict[str, object], *, asked: bool = False) -> None:
    """An error's JSON document, the run's one, when the command was run with --json (asked: as the command
    line said it before any command parsed its options) and nothing printed one yet."""
    from bootstrap.core import ui
    from bootstrap.core.context import invocation

    running = invocation()
    if (running.json_asked if asked else running.wants_json) and not ui.json_emitted():
        ui.emit_json(document)


def _one_line(text: str) -> str:
    """The error and its fix stay one line each, whatever user text (a name with a newline) they quote."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def _write_crash_log(exc: BaseException) -> str:
    """The crash log: a new file of an unpredictable name (mode 0600) in the workspace's logs, or, before
    the workspace is known (or for a reading command, which leaves the workspace as it was), in a new
    private folder of the temporary folder; never a name another user could guess and plant a link at."""
    import platform
    import tempfile
    import time
    import traceback

    from bootstrap.core.context import invocation
    from bootstrap.core.io import writes
    from bootstrap.core.redact import redact

    running = invocation()
    text = (
        f"tritondev {__version__}\npython {sys.version}\nplatform {platform.platform()}\n"
        f"argv {redact(' '.join(sys.argv))}\n\n"
        + redact("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    )
    prefix = f"crash-{time.strftime('%Y%m%d-%H%M%S')}-"
    # A reading command leaves the workspace as it was, even when it crashes: its crash log goes to a
    # private temporary folder.
    if running.workspace is not None and running.writes_logs and running.workspace.is_dir():
        try:
            return str(writes.create_unique_text(running.workspace / "logs", prefix, ".log", text))
        except (OSError, TritondevError):  # a read-only workspace, a logs/ that is a link
            pass
    try:
        private = tempfile.mkdtemp(prefix="tritondev-crash-")  # 0700, ours, a new random name
        return str(writes.create_unique_text(private, prefix, ".log", text))
    except (OSError, TritondevError):
        return "(could not write a crash log)"


def main(argv: list[str] | None = None, ctrl_c: CtrlC | None = None) -> None:
    """Run the app and exit with the documented code of its outcome. `ctrl_c`: the SIGINT handler the
    program installed before its imports (bootstrap.program); in-process callers leave it out."""
    ctrl_c = ctrl_c or CtrlC()
    previous = signal.signal(signal.SIGINT, ctrl_c)
    try:
        try:
            code = _outcome(argv, ctrl_c)
        except KeyboardInterrupt:  # a Ctrl-C while the outcome was being reported
            ctrl_c.raising = False
            code = _interrupted()
        ctrl_c.raising = False  # the outcome is decided: a Ctrl-C from here on changes nothing
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            code = _stdout_closed(code)
    finally:
        ctrl_c.raising = False
        signal.signal(signal.SIGINT, previous)
        live_children.stop_all()  # what a background thread still waits on ends with the command
    sys.exit(code)


def _outcome(argv: list[str] | None, ctrl_c: CtrlC) -> int:
    """Run the app; every outcome (success, error, interruption, crash) as its exit code. A Ctrl-C
    raises only while the command runs: once it ended, its outcome is reported as it is."""
    code: int
    arguments = list(sys.argv[1:] if argv is None else argv)
    from bootstrap.core import run_state, ui
    from bootstrap.core.context import invocation

    run_state.start()  # nothing of an earlier run in this process carries over
    invocation().json_asked = _json_requested(arguments)
    ui.install_streams()
    ctrl_c.say = ui.info  # what a Ctrl-C held until a step is done says (interrupt.held_until_done)
    ctrl_c.raising = True
    if ctrl_c.seen:  # Ctrl-C while the program started: the command does not start
        ctrl_c.raising = False
        return _interrupted()
    try:
        app = build_app(_command_named_first(arguments))
        from bootstrap.core import fixlines

        # A fix that names another command repeats the options it takes: the whole CLI knows them.
        fixlines.know_commands(lambda: options.accepted_options(build_app()))
        command = coercion.plain_coercion(options.help_as_flag(typer.main.get_command(app)))
        result = command(args=argv, standalone_mode=False, prog_name="tritondev")
        ctrl_c.raising = False  # decided: reporting it is not interrupted by a Ctrl-C
        code = result if isinstance(result, int) else 0
        if ctrl_c.seen and code == ExitCode.INTERRUPTED:
            code = _interrupted()
    except BaseException as exc:  # every outcome is mapped (or re-raised) in _exit_code_of
        ctrl_c.raising = False
        code = _exit_code_of(exc, ctrl_c)
    return code


def _exit_code_of(exc: BaseException, ctrl_c: CtrlC) -> int:
    """The documented exit code of a command that ended with `exc`, reported as it should be."""
    from bootstrap.core import ui

    if isinstance(exc, TritondevError):
        _report_error(exc)
        return int(exc.exit_code)
    if isinstance(exc, (typer.Abort, KeyboardInterrupt)):
        return _interrupted()
    if isinstance(exc, typer.Exit):
        return _interrupted() if ctrl_c.seen and exc.exit_code == ExitCode.INTERRUPTED else int(exc.exit_code)
    if isinstance(exc, (BrokenPipeError, ui.StdoutClosed)):
        return _stdout_closed(0)
    if isinstance(exc, SystemExit):
        # Typer's own help console is rich's: on a closed stdout (`tritondev --help | head -1`) rich
        # points stdout at /dev/null and exits 1. That is a reader that stopped reading, as above.
        if exc.code != 1 or not _stdout_is_devnull():
            raise exc
        return 0
    if isinstance(exc, OSError):
        return _disk_full(exc) if exc.errno in _DISK_FULL else _internal_error(exc)
    if isinstance(exc, Exception):
        return _usage_error(exc) if _parser_error(exc) else _internal_error(exc)
    raise exc  # GeneratorExit and the like: not an outcome of a command


def _stdout_is_devnull() -> bool:
    try:
        now, devnull = os.fstat(sys.stdout.fileno()), os.stat(os.devnull)
    except (OSError, ValueError):
        return False
    return (now.st_dev, now.st_ino) == (devnull.st_dev, devnull.st_ino)


def _stdout_closed(code: int) -> int:
    """The reader of stdout went away (`tritondev pins | head -1`): not an error of the command.

    Later writes, and Python's own flush at exit, go to /dev/null instead of failing again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return code


def _json_requested(argv: list[str]) -> bool:
    """--json among the options (before a `--` that starts another program's arguments)."""
    head = argv[: argv.index("--")] if "--" in argv else argv
    return "--json" in head


def _parser_error(exc: Exception) -> bool:
    """An error of the option parser: what Typer raises for a bad command line has an int `exit_code` and
    `format_message()` (typer.TyperException from Typer 0.28; the same shape before). Recognised by that
    shape, so that no private module of Typer is imported."""
    return isinstance(getattr(exc, "exit_code", None), int) and callable(getattr(exc, "format_message", None))


def _usage_error(exc: Exception) -> int:
    """The option parser's error as every error is shown: one line, masked, a fix naming the help; with
    --json also as the one JSON document."""
    from bootstrap.core.redact import redact

    exit_code = int(getattr(exc, "exit_code", 2))
    code = int(ExitCode.USAGE) if exit_code == 2 else exit_code
    # A usage error knows the command it is about (click's Context, kept as `ctx`), for the help to name.
    context = getattr(exc, "ctx", None)
    command = str(getattr(context, "command_path", "") or "tritondev")
    possible = sorted(getattr(exc, "possibilities", None) or [])
    said = str(getattr(exc, "message", "") or exc)
    message = f"{said} (did you mean {' or '.join(possible)}?)" if possible else str(exc.format_message())  # type: ignore[attr-defined]
    fix = f"`{command} --help` lists its options"
    sys.stderr.write(redact(f"error: {_one_line(message)}\nfix: {fix}\n"))
    _error_document({"error": "UsageError", "message": message, "fix": fix, "exit_code": code}, asked=True)
    return code


def _interrupted() -> int:
    """Say "interrupted" and how to go on (also as the JSON document of a command run with --json, or,
    before any command parsed its options, of a command line that asked for it)."""
    fix = "run the same command again: it resumes where it stopped"
    _error_document(
        {"error": "Interrupted", "message": "interrupted", "fix": fix, "exit_code": int(ExitCode.INTERRUPTED)}
    )
    print(f"\ninterrupted\nfix: {fix}", file=sys.stderr)
    return int(ExitCode.INTERRUPTED)


def _disk_full(exc: OSError) -> int:
    """A full disk (or quota) is the machine's state, not a bug: say where, and how to go on."""
    from bootstrap.core.errors import FULL_DISK_FIX, ExternalError

    where = f" ({exc.filename})" if exc.filename else ""
    error = ExternalError(f"{exc.strerror}{where}", fix=FULL_DISK_FIX)
    _report_error(error)
    return int(error.exit_code)


def _internal_error(exc: BaseException) -> int:
    from bootstrap.core.redact import redact

    path = _write_crash_log(exc)
    message = redact(f"internal error in tritondev: {type(exc).__name__}: {exc}")
    fix = f"a crash log was written to {path}; please attach it to a bug report"
    _error_document(
        {
            "error": "InternalError",
            "message": message.splitlines()[0] if message else message,
            "fix": fix,
            "exit_code": int(ExitCode.INTERNAL),
            "crash_log": path,
        }
    )
    print(f"error: {message}\nA crash log was written to {path}; please attach it to a bug report.", file=sys.stderr)
    return int(ExitCode.INTERNAL)


if __name__ == "__main__":
    main()
