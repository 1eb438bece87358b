"""A running command's output pipes read line by line as it arrives, each line handed to its callback."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import IO


def hand_over_lines(pipes: Mapping[IO[bytes] | None, Callable[[str], None] | None]) -> None:
    """Read every pipe that has a callback until it ends, handing each line over as it completes
    (line endings kept, undecodable bytes as surrogate escapes; a last line without an end as is)."""
    import selectors

    with selectors.DefaultSelector() as selector:
        pending: dict[int, bytes] = {}
        for pipe, callback in pipes.items():
            if pipe is not None and callback is not None:
                selector.register(pipe, selectors.EVENT_READ, callback)
                pending[pipe.fileno()] = b""
        while selector.get_map():
            for key, _ in selector.select():
                fd, callback = key.fd, key.data
                chunk = os.read(fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    if pending[fd]:
                        callback(pending[fd].decode("utf-8", "surrogateescape"))
                    continue
                *lines, pending[fd] = (pending[fd] + chunk).split(b"\n")
                for line in lines:
                    callback(line.decode("utf-8", "surrogateescape") + "\n")
