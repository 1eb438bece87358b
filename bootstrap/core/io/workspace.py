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

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import ConfigError, WorkspaceLocked
from bootstrap.core.fsutil import flock
from bootstrap.core.io import writes

_WRITABLE = "choose a writable workspace with --workspace DIR or TRITONDEV_WORKSPACE"


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

    # The folders setup makes inside: named here once.
    @property
    def triton_src(self) -> Path:
        """The Triton checkout tritondev makes (your own clone, --triton-src, is elsewhere)."""
        return self.src / "triton"

    @property
    def llvm_src(self) -> Path:
        return self.src / "llvm-project"

    @property
    def pytorch_cache(self) -> Path:
        """The bare repository PyTorch's pin files are read from."""
        return self.src / "pytorch.git"

    @property
    def llvm_builds(self) -> Path:
        """The LLVM build folders, one per build key."""
        return self.build / "llvm"

    @property
    def triton_home(self) -> Path:
        """TRITON_HOME of the workspace's builds."""
        return self.root / "triton-home"

    def not_a_workspace(self) -> str | None:
        """What the folder is when it must not become a workspace: a git checkout that is not one (cloning
        tritondev as ~/tritondev makes its own checkout the default workspace). A folder with a
        tritondev.toml or a state/ folder is a workspace, on purpose or from an earlier setup."""
        root = self.root
        if not (root / ".git").exists() or os.path.lexists(root / "tritondev.toml") or (root / "state").is_dir():
            return None
        own = (root / "shell" / "tritondev").is_file() and (root / "bootstrap").is_dir()
        return "tritondev's own checkout" if own else "a git checkout"

    def refuse_a_checkout(self) -> None:
        """ConfigError (exit 2) before anything is written into a git checkout that is not a workspace."""
        what = self.not_a_workspace()
        if what is not None:
            raise ConfigError(
                f"workspace {self.root} is {what}, not a workspace: setup would put src/, venv/, build/, logs/ "
                "and state/ inside it",
                fix=f"choose another folder: --workspace {self.root.parent / 'tritondev-work'} (or "
                f"TRITONDEV_WORKSPACE); to use this one on purpose, create {self.root / 'tritondev.toml'}",
            )

    def ensure(self) -> None:
        """Create the workspace folders; a clear error when that is impossible (read-only, a file, a
        link out of the workspace: core.writes)."""
        self.refuse_a_checkout()
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

    def check_creatable(self) -> None:
        """What ensure() would say, found without creating anything: a dry run's view of the real run.

        The first folder on the way that exists must be a folder, writable, on a writable filesystem."""
        self.refuse_a_checkout()
        for folder in (self.root, self.logs, self.state):
            existing = folder
            while not os.path.lexists(existing) and existing != existing.parent:
                existing = existing.parent
            if existing == folder and folder.is_dir():
                continue
            if not existing.is_dir():
                why = os.strerror(errno.ENOTDIR)  # as mkdir says it
            elif os.statvfs(existing).f_flag & os.ST_RDONLY:
                why = os.strerror(errno.EROFS)
            elif not os.access(existing, os.W_OK | os.X_OK):
                why = os.strerror(errno.EACCES)
            else:
                continue
            raise ConfigError(f"cannot create workspace folder {folder}: {why}", fix=_WRITABLE)
        if self.root.is_dir() and (not os.access(self.root, os.W_OK) or os.statvfs(self.root).f_flag & os.ST_RDONLY):
            raise ConfigError(f"workspace {self.root} is not writable", fix=_WRITABLE)

    @contextmanager
    def lock(self, command: str, *, shared: bool = False) -> Iterator[None]:
        """Hold the workspace lock for the duration of a command: exclusive for one that changes the
        workspace or its build folder (setup, build, bisect, purge, doctor --fix), shared for one that
        only reads the build folder (`test`): two test runs at once, never one during a build.

        flock is released by the kernel when the holder dies, so a lock left by a killed process is
        taken over automatically; the PID in the file only names the holder for the message (a shared
        holder writes it only where no other holder's is, and clears only its own).
        """
        self.ensure()
        fd = writes.open_file(self.lock_path, writes.Mode.UPDATE)
        mine = f"pid {os.getpid()} {command}{' (shared)' if shared else ''}\n".encode()
        try:
            with flock(fd, shared=shared) as acquired:
                if not acquired:
                    holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "unknown"
                    raise WorkspaceLocked(
                        f"workspace {self.root} is locked by another tritondev ({holder})",
                        fix="wait for it to finish, or stop that process; a lock of a dead process is taken over",
                    )
                if not shared or not os.pread(fd, 1, 0):  # a reader names itself only where no other does
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, mine, 0)
                try:
                    yield
                finally:
                    if not shared or os.pread(fd, len(mine) + 1, 0) == mine:
                        os.ftruncate(fd, 0)
        finally:
            os.close(fd)
