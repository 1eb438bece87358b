"""Kernel cache: where it is, its size, stale entries (judged as `cache ls` judges them), network filesystems."""

from __future__ import annotations

from pathlib import Path

from bootstrap.doctor.facts import Facts, Skip
from bootstrap.doctor.model import CheckOutcome, Fix, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.kernels.cache import CacheReport, judge_cache
from bootstrap.kernels.cache.locate import cache_dir as triton_cache_dir

GIB = 1024**3
LARGE_CACHE = 5 * GIB
NETWORK_FS = {
    "nfs",
    "nfs4",
    "lustre",
    "cifs",
    "smb3",
    "smbfs",
    "fuse.sshfs",
    "9p",
    "gpfs",
    "beegfs",
    "ceph",
    "fuse.gcsfuse",
    "fuse.s3fs",
    "glusterfs",
    "fuse.glusterfs",
    "afs",
    "virtiofs",
}


def cache_dir(environ: dict[str, str]) -> Path:
    """Triton's cache folder: TRITON_CACHE_DIR, else $TRITON_HOME/.triton/cache, else ~/.triton/cache."""
    return _located(environ)[0]


def _located(environ: dict[str, str]) -> tuple[Path, str]:
    return triton_cache_dir(environ, Path(environ.get("HOME") or Path.home()).expanduser())


def judged_cache(facts: Facts) -> CacheReport:
    """The kernel cache judged as `cache ls` judges it (bootstrap.kernels.cache.judge_cache): what the
    checks report and what --fix removes are what `cache prune --stale` would."""

    def python() -> Path | None:
        try:
            return facts.target().executable
        except Skip:
            return None

    root, source = _located(facts.environ)
    return judge_cache(
        root, source, facts.ctx.runner, python, "no target environment (see python.interpreter)", resources=False
    )


def _judged(facts: Facts) -> CacheReport:
    return facts.memo("cache-report", lambda: judged_cache(facts))


def _human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def _not_tritons(report: CacheReport) -> str:
    foreign = sum(1 for e in report.entries if not e.removable)
    return f"; {foreign} folder(s) there are not Triton's (never removed)" if foreign else ""


@check("cache.size", "kernel cache size")
def size(facts: Facts) -> CheckOutcome:
    report = _judged(facts)
    if not report.root.exists():
        return ok(f"{report.root} (empty: does not exist yet)")
    shown = f"{_human(report.total_size)} in {len(report.entries)} entries at {report.root}"
    if report.total_size > LARGE_CACHE:
        return warn(f"{shown}: large", "tritondev cache prune --max-size 5G")
    return ok(shown)


@check("cache.stale", "no stale kernel cache entries")
def stale(facts: Facts) -> CheckOutcome:
    report = _judged(facts)
    if not report.entries:
        return ok("no entries")
    found = report.stale
    if not found:
        notes = f" ({'; '.join(report.notes)})" if report.notes else ""
        return ok(f"{len(report.entries)} entries, none stale{notes}{_not_tritons(report)}")
    return warn(
        f"{len(found)} of {len(report.entries)} entries are stale ({_human(sum(e.size for e in found))})"
        f"{_not_tritons(report)}",
        Fix(
            "tritondev doctor --fix (removes only those entries)", action="clear-cache", args={"root": str(report.root)}
        ),
        *[f"{e.path}: {'; '.join(e.stale)}" for e in found[:20]],
    )


def mount_of(path: Path, mounts_text: str) -> tuple[str, str]:
    """(mount point, fstype) holding `path`, from /proc/mounts text: the longest matching mount point."""
    best = ("/", "unknown")
    target = str(path)
    for line in mounts_text.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].replace("\\040", " ")
        if (target == point or target.startswith(point.rstrip("/") + "/")) and len(point) >= len(best[0]):
            best = (point, parts[2])
    return best


@check("cache.filesystem", "the kernel cache is on a local filesystem")
def filesystem(facts: Facts) -> CheckOutcome:
    root = cache_dir(facts.environ)
    existing = next((p for p in (root, *root.parents) if p.exists()), Path("/"))
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        raise Skip("/proc/mounts is not readable") from None
    point, fstype = mount_of(existing.resolve(), mounts)
    if fstype in NETWORK_FS:
        return warn(
            f"{root} is on {fstype} ({point}): concurrent compiles race (FileNotFoundError, Stale file handle)",
            "export TRITON_CACHE_DIR=/tmp/$USER/triton-cache  (a local disk)",
        )
    return ok(f"{root} on {fstype} ({point})")
