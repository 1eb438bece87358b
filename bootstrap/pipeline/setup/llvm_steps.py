"""The LLVM step run: a prebuilt package downloaded, unpacked, proven to run and registered."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import ExternalError, MismatchError, ToolMissing, WouldLoseData
from bootstrap.core.redact import redact
from bootstrap.pipeline.llvm import builds as llvm_builds
from bootstrap.pipeline.llvm.archive import copy_unpacked, remove_staging, staging_folder, unpack
from bootstrap.pipeline.llvm.auto import PrebuiltUnavailable
from bootstrap.pipeline.llvm.download import NotOnServer, download
from bootstrap.pipeline.llvm.package import Package, local_package
from bootstrap.pipeline.llvm.source import PrebuiltPackage
from bootstrap.pipeline.setup.report import ArchiveKept, PackageCopied, PackageDownloaded, PackageFetch

if TYPE_CHECKING:
    from bootstrap.core.process.runner import Runner
    from bootstrap.pipeline.setup.plan import PlannedStep
    from bootstrap.pipeline.setup.step_run import StepRun


# Tools of a package that must start here: llvm-config, and mlir-tblgen, which Triton's own build
# runs first (where a package built for a newer glibc fails: `GLIBC_2.33' not found).
PROVEN_TOOLS = ("llvm-config", "mlir-tblgen", "FileCheck")


def prove_runs(runner: Runner, folder: Path) -> str:
    """Start the package's tools here: the first one's answer ("llvm-config 19.1.0git"), or ExternalError
    saying why they do not run."""
    first = ""
    for name in PROVEN_TOOLS:
        tool = folder / "bin" / name
        if not tool.is_file():
            continue
        try:
            said = runner.capture([str(tool), "--version"], step="llvm-download", check=False, timeout=120)
        except ToolMissing as exc:
            raise _does_not_run(folder, exc.message) from None
        if not said.ok:
            lines = (said.stderr + "\n" + said.stdout).strip().splitlines()
            raise _does_not_run(folder, lines[0] if lines else f"{name} --version exited {said.returncode}")
        answer = said.stdout.strip().splitlines()
        first = first or f"{name} {answer[0].strip() if answer else ''}".strip()
    if not first:
        raise _does_not_run(folder, f"none of {', '.join(PROVEN_TOOLS)} is in its bin/")
    return first


def _does_not_run(folder: Path, why: str) -> ExternalError:
    return ExternalError(
        f"the prebuilt LLVM {folder.name} does not run on this machine: {why}",
        fix="build LLVM from source: --llvm source (an older glibc or libstdc++ than the package's is the usual"
        " cause; for Triton >= 3.5 TRITON_LLVM_SYSTEM_SUFFIX=almalinux-x64 picks the manylinux_2_28 package)",
    )


def file_sha256(path: Path) -> str | None:
    """The sha256 of the regular file at `path` (a link is not followed: not one of our downloads), read
    without blocking on a FIFO or a device; None when there is no such file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        os.set_blocking(fd, True)
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


def _kept_archive(package: Package, archive: Path) -> ArchiveKept | None:
    """An archive an earlier run downloaded (and was cut short before unpacking it), hashed again: the
    file may have changed since, whatever that run checked. None when there is none to use; one that
    does not match (or is not a regular file) is removed first - only that name, a link as a link."""
    if not os.path.lexists(archive):
        return None
    digest, wanted = file_sha256(archive), package.sha256
    if digest is not None and wanted is None:
        return ArchiveKept(
            archive, digest, "archive of an earlier run unpacked again (this Triton publishes no sha256 to check it)"
        )
    if digest is not None and wanted is not None and digest == wanted.lower():
        return ArchiveKept(archive, digest, "archive of an earlier run, its sha256 checked again, unpacked again")
    if archive.is_symlink() or archive.is_file():
        archive.unlink()
        return None
    raise WouldLoseData(
        f"{archive} is in the way of the LLVM package and is not a file tritondev downloaded; it is left alone",
        fix=f"move {archive} away, then run the command again",
    )


