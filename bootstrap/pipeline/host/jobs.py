"""How many compile and link jobs a build may run without running the machine out of memory: the one
sizing that setup, build, `config show` and doctor use.

Compiling an LLVM/MLIR translation unit takes about 1-2.5 GB; linking an LLVM tool or libtriton
takes several GB in Debug (debug info), less in Release. Too many of either and the kernel's OOM
killer ends the build (or the desktop) an hour in, which is the most common build complaint
(field-problems.md #6). The sizing is a pure function so it can be tested over a table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bootstrap.core.settings.settings_table import Settings

GIB = 1024**3
UNLIMITED_V1 = 1 << 60  # cgroup v1 writes "no limit" as a page-rounded LONG_MAX

# Peak memory of one job, by build type (bytes). Debug objects carry full debug info; links of
# LLVM tools then read all of it (split DWARF keeps most of it out of the link, hence "several GB"
# rather than tens).
# TritonRelBuildWithAsserts (-O2 -g, Triton's default) costs what RelWithDebInfo (-O2 -g -DNDEBUG) does.
COMPILE_MEMORY = {
    "Debug": int(2.5 * GIB),
    "RelWithDebInfo": 2 * GIB,
    "TritonRelBuildWithAsserts": 2 * GIB,
    "Release": int(1.5 * GIB),
}
LINK_MEMORY = {"Debug": 8 * GIB, "RelWithDebInfo": 5 * GIB, "TritonRelBuildWithAsserts": 5 * GIB, "Release": 3 * GIB}
# A compile that runs on a distcc host keeps only its preprocessor (and ccache, distcc's client) here:
# an LLVM translation unit preprocesses in a few hundred MB.
PREPROCESS_MEMORY = GIB // 2

# Disk an LLVM/MLIR build (projects mlir;llvm;lld, targets Native;NVPTX;AMDGPU) and a Triton build
# take, by build type, in GiB: estimates from typical builds, with room for ccache's default 5 GiB.
LLVM_DISK = {"Release": 12, "RelWithDebInfo": 40, "Debug": 60}
TRITON_DISK = {"Release": 3, "RelWithDebInfo": 8, "TritonRelBuildWithAsserts": 8, "Debug": 12}
SOURCES_DISK = 4  # shallow llvm-project and triton checkouts
CCACHE_DISK = 5
# CPU time of a cold LLVM/MLIR build of the same shape, in core-hours (about 6000 compile jobs):
# rough figures of typical builds; with a warm ccache it takes a fraction of this.
LLVM_CORE_HOURS = {"Release": 6.0, "RelWithDebInfo": 8.0, "Debug": 8.0}


def disk_needed(build_type: str, llvm_build_type: str, llvm_built: bool) -> int:
    """GiB a setup still needs: sources, Triton build, ccache, and the LLVM build unless it exists."""
    need = SOURCES_DISK + TRITON_DISK.get(build_type, 12) + CCACHE_DISK
    if not llvm_built:
        need += LLVM_DISK.get(llvm_build_type, 60)
    return need


def llvm_build_hours(compile_jobs: int, llvm_build_type: str) -> float:
    """Wall-clock hours of a cold LLVM/MLIR build on `compile_jobs` parallel jobs (a rough estimate)."""
    return LLVM_CORE_HOURS.get(llvm_build_type, LLVM_CORE_HOURS["Debug"]) / max(1, compile_jobs)


@dataclass(frozen=True)
class Resources:
    cpus: int  # CPUs this process may run on (affinity), not the machine's count
    mem_available: int  # bytes: MemAvailable from /proc/meminfo, or the cgroup's limit where lower
    memory_source: str = "MemAvailable"  # which of the two mem_available is
    machine_cpus: int = 0  # the machine's CPUs, affinity aside (0: not known)

    def to_json(self) -> dict[str, object]:
        return {
            "cpus": self.cpus,
            "mem_available_gib": round(self.mem_available / GIB, 1),
            "memory_source": self.memory_source,
        }


@dataclass(frozen=True)
class Jobs:
    compile: int
    link: int
    reason: str
    # Tablegen runs here whatever runs the compiles: as many at once as local compiles would be
    # (0: the compile jobs, for a Jobs made by hand).
    tablegen: int = 0

    @property
    def tablegen_jobs(self) -> int:
        return self.tablegen or self.compile

    def to_json(self) -> dict[str, object]:
        return {"compile": self.compile, "link": self.link, "tablegen": self.tablegen_jobs, "reason": self.reason}


def per_compile(build_type: str) -> int:
    """Bytes one compile of `build_type` takes at its peak."""
    return COMPILE_MEMORY.get(build_type, COMPILE_MEMORY["Debug"])


def per_link(build_type: str) -> int:
    """Bytes one link of `build_type` takes at its peak."""
    return LINK_MEMORY.get(build_type, LINK_MEMORY["Debug"])


def memory_allows(res: Resources, build_type: str) -> int:
    """How many compiles of `build_type` the memory holds at once (at least one)."""
    return int(max(1, res.mem_available // per_compile(build_type)))


def hungriest(build_type: str, llvm_build_type: str) -> str:
    """The build type of the two whose jobs take the most memory: both builds are sized by it."""
    order = ("Debug", "RelWithDebInfo", "TritonRelBuildWithAsserts", "Release")
    return next((t for t in order if t in (build_type, llvm_build_type)), "Debug")


def size_jobs(res: Resources, build_type: str, *, jobs: int | None = None, link_jobs: int | None = None) -> Jobs:
    """Compile jobs = min(cpus, memory / per-compile); link jobs = min(compile, memory / per-link).

    Explicit `jobs` / `link_jobs` win; link jobs never exceed compile jobs (ninja could not run more).
    """
    gib = res.mem_available / GIB
    by_memory = memory_allows(res, build_type)
    if jobs is not None:
        compile_jobs = jobs
        why = f"--jobs {jobs}"
    else:
        compile_jobs = max(1, min(res.cpus, by_memory))
        limit = "cores" if res.cpus <= by_memory else "memory"
        why = (
            f"{res.cpus} cores, {gib:.1f} GiB available ({res.memory_source}) at {per_compile(build_type) / GIB:g} GiB"
            f" per {build_type} compile: limited by {limit}"
        )
    link, link_why = _link_jobs(res, build_type, compile_jobs, link_jobs)
    return Jobs(compile=int(compile_jobs), link=link, reason=why + link_why, tablegen=int(compile_jobs))


def _link_jobs(res: Resources, build_type: str, compile_jobs: int, link_jobs: int | None) -> tuple[int, str]:
    """Link jobs: as given, else sized from memory; never more than compile jobs (ninja could not run more)."""
    if link_jobs is not None:
        return min(link_jobs, compile_jobs), f"; link jobs {link_jobs} given"
    link = max(1, min(compile_jobs, res.mem_available // per_link(build_type)))
    return int(link), f"; {link} link job(s) at {per_link(build_type) / GIB:g} GiB per {build_type} link"


def size_distributed(
    res: Resources, build_type: str, slots: int, *, jobs: int | None = None, link_jobs: int | None = None
) -> Jobs:
    """Jobs of a build whose compiles run on distcc hosts: as many compiles as the hosts have slots
    (`--jobs` wins), each holding only a preprocessor here, so at most memory / PREPROCESS_MEMORY of
    them; links and tablegen run here, sized from this machine as without distcc."""
    local = size_jobs(res, build_type)
    if jobs is not None:
        compile_jobs, why = jobs, f"--jobs {jobs}"
    else:
        by_memory = max(1, res.mem_available // PREPROCESS_MEMORY)
        compile_jobs = int(min(slots, by_memory))
        why = f"{slots} distcc slot(s) of the hosts used"
        if by_memory < slots:
            why += (
                f", limited to {compile_jobs} by {res.mem_available / GIB:.1f} GiB here at"
                f" {PREPROCESS_MEMORY / GIB:g} GiB per preprocessor"
            )
    link, link_why = _link_jobs(res, build_type, compile_jobs, link_jobs)
    why += f"{link_why}; {local.compile} tablegen job(s) here, as local compiles would be"
    return Jobs(compile=int(compile_jobs), link=link, reason=why, tablegen=min(local.compile, compile_jobs))


def size_for_build_types(
    res: Resources,
    build_type: str,
    llvm_build_type: str,
    *,
    jobs: int | None = None,
    link_jobs: int | None = None,
    distcc_slots: int | None = None,
) -> Jobs:
    """One sizing for both builds (Triton's and LLVM's), by the hungrier build type of the two; with
    distcc_slots, the compiles run on distcc hosts with that many slots (size_distributed)."""
    hungry = hungriest(build_type, llvm_build_type)
    if distcc_slots is not None:
        return size_distributed(res, hungry, distcc_slots, jobs=jobs, link_jobs=link_jobs)
    return size_jobs(res, hungry, jobs=jobs, link_jobs=link_jobs)


def size_for_settings(settings: Settings, res: Resources | None = None, *, distcc_slots: int | None = None) -> Jobs:
    """The jobs the builds of `settings` run with on this machine (or `res`): its build types, --jobs and
    --link-jobs; what setup uses, `config show` shows and doctor checks the memory against."""
    return size_for_build_types(
        res or detect(),
        settings.build_type,
        settings.llvm_build_type,
        jobs=settings.jobs,
        link_jobs=settings.link_jobs,
        distcc_slots=distcc_slots,
    )


def read_mem_available(meminfo: Path = Path("/proc/meminfo")) -> int | None:
    """MemAvailable in bytes, or None where the file does not exist (not Linux)."""
    try:
        text = meminfo.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                return int(parts[1]) * 1024
    return None


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """/proc/self/cgroup as {controller: path}; the v2 hierarchy (`0::/path`) under the key ""."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split(":", 2)
        if len(fields) != 3 or not fields[2].startswith("/"):
            continue
        for controller in fields[1].split(",") if fields[1] else [""]:
            paths.setdefault(controller, fields[2])
    return paths


