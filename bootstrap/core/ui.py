"""Terminal output. rich is imported lazily so that `--help` stays fast.

stdout carries results (and with --json nothing but one JSON document); stderr carries progress,
echoed commands, warnings and errors.

Three rules hold for everything printed here, whoever builds the text:
- credentials never show: the process's stdout and stderr mask everything written to them
  (`install_streams`, from cli.main), both consoles write through `redact`, and so does `emit_json`;
  the one exception is `raw_stdout`, for `tritondev env`, whose output the user's shell evaluates;
- any text can be printed: a character the terminal's encoding cannot show (`LC_ALL=C`,
  `PYTHONIOENCODING=ISO-8859-1`) is written as a backslash escape, and a file name's undecodable
  bytes as the bytes they were, never an error;
- user text is never markup: the consoles have emoji codes off (a path with `:fire:` in it prints
  as written), `info`, `note` and `cell` print text as it is, and callers that style a line with
  rich markup escape every piece of outside text in it (rich.markup.escape).
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any

from bootstrap.core import run_state
from bootstrap.core.io.writes import strict_json
from bootstrap.core.redact import redact, redact_data

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


class _RedactingStream:
    """sys.stdout or sys.stderr (looked up at each write, as rich does), with credentials masked."""

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def stream(self) -> IO[str]:
        stream: IO[str] = getattr(sys, self._name)
        return stream

    def write(self, text: str) -> int:
        return self.stream.write(redact(text))

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding: those of the real stream
        return getattr(self.stream, name)


class _MaskedStream:
    """A stream of the process (sys.stdout, sys.stderr) with credentials masked in everything written."""

    def __init__(self, stream: IO[str]) -> None:
        self.unmasked = stream

    def write(self, text: str) -> int:
        self.unmasked.write(redact(text))
        return len(text)

    def writelines(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, buffer: the real stream's
        return getattr(self.unmasked, name)


def _escape_unencodable(error: UnicodeError) -> tuple[str | bytes, int]:
    """A character the output's encoding cannot hold: a file name's undecodable byte (a surrogate escape)
    goes out as that byte, anything else as a backslash escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    bad = error.object[error.start : error.end]
    if all(0xDC80 <= ord(c) <= 0xDCFF for c in bad):
        return bytes(ord(c) - 0xDC00 for c in bad), error.end
    return bad.encode("ascii", "backslashreplace").decode("ascii"), error.end


def install_streams() -> None:
    """Make sys.stdout and sys.stderr mask credentials and never fail on a character (cli.main)."""
    codecs.register_error("tritondev-escape", _escape_unencodable)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or isinstance(stream, _MaskedStream):
            continue
        try:
            stream.reconfigure(errors="tritondev-escape")
        except (AttributeError, ValueError, OSError):
            pass  # not a TextIOWrapper (a test's capture): it takes any text
        setattr(sys, name, _MaskedStream(stream))


class ChildOutput:
    """A child process's output shown as it arrives, on stdout or stderr: the one way tritondev echoes
    what a command it runs prints (a build, a test run, a bisect's command, docker, an opener).

    `line` takes what `Runner.stream` hands over (a line without its end), `text` what
    `Runner.run_attached` hands over (pieces with their line ends, undecodable bytes as surrogate
    escapes). The text goes through the process's stream, so credentials are masked and what the
    terminal cannot show is escaped; `verbatim` writes the bytes as the child wrote them, unmasked: only
    for `tritondev run`, whose output is the user's own program's (docs/safety.md). A reader that went
    away (`| head`) ends the echo, not the command, which goes on (and is still logged)."""

    def __init__(self, to: str = "stderr", *, verbatim: bool = False) -> None:
        if to not in ("stdout", "stderr"):
            raise ValueError(f"no stream {to!r}")
        self._name = to
        self._verbatim = verbatim
        self.closed = False

    def line(self, line: str) -> None:
        self.text(line + "\n")

    def text(self, text: str) -> None:
        if self.closed:
            return
        stream = getattr(sys, self._name)
        try:
            if self._verbatim and hasattr(stream, "buffer"):
                stream.flush()  # what was written through the text layer comes first
                stream.buffer.write(text.encode("utf-8", "surrogateescape"))
                stream.buffer.flush()
            else:
                stream.write(text)
                stream.flush()
        except (BrokenPipeError, ValueError):  # the reader went away, or the stream was closed
            self.closed = True


