"""Job sizing under a cgroup memory limit: /proc/self/cgroup, mountinfo and the limit files, all laid
out in tmp_path as the kernel lays them out under /proc and /sys/fs/cgroup."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bootstrap.pipeline.host.jobs import (
    GIB,
    Resources,
    parse_cgroup_mounts,
    parse_proc_cgroup,
    read_cgroup_limit,
    size_jobs,
    usable_memory,
)

V1_UNLIMITED = "9223372036854771712\n"  # what v1 writes for "no limit"


def _mountinfo(tmp_path: Path, *mounts: str) -> Path:
    path = tmp_path / "mountinfo"
    lines = ["22 1 0:21 / / rw,relatime - overlay overlay rw"]
    for i, mount in enumerate(mounts):
        lines.append(f"{31 + i} 23 0:{28 + i} {mount}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _proc_cgroup(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "proc-cgroup"
    path.write_text(text)
    return path


def _meminfo(tmp_path: Path, available_gib: int) -> Path:
    path = tmp_path / "meminfo"
    path.write_text(f"MemTotal: {64 * 1024 * 1024} kB\nMemAvailable: {available_gib * 1024 * 1024} kB\n")
    return path


def test_v2_memory_max_of_the_own_cgroup(tmp_path: Path) -> None:
    fs = tmp_path / "sys/fs/cgroup"
    _write(fs / "user.slice/build.scope/memory.max", f"{3 * GIB}\n")
    mountinfo = _mountinfo(tmp_path, f"/ {fs} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate")
    proc = _proc_cgroup(tmp_path, "0::/user.slice/build.scope\n")
    assert read_cgroup_limit(proc, mountinfo) == (3 * GIB, "cgroup v2 memory.max")


def test_v2_a_parents_limit_binds_a_child_without_one(tmp_path: Path) -> None:
    fs = tmp_path / "sys/fs/cgroup"
    _write(fs / "user.slice/memory.max", f"{8 * GIB}\n")
    _write(fs / "user.slice/build.scope/memory.max", "max\n")
    mountinfo = _mountinfo(tmp_path, f"/ {fs} rw - cgroup2 cgroup2 rw")
    proc = _proc_cgroup(tmp_path, "0::/user.slice/build.scope\n")
    assert read_cgroup_limit(proc, mountinfo) == (8 * GIB, "cgroup v2 memory.max")


def test_v2_no_limit_anywhere(tmp_path: Path) -> None:
    fs = tmp_path / "sys/fs/cgroup"
    _write(fs / "user.slice/memory.max", "max\n")
    mountinfo = _mountinfo(tmp_path, f"/ {fs} rw - cgroup2 cgroup2 rw")
    assert read_cgroup_limit(_proc_cgroup(tmp_path, "0::/user.slice\n"), mountinfo) is None


def test_v2_inside_a_cgroup_namespace(tmp_path: Path) -> None:
    """A container with its own cgroup namespace sees itself at "/" and its cgroup mounted at the root."""
    fs = tmp_path / "sys/fs/cgroup"
    _write(fs / "memory.max", f"{2 * GIB}\n")
    mountinfo = _mountinfo(tmp_path, f"/ {fs} rw - cgroup2 cgroup2 rw")
    assert read_cgroup_limit(_proc_cgroup(tmp_path, "0::/\n"), mountinfo) == (2 * GIB, "cgroup v2 memory.max")


def test_v1_memory_controller_mounted_at_the_containers_cgroup(tmp_path: Path) -> None:
    """Docker on v1 without a namespace: /proc/self/cgroup names /docker/<id>, which is the mount's root."""
    memory = tmp_path / "sys/fs/cgroup/memory"
    _write(memory / "memory.limit_in_bytes", f"{4 * GIB}\n")
    mountinfo = _mountinfo(
        tmp_path,
        f"/docker/abc {tmp_path}/sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu,cpuacct",
        f"/docker/abc {memory} rw - cgroup cgroup rw,memory",
    )
    proc = _proc_cgroup(tmp_path, "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n")
    assert read_cgroup_limit(proc, mountinfo) == (4 * GIB, "cgroup v1 memory.limit_in_bytes")


def test_v1_unlimited_is_no_limit(tmp_path: Path) -> None:
    memory = tmp_path / "sys/fs/cgroup/memory"
    _write(memory / "memory.limit_in_bytes", V1_UNLIMITED)
    _write(memory / "jobs/memory.limit_in_bytes", V1_UNLIMITED)
    mountinfo = _mountinfo(tmp_path, f"/ {memory} rw - cgroup cgroup rw,memory")
    assert read_cgroup_limit(_proc_cgroup(tmp_path, "4:memory:/jobs\n"), mountinfo) is None


def test_missing_files_mean_no_limit(tmp_path: Path) -> None:
    assert read_cgroup_limit(tmp_path / "no-cgroup", tmp_path / "no-mountinfo") is None
    mountinfo = _mountinfo(tmp_path, f"/ {tmp_path}/gone rw - cgroup2 cgroup2 rw")
    assert read_cgroup_limit(_proc_cgroup(tmp_path, "0::/a/b\n"), mountinfo) is None


def test_usable_memory_is_the_lower_of_memavailable_and_the_limit(tmp_path: Path) -> None:
    fs = tmp_path / "sys/fs/cgroup"
    mountinfo = _mountinfo(tmp_path, f"/ {fs} rw - cgroup2 cgroup2 rw")
    proc = _proc_cgroup(tmp_path, "0::/build\n")
    _write(fs / "build/memory.max", f"{3 * GIB}\n")
    mem, source = usable_memory(16, _meminfo(tmp_path, 20), proc, mountinfo)
    assert (mem, source) == (3 * GIB, "cgroup v2 memory.max, below MemAvailable")
    sized = size_jobs(Resources(16, mem, source), "Release")
    assert (sized.compile, sized.link) == (2, 1)
    assert "3.0 GiB available (cgroup v2 memory.max, below MemAvailable)" in sized.reason

    _write(fs / "build/memory.max", f"{40 * GIB}\n")  # a limit above what is free does not raise it
    assert usable_memory(16, _meminfo(tmp_path, 20), proc, mountinfo) == (20 * GIB, "MemAvailable")


def test_usable_memory_without_meminfo_or_cgroup(tmp_path: Path) -> None:
    assert usable_memory(4, tmp_path / "none", tmp_path / "none", tmp_path / "none") == (
        8 * GIB,
        "2 GiB per core assumed",
    )


def test_parsers_of_the_real_formats() -> None:
    assert parse_proc_cgroup("4:memory:/process_api/x\n1:cpu,cpuacct:/\n0::/\n9:name=systemd:/s\n") == {
        "memory": "/process_api/x",
        "cpu": "/",
        "cpuacct": "/",
        "": "/",
        "name=systemd": "/s",
    }
    line = "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory"
    assert parse_cgroup_mounts(line) == [
        ("rw", Path("/"), Path("/sys/fs/cgroup/memory")),
        ("memory", Path("/"), Path("/sys/fs/cgroup/memory")),
    ]


@given(st.text())
def test_parsers_take_any_text(text: str) -> None:
    for controller, path in parse_proc_cgroup(text).items():
        assert path.startswith("/") and ":" not in controller
    for kind, root, mount in parse_cgroup_mounts(text):
        assert kind and isinstance(root, Path) and isinstance(mount, Path)