def parse_cgroup_mounts(text: str) -> list[tuple[str, Path, Path]]:
    """Each cgroup mount of /proc/self/mountinfo as (kind, root inside the hierarchy, mount point),
    kind "cgroup2" or, for v1, one entry per controller (and name=...) in its super options."""
    mounts: list[tuple[str, Path, Path]] = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if not sep or len(fields) < 5 or not rest:
            continue
        if rest[0] == "cgroup2":
            mounts.append(("cgroup2", Path(fields[3]), Path(fields[4])))
        elif rest[0] == "cgroup" and len(rest) > 2:
            mounts += [(option, Path(fields[3]), Path(fields[4])) for option in rest[2].split(",")]
    return mounts


def _limit_value(text: str) -> int | None:
    """A memory limit file's bytes; None for no limit (v2 "max", v1's page-rounded LONG_MAX)."""
    value = text.strip()
    if not value.isdigit() or int(value) >= UNLIMITED_V1:
        return None
    return int(value)


def cgroup_folder(path: str, root: Path, mount: Path) -> Path:
    """The folder of cgroup `path` (from /proc/self/cgroup) in a hierarchy mounted at `mount` from `root`."""
    own = Path(path)
    # Without a cgroup namespace the mount's root is a prefix of our path; with one, it is not.
    return mount / (own.relative_to(root) if own.is_relative_to(root) else own.relative_to("/"))


