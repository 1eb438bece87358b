"""Peak memory of a command's whole process tree, under a hard limit where the machine allows one.

Methods, the first that works here is used (`probe()`), and every result says which:

1. cgroup v2: a child of this process's cgroup in the cgroup2 mount, when its memory controller is
   delegated: `memory.max` = limit, `memory.peak`, `memory.events` oom_kill.
2. cgroup v1: a child of this process's memory cgroup: `memory.limit_in_bytes` = limit,
   `memory.max_usage_in_bytes`, `memory.oom_control` oom_kill.
3. No cgroup: the sum of VmRSS over the process tree (/proc); no limit can be enforced.

A cgroup charges page cache too (every object file the build writes), and the kernel reclaims it
before it kills anything, so the cgroup's own peak says little about running out of memory. The
figure that does is anonymous memory (compilers' heaps): `anon` (v2) or `total_rss` (v1) of
memory.stat, sampled every 20 ms; the cgroup's own peak is kept alongside as `peak_charged`.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bootstrap.pipeline.host.jobs import cgroup_folder, parse_cgroup_mounts, parse_proc_cgroup

INTERVAL = 0.02
GIB = 1024**3
UNLIMITED_V1 = 1 << 60  # v1 reports "no limit" as a page-rounded LONG_MAX


@dataclass(frozen=True)
class Method:
    kind: str  # "cgroup2" | "cgroup1" | "rss"
    parent: Path | None  # the cgroup folder children are made in

    def describe(self) -> str:
        if self.kind == "cgroup2":
            return (
                "cgroup v2: limit memory.max; peak = memory.stat anon sampled every 20 ms "
                "(memory.peak, page cache included, kept too)"
            )
        if self.kind == "cgroup1":
            return (
                "cgroup v1 memory controller: limit memory.limit_in_bytes; peak = memory.stat total_rss "
                "sampled every 20 ms (memory.max_usage_in_bytes, page cache included, kept too)"
            )
        return "sum of VmRSS over the process tree sampled every 50 ms (no cgroup here: no limit enforced)"


@dataclass(frozen=True)
class Measured:
    method: Method
    limit: int | None
    peak: int  # bytes: anonymous memory (cgroup) or summed RSS
    peak_charged: int | None  # the cgroup's own peak, page cache included
    oom_kills: int
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def _try_child(parent: Path, limit_file: str) -> bool:
    child = parent / f"tritondev-probe-{os.getpid()}"
    try:
        child.mkdir()
    except OSError:
        return False
    try:
        (child / limit_file).write_text(str(256 * 1024 * 1024))
        return True
    except OSError:
        return False
    finally:
        child.rmdir()


def probe() -> Method:
    own = parse_proc_cgroup(Path("/proc/self/cgroup").read_text())
    mounts = parse_cgroup_mounts(Path("/proc/self/mountinfo").read_text())
    for kind, limit_file in (("cgroup2", "memory.max"), ("memory", "memory.limit_in_bytes")):
        path = own.get("" if kind == "cgroup2" else kind)
        for mount_kind, root, mount in mounts:
            if path is None or mount_kind != kind:
                continue
            parent = cgroup_folder(path, root, mount)
            delegated = kind != "cgroup2" or "memory" in _words(parent / "cgroup.subtree_control")
            if delegated and _try_child(parent, limit_file):
                return Method("cgroup2" if kind == "cgroup2" else "cgroup1", parent)
    return Method("rss", None)


def _words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


def _stat_value(folder: Path, key: str) -> int:
    for line in (folder / "memory.stat").read_text().splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def _counter(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except OSError:
        pass
    return 0


def _tree_rss(root: int) -> int:
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
            status = Path(f"/proc/{entry.name}/status").read_text()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
        rss[int(entry.name)] = next(
            (int(s.split()[1]) * 1024 for s in status.splitlines() if s.startswith("VmRSS:")), 0
        )
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total


class _Sampler(threading.Thread):
    def __init__(self, read: Callable[[], int], interval: float) -> None:
        super().__init__(daemon=True)
        self.read, self.interval, self.peak = read, interval, 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            try:
                self.peak = max(self.peak, self.read())
            except (OSError, ValueError):
                pass
            self.done.wait(self.interval)


def run_measured(
    argv: Sequence[str], *, env: Mapping[str, str], cwd: Path, limit: int | None, method: Method | None = None
) -> Measured:
    """Run argv (its whole process tree) in a fresh cgroup with `limit` bytes, sampling its memory."""
    method = method or probe()
    started = time.perf_counter()
    if method.kind == "rss" or method.parent is None:
        proc = subprocess.Popen(
            list(argv), env=dict(env), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        sampler = _Sampler(lambda: _tree_rss(proc.pid), 0.05)
        sampler.start()
        out, err = proc.communicate()
        sampler.done.set()
        sampler.join()
        return Measured(method, None, sampler.peak, None, 0, proc.returncode, out, err, time.perf_counter() - started)
    group = method.parent / f"tritondev-bench-{os.getpid()}-{time.monotonic_ns()}"
    group.mkdir()
    v2 = method.kind == "cgroup2"
    try:
        (group / ("memory.max" if v2 else "memory.limit_in_bytes")).write_text(
            str(limit) if limit is not None else ("max" if v2 else "-1")
        )
        # The shell puts itself into the group, then becomes the command: every descendant is inside.
        wrapper = ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', str(group), *argv]
        proc = subprocess.Popen(
            wrapper, env=dict(env), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        sampler = _Sampler(lambda: _stat_value(group, "anon" if v2 else "total_rss"), INTERVAL)
        sampler.start()
        out, err = proc.communicate()
        sampler.done.set()
        sampler.join()
        charged: int | None = None
        if v2:
            peak_file = group / "memory.peak"
            charged = int(peak_file.read_text()) if peak_file.is_file() else None
            kills = _counter(group / "memory.events", "oom_kill")
        else:
            charged = int((group / "memory.max_usage_in_bytes").read_text())
            kills = _counter(group / "memory.oom_control", "oom_kill")
        return Measured(
            method, limit, sampler.peak, charged, kills, proc.returncode, out, err, time.perf_counter() - started
        )
    finally:
        _remove(group)


def _remove(group: Path) -> None:
    """rmdir once every process has left (a cgroup with members cannot be removed)."""
    for _ in range(50):
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.1)