def _fetch(run: StepRun, package: Package, archive: Path) -> PackageFetch:
    """The verified archive at `archive`: an earlier run's if its sha256 still matches, else downloaded."""
    kept = _kept_archive(package, archive)
    if kept is not None:
        return kept
    console = None if run.json else run.console
    try:
        got = download(package.url, archive, sha256=package.sha256, console=console, label=f"LLVM {package.name}")
    except NotOnServer as exc:
        pins = run.facts.pins
        raise MismatchError(
            f"there is no prebuilt LLVM for this pin: Triton {pins.triton_commit[:12]} pins LLVM"
            f" {package.llvm_hash[:12]}, and {redact(package.url)} answers HTTP {exc.status}"
            + (" (a retired host)" if exc.status == 409 else ""),
            fix="build LLVM from source: --llvm source (or point --llvm-prebuilt-url at a mirror that has it)",
        ) from None
    return PackageDownloaded(archive, got.size, got.received, got.resumed_from, got.attempts, got.sha256)


def _remove_older_unpacking(folder: Path) -> None:
    """An older unpacking of ours goes (its stamp says it is a prebuilt package tritondev unpacked); a folder
    of that name without it is not ours and stops the step (exit 6), left as it is."""
    stamp = llvm_builds.read_site(folder, None).stamp
    if stamp.get("kind") != llvm_builds.PREBUILT_KIND:
        raise WouldLoseData(
            f"{folder} is in the way of the LLVM package and is not one tritondev unpacked; it is left alone",
            fix=f"move {folder} away, then run the command again",
        )
    shutil.rmtree(folder)


def run_download(run: StepRun, step: PlannedStep) -> str | None:
    source = run.facts.llvm
    if not isinstance(source, PrebuiltPackage) or run.dry_run:
        return None
    package = source.package
    if source.auto is None:
        return _download(run, package)

    try:
        return _download(run, package)
    except (ExternalError, MismatchError) as exc:  # auto: never worse than --llvm source
        raise PrebuiltUnavailable(package.url, exc.message) from None


def _download(run: StepRun, package: Package) -> str | None:
    folder = run.plan.llvm.build
    archive = folder.parent / package.archive
    local = local_package(package, os.environ)
    fetched: PackageFetch
    if local is not None:  # Triton's own unpacking of this very package: copied, nothing downloaded
        fetched = PackageCopied(local)
        if run.console is not None:
            run.console.print(
                f"LLVM {package.name}: copied from {local} (Triton's own unpacking, left by an earlier"
                " `pip install -e .`), not downloaded",
                markup=False,
                highlight=False,
            )
        unpacked = copy_unpacked(local, folder.parent, package.name)
    else:
        fetched = _fetch(run, package, archive)
        unpacked = unpack(archive, folder.parent, package.name)
    if run.report.llvm is not None:
        run.report.llvm.download = fetched
    try:
        version = prove_runs(run.runner, unpacked)
        llvm_builds.write_stamp(
            unpacked,
            {
                "kind": llvm_builds.PREBUILT_KIND,
                "package": package.name,
                "sha256": package.sha256,
                "url": redact(package.url),
                "llvm_hash": package.llvm_hash,
                "build_number": package.build_number,
                "suffix": package.suffix,
                "runs": version,
            },
        )
        if folder.is_symlink():
            folder.unlink()  # a link to another workspace's build: only the link goes
        elif folder.exists():
            _remove_older_unpacking(folder)
        os.replace(unpacked, folder)
    finally:
        remove_staging(staging_folder(folder.parent, package.name))
    archive.unlink(missing_ok=True)  # gigabytes; the unpacked folder is what is kept
    llvm_builds.register(package.name, folder.resolve(), folder.resolve())
    return None


def run_use(run: StepRun, step: PlannedStep) -> str | None:
    return step.reason  # the tree was judged with the facts; nothing to run


HANDLERS: dict[str, Callable[[StepRun, PlannedStep], str | None]] = {
    "llvm-download": run_download,
    "llvm-use": run_use,
}
