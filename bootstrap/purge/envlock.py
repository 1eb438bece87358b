"""One purge or restore at a time per target environment, whichever workspace it runs from.

The workspace lock keeps two commands of one workspace apart; two workspaces may name the same
environment (--python, $VIRTUAL_ENV), and two pip runs removing and reinstalling triton in one
site-packages at once would leave it half-done. So purge and restore also hold an flock on the
site-packages folder itself: no file is written into the environment, the kernel releases the lock
when the holder dies, and /proc/locks names the holder's PID for the message.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bootstrap.core.errors import ConfigError, WorkspaceLocked
from bootstrap.core.fsutil import flock


def _holder(fd: int) -> str:
    """' (PID n: command)' of the process holding an flock on the file of `fd`, from /proc/locks."""
    info = os.fstat(fd)
    device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return ""
    for line in lines:
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device and fields[4] != str(os.getpid()):
            pid = fields[4]
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    command = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                command = ""
            return f" (PID {pid}{': ' + command[:120] if command else ''})"
    return ""


@contextmanager
def environment_lock(site_packages: Path, what: str) -> Iterator[None]:
    """Hold the target environment's lock while `what` (purge, restore) changes it; exit 6 when taken."""
    try:
        fd = os.open(site_packages, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ConfigError(
            f"cannot open the target environment's {site_packages}: {exc.strerror}",
            fix="check that the environment exists and is yours, or pick another with --python",
        ) from None
    try:
        with flock(fd) as acquired:
            if not acquired:
                raise WorkspaceLocked(
                    f"the target environment {site_packages} is being changed by another tritondev{_holder(fd)};"
                    f" the {what} did nothing",
                    fix="wait for it to finish (or stop that process), then run the command again",
                )
            yield
    finally:
        os.close(fd)
