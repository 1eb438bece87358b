"""Terminal output. rich is imported lazily so that `--help` stays fast.

stdout carries results (and with --json nothing but one JSON document); stderr carries progress,
echoed commands, warnings and errors.

Two rules hold for everything printed here, whoever builds the text:
- credentials never show: both consoles write through `redact`, and so does `emit_json`;
- user text is never markup: the consoles have emoji codes off (a path with `:fire:` in it prints
  as written), `info`, `note` and `cell` print text as it is, and callers that style a line with
  rich markup escape every piece of outside text in it (rich.markup.escape).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any

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


def _console(name: str) -> Console:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich exits with status 1 here; a reader that stopped reading (`| head -1`) is no failure
            # of the command: cli.main turns this into exit 0.
            raise StdoutClosed

    return _Console(file=_RedactingStream(name), highlight=False, soft_wrap=True, emoji=False)  # type: ignore[arg-type]


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
    if _WORKING:
        _WORKING[-1](text)
        yield _WORKING[-1]
        return
    from rich.text import Text

    with console.status(Text(text), spinner="dots") as status:
        def say(new: str) -> None:
            status.update(Text(new))

        _WORKING.append(say)
        try:
            yield say
        finally:
            _WORKING.pop()


_WORKING: list[Callable[[str], None]] = []


def cell(value: object) -> Text:
    """A table cell showing `value` as written (a table parses plain strings as markup)."""
    from rich.text import Text

    return Text("" if value is None else str(value))


class StdoutClosed(Exception):
    """The reader of our output went away (`| head -1`). Not an OSError on purpose: the option parser
    would turn an EPIPE into exit status 1."""


_EMITTED: list[bool] = []


def emit_json(data: Any) -> None:
    """The one JSON document of a --json run, on stdout (credentials masked)."""
    _EMITTED.append(True)
    plain = json.loads(json.dumps(data, default=str))  # objects -> their text, so that it is masked too
    try:
        sys.stdout.write(json.dumps(redact_data(plain), indent=2) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise StdoutClosed from None


def json_emitted() -> bool:
    """Has this run already printed its JSON document? (An error after it must not print a second.)"""
    return bool(_EMITTED)


def new_run() -> None:
    """A command starts (cli.main): no JSON document printed yet."""
    _EMITTED.clear()
