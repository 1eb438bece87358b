"""The workspace: where checkouts, builds, logs and state live, and its lock.

Layout (documented in the README):
    <ws>/tritondev.toml        settings (optional)
    <ws>/src/pytorch|triton|llvm-project   checkouts
    <ws>/build/llvm/<key>/     LLVM builds, kept by key so they can be reused
    <ws>/venv/                 the default target environment
    <ws>/logs/<step>.log       one log per step, crash logs
    <ws>/state/                fingerprints, purge journal, lock
    <ws>/env.sh                exports that `tritondev env` prints
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core import writes
from bootstrap.core.errors import ConfigError, WorkspaceLocked
from bootstrap.core.fsutil import exclusive_flock


@dataclass(frozen=True)
class Workspace:
    root: Path

    @property
    def src(self) -> Path:
        return self.root / "src"

    @property
    def build(self) -> Path:
        return self.root / "build"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def venv(self) -> Path:
        return self.root / "venv"

    @property
    def env_file(self) -> Path:
        return self.root / "env.sh"

    @property
    def lock_path(self) -> Path:
        return self.state / "lock"

    def ensure(self) -> None:
        """Create the workspace folders; a clear error when that is impossible (read-only, a file, a
        link out of the workspace: core.writes)."""
        writes.anchor(self.root)
        for folder in (self.root, self.logs, self.state):
            try:
                os.close(writes.open_folder(folder))
            except OSError as exc:
                raise ConfigError(
                    f"cannot create workspace folder {folder}: {exc.strerror}",
                    fix="choose a writable workspace with --workspace DIR or TRITONDEV_WORKSPACE",
                ) from None
        if not os.access(self.root, os.W_OK):
            raise ConfigError(
                f"workspace {self.root} is not writable",
                fix="choose a writable workspace with --workspace DIR or TRITONDEV_WORKSPACE",
            )

    @contextmanager
    def lock(self, command: str) -> Iterator[None]:
        """Hold the workspace lock for the duration of a command that changes it.

        flock is released by the kernel when the holder dies, so a lock left by a killed process is
        taken over automatically; the PID in the file only names the holder for the message.
        """
        self.ensure()
        fd = writes.open_file(self.lock_path, writes.Mode.UPDATE)
        try:
            with exclusive_flock(fd) as acquired:
                if not acquired:
                    holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "unknown"
                    raise WorkspaceLocked(
                        f"workspace {self.root} is locked by another tritondev ({holder})",
                        fix="wait for it to finish, or stop that process; a lock of a dead process is taken over",
                    )
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"pid {os.getpid()} {command}\n".encode(), 0)
                try:
                    yield
                finally:
                    os.ftruncate(fd, 0)
        finally:
            os.close(fd)
