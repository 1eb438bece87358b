"""What a pseudo-terminal showed: tests that need tritondev's output as a terminal renders it."""

from __future__ import annotations

import os


def read_until_closed(main: int) -> str:
    """Everything written to the terminal whose main side is `main`, until every writer closed it
    (Linux reports the end as EIO); closes `main`."""
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    return b"".join(chunks).decode(errors="replace")
