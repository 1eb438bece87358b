"""What a command's body returns: its outcome, shown once by the command decorator and turned into the exit code.

A command parses its options, calls the package that owns the work once, and returns an Outcome. The
decorator (`bootstrap.commands.options.command`) then shows it in exactly one way: `to_json()` as the
one JSON document of a --json run, else `render()` on the terminal; and only then raises its `failure`
(the CLI maps it to its exit code) or exits with `exit_code` (a status passed through, as `run` does).
No command decides twice between text and JSON, and none marks its own errors as already shown.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from bootstrap.core import ui
from bootstrap.core.errors import TritondevError


class Outcome(ABC):
    """The result of one command, as the user sees it."""

    # The text `render()` itself names the failure (doctor lists each problem and its fix): the CLI then
    # adds no error line of its own, only the exit code.
    renders_failure: ClassVar[bool] = False

    @abstractmethod
    def to_json(self) -> dict[str, object] | None:
        """The one JSON document of a --json run; None: this outcome has none of its own (the failure's
        document stands for it, or the command takes no --json)."""

    @abstractmethod
    def render(self) -> None:
        """The outcome on the terminal."""

    @property
    def failure(self) -> TritondevError | None:
        """What makes the command fail, raised once the outcome is shown; None: it did what was asked."""
        return None

    @property
    def exit_code(self) -> int:
        """The exit status of a command that did not fail: 0, or a status it passes through (`run`)."""
        return 0


def deliver(outcome: Outcome, *, json: bool) -> int:
    """Show `outcome` once (the JSON document, or the text), then raise its failure or return its exit code.

    A failure the output already carries is marked reported, so that the CLI adds neither a message nor
    a second JSON document and only exits with its code."""
    shown = False
    if json:
        document = outcome.to_json()
        if document is not None:
            ui.emit_json(document)
            shown = True
    else:
        outcome.render()
        shown = outcome.renders_failure
    failure = outcome.failure
    if failure is not None:
        failure.reported = failure.reported or shown
        raise failure
    return outcome.exit_code


@dataclass(frozen=True)
class ExitStatus(Outcome):
    """A program tritondev ran on this terminal, whose output the user already saw: its exit status is
    passed through (`run`), nothing else is said."""

    status: int

    def to_json(self) -> None:
        return None  # such a command takes no --json: the program's output is its output

    def render(self) -> None:
        return None

    @property
    def exit_code(self) -> int:
        return self.status
