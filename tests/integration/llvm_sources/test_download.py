"""The download, the unpacking and the proof that a package runs, against real servers, real archives
and real programs: a download resumed across runs, a server that ignores Range, a finished .part, a
wrong sum, hostile archive members, a package whose tools cannot start here."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bootstrap.core.errors import ExternalError, Offline
from bootstrap.core.process.runner import Runner
from bootstrap.pipeline.llvm.archive import UnsafeArchive, staging_folder, unpack
from bootstrap.pipeline.llvm.download import ChecksumMismatch, NotOnServer, download
from bootstrap.pipeline.setup.llvm_steps import prove_runs
from tests.integration.llvm_sources.conftest import PrebuiltWorld
from tests.world.packages import PackageServer, sha256_of, tar_folder


@pytest.fixture
def server(tmp_path: Path, prebuilt_world: PrebuiltWorld) -> Iterator[PackageServer]:
    """A server of its own (its faults must not leak into other tests) over a copy of the package."""
    root = tmp_path / "served"
    root.mkdir()
    shutil.copy(prebuilt_world.package.path, root / prebuilt_world.package.archive)
    started = PackageServer(root).start()
    yield started
    started.stop()


def test_a_download_cut_short_resumes_in_the_next_run(
    server: PackageServer, prebuilt_world: PrebuiltWorld, tmp_path: Path
) -> None:
    package = prebuilt_world.package
    size = package.path.stat().st_size
    dest = tmp_path / "dl" / package.archive
    server.drop_after[package.archive] = size // 3
    with pytest.raises(ExternalError, match="failed after 1 attempt: the connection was closed") as cut:
        download(server.url(package.archive), dest, sha256=package.sha256, retries=0)
    part = dest.with_name(dest.name + ".part")
    assert f"kept in {part} and the download resumes there" in str(cut.value.fix)
    assert part.stat().st_size == size // 3 and not dest.exists()  # nothing looks complete
    got = download(server.url(package.archive), dest, sha256=package.sha256, retries=0)
    assert (got.resumed_from, got.received, got.size) == (size // 3, size - size // 3, size)
    assert server.served()[-1].range == f"bytes={size // 3}-" and server.served()[-1].sent == size - size // 3
    assert sha256_of(dest) == package.sha256 and not part.exists()


def test_a_server_that_ignores_range_gets_a_fresh_download(
    server: PackageServer, prebuilt_world: PrebuiltWorld, tmp_path: Path
) -> None:
    package = prebuilt_world.package
    dest = tmp_path / package.archive
    dest.with_name(dest.name + ".part").write_bytes(b"x" * 1000)  # not even the right bytes
    server.ignore_range = True
    got = download(server.url(package.archive), dest, sha256=package.sha256)
    assert got.received == got.size == package.path.stat().st_size and sha256_of(dest) == package.sha256


def test_a_part_that_is_already_whole_is_not_downloaded_again(
    server: PackageServer, prebuilt_world: PrebuiltWorld, tmp_path: Path
) -> None:
    package = prebuilt_world.package
    dest = tmp_path / package.archive
    shutil.copy(package.path, dest.with_name(dest.name + ".part"))
    got = download(server.url(package.archive), dest, sha256=package.sha256)
    assert got.received == 0 and server.served()[-1].status == 416 and dest.is_file()


def test_a_wrong_sum_keeps_nothing_and_a_missing_file_says_its_status(
    server: PackageServer, prebuilt_world: PrebuiltWorld, tmp_path: Path
) -> None:
    package = prebuilt_world.package
    dest = tmp_path / "dl" / package.archive
    with pytest.raises(ChecksumMismatch, match=f"sha256 {package.sha256}, expected {'0' * 64}"):
        download(server.url(package.archive), dest, sha256="0" * 64)
    assert list(dest.parent.iterdir()) == []
    with pytest.raises(NotOnServer) as missing:
        download(server.url("llvm-nothing.tar.gz"), dest, sha256=None)
    assert missing.value.status == 404
    server.status[package.archive] = 409
    with pytest.raises(NotOnServer) as retired:
        download(server.url(package.archive), dest, sha256=None)
    assert retired.value.status == 409 and list(dest.parent.iterdir()) == []


def test_no_server_at_all_is_exit_4_after_the_retries(tmp_path: Path) -> None:
    with pytest.raises(ExternalError, match="failed after 2 attempts: cannot connect") as failed:
        download("http://127.0.0.1:9/llvm.tar.gz", tmp_path / "llvm.tar.gz", sha256=None, retries=1, backoff=0.01)
    assert failed.value.exit_code == 4


def test_a_host_that_does_not_resolve_is_one_error_without_retries(tmp_path: Path) -> None:
    """A name that does not resolve now will not in the seconds a retry waits (`.invalid` never
    resolves, RFC 2606): one Offline error naming the host, at once, and nothing written."""
    started = time.monotonic()
    with pytest.raises(Offline) as failed:
        download(
            "https://llvm.nowhere.invalid/public/llvm-builds/llvm.tar.gz",
            tmp_path / "llvm.tar.gz",
            sha256=None,
            retries=5,
            backoff=600.0,
        )
    # The first retry alone would wait 600 s: what a loaded machine adds to one resolution is far less.
    assert time.monotonic() - started < 600
    assert failed.value.exit_code == 4 and failed.value.hosts == ("llvm.nowhere.invalid",)
    assert failed.value.message.startswith("cannot resolve llvm.nowhere.invalid, the host of https://")
    assert "--llvm source" in (failed.value.fix or "") and "--llvm-prebuilt-url" in (failed.value.fix or "")
    assert list(tmp_path.iterdir()) == []


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


@pytest.mark.parametrize(
    ("member", "why"),
    [
        (_member("/tmp/escaped"), "an absolute path"),
        (_member("{top}/../escaped"), "'..'"),
        (_member("{top}/bin/evil", tarfile.SYMTYPE, "../../../../etc/passwd"), "pointing out"),
        (_member("{top}/bin/abs", tarfile.SYMTYPE, "/etc/passwd"), "absolute path"),
        (_member("{top}/dev/null", tarfile.CHRTYPE), "device file"),
        (_member("{top}/fifo", tarfile.FIFOTYPE), "device file, FIFO"),
    ],
)
def test_members_that_would_escape_are_refused_and_nothing_is_left(
    member: tarfile.TarInfo, why: str, prebuilt_world: PrebuiltWorld, mini_llvm_tree: Path, tmp_path: Path
) -> None:
    top = mini_llvm_tree.name
    member.name = member.name.format(top=top)
    archive = tar_folder(mini_llvm_tree, tmp_path / f"{top}.tar.gz", [member])
    into = tmp_path / "llvm"
    with pytest.raises(UnsafeArchive, match=why):
        unpack(archive, into, top)
    assert list(into.iterdir()) == [] and not (tmp_path / "escaped").exists()


def test_an_archive_without_the_packages_folder_is_refused(mini_llvm_tree: Path, tmp_path: Path) -> None:
    archive = tar_folder(mini_llvm_tree, tmp_path / "llvm-other.tar.gz")
    with pytest.raises(UnsafeArchive, match="outside the package's folder llvm-other/"):
        unpack(archive, tmp_path / "llvm", "llvm-other")
    truncated = tmp_path / f"{mini_llvm_tree.name}.tar.gz"
    data = tar_folder(mini_llvm_tree, tmp_path / "whole.tar.gz").read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(UnsafeArchive, match="cannot be unpacked"):
        unpack(truncated, tmp_path / "llvm", mini_llvm_tree.name)
    assert not staging_folder(tmp_path / "llvm", mini_llvm_tree.name).exists()


def test_a_package_whose_tools_cannot_start_here_is_refused_with_the_way_out(
    mini_llvm_tree: Path, tmp_path: Path
) -> None:
    """A real program the dynamic loader cannot start (its shared library is not shipped), as a
    package built for a newer glibc or libstdc++ fails: `version GLIBC_2.33 not found`."""
    cc = shutil.which("cc") or shutil.which("clang") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    build = tmp_path / "c"
    build.mkdir()
    (build / "needed.c").write_text("int needed(void) { return 0; }\n")
    (build / "main.c").write_text("int needed(void);\nint main(void) { return needed(); }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", build / "libneeded.so", build / "needed.c"], check=True)
    package = tmp_path / "pkg" / mini_llvm_tree.name
    shutil.copytree(mini_llvm_tree, package)
    subprocess.run([cc, "-o", package / "bin" / "llvm-config", build / "main.c", f"-L{build}", "-lneeded"], check=True)
    with pytest.raises(ExternalError) as refused:
        prove_runs(Runner(silent=True), package)
    assert "does not run on this machine: " in refused.value.message and "libneeded.so" in refused.value.message
    assert "--llvm source" in str(refused.value.fix)
    assert prove_runs(Runner(silent=True), mini_llvm_tree) == "llvm-config 19.1.0git"


@pytest.fixture
def mini_llvm_tree(prebuilt_world: PrebuiltWorld, tmp_path: Path) -> Path:
    """The package's tree, unpacked from the real package (bin/, lib/, include/ under its folder)."""
    with tarfile.open(prebuilt_world.package.path) as tar:
        tar.extractall(tmp_path / "tree", filter="data")
    return tmp_path / "tree" / prebuilt_world.package.name