def _lowest_limit(mount: Path, folder: Path, name: str) -> int | None:
    """The lowest `name` from the cgroup up to the mount (a parent's limit binds its children)."""
    lowest: int | None = None
    while True:
        try:
            limit = _limit_value((folder / name).read_text(encoding="ascii", errors="replace"))
        except OSError:
            limit = None
        if limit is not None and (lowest is None or limit < lowest):
            lowest = limit
        if folder == mount or mount not in folder.parents:
            return lowest
        folder = folder.parent


def read_cgroup_limit(
    proc_cgroup: Path = Path("/proc/self/cgroup"), mountinfo: Path = Path("/proc/self/mountinfo")
) -> tuple[int, str] | None:
    """This process's cgroup memory limit in bytes and which file it came from (v2 memory.max, v1
    memory.limit_in_bytes), or None where there is none: a container or a systemd slice with a
    limit sees the host's MemAvailable, so the limit is what the OOM killer enforces."""
    try:
        own = parse_proc_cgroup(proc_cgroup.read_text(encoding="ascii", errors="replace"))
        mounts = parse_cgroup_mounts(mountinfo.read_text(encoding="ascii", errors="replace"))
    except OSError:
        return None
    found: list[tuple[int, str]] = []
    for kind, root, mount in mounts:
        controller, name = ("", "memory.max") if kind == "cgroup2" else ("memory", "memory.limit_in_bytes")
        if kind not in ("cgroup2", "memory") or controller not in own:
            continue
        limit = _lowest_limit(mount, cgroup_folder(own[controller], root, mount), name)
        if limit is not None:
            found.append((limit, f"cgroup {'v2 memory.max' if kind == 'cgroup2' else 'v1 memory.limit_in_bytes'}"))
    return min(found) if found else None


def usable_memory(
    cpus: int,
    meminfo: Path = Path("/proc/meminfo"),
    proc_cgroup: Path = Path("/proc/self/cgroup"),
    mountinfo: Path = Path("/proc/self/mountinfo"),
) -> tuple[int, str]:
    """Bytes the build may use and where the figure comes from: MemAvailable, or the cgroup's memory
    limit where that is lower."""
    mem, source = read_mem_available(meminfo), "MemAvailable"
    if mem is None:
        # Without MemAvailable, assume 2 GiB per core: sizing then follows the cores.
        mem, source = cpus * 2 * GIB, "2 GiB per core assumed"
    cgroup = read_cgroup_limit(proc_cgroup, mountinfo)
    if cgroup is not None and cgroup[0] < mem:
        mem, source = cgroup[0], f"{cgroup[1]}, below MemAvailable"
    return mem, source


def detect() -> Resources:
    """This machine's usable CPUs (affinity, so containers and taskset are honoured) and memory."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cpus = os.cpu_count() or 1
    mem, source = usable_memory(max(1, cpus))
    return Resources(
        cpus=max(1, cpus), mem_available=mem, memory_source=source, machine_cpus=os.cpu_count() or max(1, cpus)
    )
