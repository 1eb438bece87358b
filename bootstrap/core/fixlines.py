"""A fix line that names a tritondev command repeats the options the user gave that chose the target.

`tritondev doctor --python V --check packages` that finds a problem must not suggest a bare
`tritondev doctor --fix`: that would examine another interpreter and find nothing. Code that writes
a fix names the command plainly (`run `tritondev setup` first`); `repeat_options`, applied wherever a
fix is shown (an error's `fix:` line and its JSON, doctor's findings and theirs), puts the options the
user gave on the command line that chose the target (--workspace, --python) right after the
command's name, where that command takes them, and the running command's own narrowing options
(doctor's --check and --arch) when the fix names the same command, and a fix naming `tritondev setup`
repeats the `--triton-src` the workspace's setup was last asked for. An option the fix already spells
out is left as written. Values given through TRITONDEV_* variables are not repeated: they still hold
in the user's shell.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from bootstrap.core import run_state

# The settings whose options choose the target a command works on.
TARGET_SETTINGS = ("workspace", "python")
_MENTION = re.compile(r"(?<![\w/.-])tritondev((?: [a-z][a-z-]*){1,2})")
# Where the words of one suggested command line end, for "does it spell this option out already".
_END = re.compile(r"`|\)|;|,| or | then|(?<![\w/.-])tritondev ")


@dataclass
class _Run:
    """What this run's fix lines repeat (bootstrap.core.run_state)."""

    given: dict[str, str] = field(default_factory=dict)  # option -> the value the user gave
    # command path -> options it takes: read from the whole CLI only when a fix first needs it, since a
    # start builds only the command it runs (cli.main)
    accepts_of: Callable[[], Mapping[str, frozenset[str]]] = dict
    known: dict[str, frozenset[str]] | None = None
    command: str | None = None  # the running command's path, e.g. "doctor"
    narrowing: tuple[str, ...] = ()  # its own options that narrowed it, as words
    clone: str | None = None  # the clone the workspace's setup was last asked to build (--triton-src)


def _run() -> _Run:
    return run_state.part(_Run)


def know_commands(accepts_of: Callable[[], Mapping[str, frozenset[str]]]) -> None:
    """Where to read the CLI's commands and the options each takes (cli.main): called at most once a run,
    by the first fix that names a command and has options to repeat."""
    run = _run()
    run.accepts_of, run.known = accepts_of, None


def accepted() -> dict[str, frozenset[str]]:
    """The CLI's command paths ("cache prune", "doctor") and the shared options each takes."""
    run = _run()
    if run.known is None:
        run.known = dict(run.accepts_of())
    return run.known


def remember_given(given: Mapping[str, str]) -> None:
    """The target-choosing options the user gave on the command line, by option (--python -> value)."""
    _run().given = dict(given)


def setup_asked_for(clone: str | None) -> None:
    """The workspace's setup was last asked to build this clone (--triton-src, remembered, or asked of a
    setup that failed): a fix naming `tritondev setup` repeats it, else pasted it builds PyTorch's pin."""
    _run().clone = clone


def narrow(command: str, words: Sequence[str]) -> None:
    """The running command `command` was narrowed by `words` (e.g. --check packages): repeated in its own fixes."""
    run = _run()
    run.command, run.narrowing = command, tuple(words)


def repeat_options(text: str | None) -> str | None:
    """`text` with the user's target-choosing options after each tritondev command it names."""
    run = _run()
    if not text or (not run.given and not run.narrowing and not run.clone):
        return text
    pieces: list[str] = []
    start = 0
    for match in _MENTION.finditer(text):
        path = _command_path(match.group(1).split())
        if path is None:
            continue
        at = match.start(1) + len(" " + path)
        rest = text[at:]
        end = _END.search(rest)
        spelled = rest[: end.start()] if end else rest
        words = _words_for(run, path, spelled)
        if words:
            pieces.append(text[start:at] + " " + " ".join(words))
            start = at
    pieces.append(text[start:])
    return "".join(pieces)


def _command_path(words: list[str]) -> str | None:
    """The longest command path of the CLI that `words` start with ("cache prune", "doctor")."""
    for n in (2, 1):
        path = " ".join(words[:n])
        if len(words) >= n and path in accepted():
            return path
    return None


def _words_for(run: _Run, path: str, spelled: str) -> list[str]:
    taken = accepted()[path]
    said = set(re.findall(r"(?<!\S)(--?[\w-]+)", spelled))
    words: list[str] = []
    for option, value in run.given.items():
        if option in taken and option not in said:
            words += [option, shlex.quote(value)]
    if path == run.command and not said & set(run.narrowing):
        words += [shlex.quote(w) for w in run.narrowing]
    if path == "setup" and run.clone and not said & {"--triton-src", "--triton-commit", "--torch-ref"}:
        words += ["--triton-src", shlex.quote(run.clone)]
    return words