def emit_bytes(data: bytes) -> None:
    """Bytes on stdout as they are (an artifact piped into a file): never masked, never re-encoded."""
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.flush()


def raw_stdout() -> IO[str]:
    """stdout without masking: only for `tritondev env`, whose exports the user's shell evaluates."""
    stream: IO[str] = sys.stdout
    return stream.unmasked if isinstance(stream, _MaskedStream) else stream


def _usable_environ() -> dict[str, str]:
    """The environment rich sizes the consoles from, less a COLUMNS or LINES that is no size (`COLUMNS=0`
    would make every line, errors included, vanish)."""
    environ = dict(os.environ)
    for name in ("COLUMNS", "LINES"):
        value = environ.get(name, "").strip()
        if name in environ and not (value.isdigit() and int(value) > 0):
            del environ[name]
    return environ


def _console(name: str) -> Console:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich exits with status 1 here; a reader that stopped reading (`| head -1`) is no failure
            # of the command: cli.main turns this into exit 0.
            raise StdoutClosed

    return _Console(
        file=_RedactingStream(name),  # type: ignore[arg-type]
        highlight=False,
        soft_wrap=True,
        emoji=False,
        _environ=_usable_environ(),
    )


@lru_cache(maxsize=1)
def out() -> Console:
    return _console("stdout")


@lru_cache(maxsize=1)
def err() -> Console:
    return _console("stderr")


def echo_command(text: str) -> None:
    from rich.text import Text

    err().print(Text(text, style="dim"))


def info(text: str) -> None:
    """A line for the user on stderr, printed as written (no markup)."""
    err().print(text, markup=False)


def note(text: str) -> None:
    """A dim line on stderr, printed as written."""
    from rich.text import Text

    err().print(Text(text, style="dim"))


def warn(text: str) -> None:
    from rich.text import Text

    err().print(Text.assemble(("warning:", "yellow"), " ", text))


@contextmanager
def working(text: str, *, json: bool = False) -> Iterator[Callable[[str], None]]:
    """A spinner with `text` on stderr while steps that print nothing run (an import of torch, a compile);
    it yields a function that changes the text for the next step.

    Only on a terminal: in a pipe, a log or under --json nothing extra is written. It is transient:
    the line is gone when the steps end, and what they print meanwhile shows above it. One at a time:
    inside another, the outer one's text changes instead."""
    console = err()
    if json or not console.is_terminal:
        yield lambda _text: None
        return
    shown = run_state.part(_Output).working
    if shown:
        shown[-1](text)
        yield shown[-1]
        return
    from rich.text import Text

    with console.status(Text(text), spinner="dots") as status:

        def say(new: str) -> None:
            status.update(Text(new))

        shown.append(say)
        try:
            yield say
        finally:
            shown.pop()


@dataclass
class _Output:
    """This run's output so far (bootstrap.core.run_state)."""

    working: list[Callable[[str], None]] = field(default_factory=list)  # the spinner on screen, if any
    json_emitted: bool = False  # the run's one JSON document is out


def cell(value: object) -> Text:
    """A table cell showing `value` as written (a table parses plain strings as markup)."""
    from rich.text import Text

    return Text("" if value is None else str(value))


class StdoutClosed(Exception):
    """The reader of our output went away (`| head -1`). Not an OSError on purpose: the option parser
    would turn an EPIPE into exit status 1."""


def emit_json(data: Any) -> None:
    """The one JSON document of a --json run, on stdout (credentials masked; RFC 8259: no NaN)."""
    run_state.part(_Output).json_emitted = True
    try:
        sys.stdout.write(strict_json(redact_data(_plain(data)), indent=2) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise StdoutClosed from None


def _plain(data: Any) -> Any:
    """Objects as their text (so that it is masked too); containers as lists and dicts."""
    if isinstance(data, dict):
        return {k if k is None or isinstance(k, (str, int, float)) else str(k): _plain(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_plain(v) for v in data]
    if data is None or isinstance(data, (str, int, float, bool)):
        return data
    return str(data)


def json_emitted() -> bool:
    """Has this run already printed its JSON document? (An error after it must not print a second.)"""
    return run_state.part(_Output).json_emitted
