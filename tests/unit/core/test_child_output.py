"""The one echo of a child's output (core/ui.py ChildOutput): lines and pieces as they arrive, masked
unless verbatim, undecodable bytes written back as they were, and a reader that went away ending the
echo without an error."""

from __future__ import annotations

import io
import sys

import pytest

from bootstrap.core import ui
from bootstrap.core.redact import MASK


def _stream(encoding: str = "utf-8") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict", write_through=True)


def _written(stream: io.TextIOWrapper) -> bytes:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue()


def test_lines_and_pieces_in_the_order_they_come(monkeypatch: pytest.MonkeyPatch) -> None:
    err = _stream()
    monkeypatch.setattr(sys, "stderr", err)
    echo = ui.ChildOutput("stderr")
    echo.line("[1/2] Building CXX object")
    echo.text("a piece without its end")
    echo.text(", then its end\n")
    assert _written(err) == b"[1/2] Building CXX object\na piece without its end, then its end\n"


def test_through_the_process_stream_credentials_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    out = _stream()
    monkeypatch.setattr(sys, "stdout", ui._MaskedStream(out))
    ui.ChildOutput("stdout").line("fetching https://alice:s3cretpass@example.com/x.git")
    assert _written(out) == f"fetching https://{MASK}:{MASK}@example.com/x.git\n".encode()


def test_verbatim_writes_the_childs_bytes_unmasked(monkeypatch: pytest.MonkeyPatch) -> None:
    """`tritondev run`: the program's own output, byte for byte, whatever the terminal's encoding."""
    out = _stream("ascii")
    monkeypatch.setattr(sys, "stdout", ui._MaskedStream(out))
    raw = b"caf\xc3\xa9 \xff https://alice:s3cretpass@example.com\n"
    ui.ChildOutput("stdout", verbatim=True).text(raw.decode("utf-8", "surrogateescape"))
    assert _written(out) == raw


class _Gone(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError


def test_a_reader_that_went_away_ends_the_echo_not_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", _Gone())
    echo = ui.ChildOutput("stderr")
    echo.line("first")
    assert echo.closed
    echo.line("second")  # nothing is tried again, nothing raised
    closed = _stream()
    closed.close()
    monkeypatch.setattr(sys, "stderr", closed)
    later = ui.ChildOutput("stderr")
    later.text("to a closed stream\n")
    assert later.closed


def test_only_the_two_streams() -> None:
    with pytest.raises(ValueError, match="stdin"):
        ui.ChildOutput("stdin")
