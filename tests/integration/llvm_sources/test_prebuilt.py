"""`tritondev setup --llvm prebuilt` on the test world: Triton's package for the pin, from a real HTTP
server, checked, unpacked, proven to run and built against; a wrong sum, a missing package and a
retired host refused with what to do; an interrupted download resumed with only the rest fetched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bootstrap.pipeline.llvm.builds import LLVM_STAMP
from tests.integration.build.harness import installed_triton
from tests.integration.llvm_sources.conftest import (
    GOOD,
    MISSING,
    RETIRED,
    WRONG_SUM,
    PrebuiltWorld,
    fresh_env,
    setup_prebuilt,
)
from tests.support.venvs import workspace_venv
from tests.world.packages import PackageServer, sha256_of

pytestmark = pytest.mark.slow


def steps(report: dict[str, Any]) -> dict[str, str]:
    return {s["step"]: s["status"] for s in report["steps"]}


@pytest.fixture(scope="module")
def first(
    prebuilt_world: PrebuiltWorld,
    package_server: PackageServer,
    shared_ccache: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    """A setup from nothing with --llvm prebuilt, whose first download the server cuts off halfway."""
    root = tmp_path_factory.mktemp("prebuilt-first")
    env = fresh_env(root, shared_ccache)
    name = prebuilt_world.package.archive
    size = prebuilt_world.package.path.stat().st_size
    package_server.drop_after[name] = size // 2
    before = len(package_server.served())
    proc = setup_prebuilt(prebuilt_world, package_server, root / "ws", GOOD, "--json", env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {
        "ws": root / "ws",
        "env": env,
        "root": root,
        "report": json.loads(proc.stdout),
        "size": size,
        "requests": package_server.served()[before:],
    }


def test_setup_completes_and_verifies_without_building_llvm(
    first: dict[str, Any], prebuilt_world: PrebuiltWorld
) -> None:
    ws, report = first["ws"], first["report"]
    folder = ws / "build" / "llvm" / prebuilt_world.package.name
    assert steps(report) == {
        "venv": "ran",
        "checkout-triton": "ran",
        "llvm-download": "ran",
        "purge": "up to date",
        "triton-requirements": "ran",
        "triton-install": "ran",
        "verify": "ran",
    }
    assert not any(c["step"].startswith(("llvm-configure", "llvm-build", "checkout-llvm")) for c in report["commands"])
    assert not (ws / "src" / "llvm-project").exists()
    provenance = report["verify"]["provenance"]
    assert provenance["ok"] and provenance["llvm_revision"] == prebuilt_world.world.llvm_commit
    assert Path(provenance["llvm_syspath"]).resolve() == folder.resolve()
    facts = installed_triton(ws / "venv" / "bin" / "python", ws)
    assert facts["llvm_commit"] == prebuilt_world.world.llvm_commit and Path(facts["llvm_syspath"]) == folder
    # The package as it was checked, unpacked and proven: its stamp, and nothing else left around it.
    stamp = json.loads((folder / LLVM_STAMP).read_text())
    assert stamp["sha256"] == prebuilt_world.package.sha256 and "19.1.0git" in stamp["runs"]
    assert sorted(p.name for p in folder.parent.iterdir()) == [prebuilt_world.package.name]
    assert report["llvm"]["package"]["sha256"] == prebuilt_world.package.sha256
    # The layout of Triton's packages (llvm-build.yml @ 5838701f: install-distribution of its components):
    # what Triton's configure reads (3.7 on: the tree's clang++ for the GSan runtime) is there.
    for rel in (
        "bin/clang++",
        "bin/FileCheck",
        "bin/mlir-tblgen",
        "include/llvm/Support/VCSRevision.h",
        "lib/cmake/llvm/LLVMConfig.cmake",
        "lib/cmake/mlir/MLIRConfig.cmake",
        "lib/cmake/lld/LLDConfig.cmake",
    ):
        assert (folder / rel).exists(), rel
    assert list(folder.glob("lib/clang/*/include")), "clang's resource headers"
    assert not (folder / "lib" / "libclangBasic.a").exists()  # not a distribution component


def test_an_interrupted_download_resumes_and_fetches_only_the_rest(first: dict[str, Any]) -> None:
    size, served = first["size"], [r for r in first["requests"] if r.path.endswith(".tar.gz")]
    assert [(r.status, r.range) for r in served] == [(200, None), (206, f"bytes={size // 2}-")]
    assert [r.sent for r in served] == [size // 2, size - size // 2]
    download = first["report"]["llvm"]["download"]
    assert download["received"] == size and download["attempts"] == 2


def test_a_rerun_does_nothing_and_another_workspace_reuses_the_package(
    first: dict[str, Any], prebuilt_world: PrebuiltWorld, package_server: PackageServer
) -> None:
    before = len(package_server.served())
    again = setup_prebuilt(prebuilt_world, package_server, first["ws"], GOOD, env=first["env"])
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Everything is up to date" in again.stdout
    other = first["root"] / "ws-2"
    workspace_venv(other)  # making it is the first setup's subject, not this one's
    proc = setup_prebuilt(prebuilt_world, package_server, other, GOOD, "--json", "--skip-verify", env=first["env"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert steps(report)["llvm-download"] == "up to date"
    mine = other / "build" / "llvm" / prebuilt_world.package.name
    assert mine.is_symlink() and mine.resolve() == (first["ws"] / "build" / "llvm" / prebuilt_world.package.name)
    assert len(package_server.served()) == before  # nothing downloaded again


def test_an_archive_left_by_an_earlier_run_is_hashed_again_before_it_is_unpacked(
    first: dict[str, Any], prebuilt_world: PrebuiltWorld, package_server: PackageServer
) -> None:
    """A run cut short between the download and the unpacking leaves <name>.tar.gz in build/llvm: the
    next run hashes it again (it may have changed since) and downloads the package afresh when it no
    longer is the pinned one."""
    package = prebuilt_world.package
    folder = first["ws"] / "build" / "llvm" / package.name
    shutil.rmtree(folder)  # as if unpacking had not happened yet
    archive = folder.parent / package.archive
    shutil.copyfile(prebuilt_world.packages / f"{prebuilt_world.name(WRONG_SUM)}.tar.gz", archive)  # other bytes
    before = len(package_server.served())
    proc = setup_prebuilt(
        prebuilt_world, package_server, first["ws"], GOOD, "--json", "--skip-verify", env=first["env"]
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert steps(report)["llvm-download"] == "ran"
    download = report["llvm"]["download"]
    assert (download["received"], download["sha256"]) == (first["size"], package.sha256)
    fetched = [r.path for r in package_server.served()[before:] if r.method == "GET"]
    assert fetched == [f"/llvm-builds/{package.archive}"]
    assert json.loads((folder / LLVM_STAMP).read_text())["sha256"] == package.sha256
    assert not archive.exists()


def test_dry_run_shows_url_sum_and_destination_and_downloads_nothing(
    prebuilt_world: PrebuiltWorld, package_server: PackageServer, shared_ccache: Path, tmp_path: Path
) -> None:
    before = len(package_server.served())
    ws = tmp_path / "ws"
    proc = setup_prebuilt(prebuilt_world, package_server, ws, GOOD, "--dry-run", env=fresh_env(tmp_path, shared_ccache))
    assert proc.returncode == 0, proc.stderr[-3000:]
    package = prebuilt_world.package
    line = next(line for line in proc.stdout.splitlines() if line.startswith("# llvm:"))
    assert package_server.url(package.archive) in line and package.sha256 in line
    assert str(ws / "build" / "llvm" / package.name) in line
    assert "llvm-download (would run)" in proc.stdout
    assert len(package_server.served()) == before and not ws.exists()


def _nothing_installed(ws: Path, name: str) -> None:
    llvm = ws / "build" / "llvm"
    assert not llvm.exists() or list(llvm.iterdir()) == [], list(llvm.iterdir())
    assert not list((ws / "venv").glob("lib/python*/site-packages/triton*")), "triton was installed"


def test_a_package_with_the_wrong_sum_is_refused_and_nothing_installed(
    prebuilt_world: PrebuiltWorld, package_server: PackageServer, shared_ccache: Path, tmp_path: Path
) -> None:
    workspace_venv(tmp_path / "ws")  # made ahead: the subject is the package, not the venv
    proc = setup_prebuilt(
        prebuilt_world, package_server, tmp_path / "ws", WRONG_SUM, "--json", env=fresh_env(tmp_path, shared_ccache)
    )
    assert proc.returncode == 4, proc.stderr[-3000:]
    error = json.loads(proc.stdout)
    actual = prebuilt_world.packages / f"{prebuilt_world.name(WRONG_SUM)}.tar.gz"
    assert f"sha256 {sha256_of(actual)}, expected {'0' * 64}" in error["message"]
    assert "nothing was kept" in error["message"] and error["fix"]
    _nothing_installed(tmp_path / "ws", prebuilt_world.name(WRONG_SUM))
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("build_number", "status", "words"), [(MISSING, 404, "HTTP 404"), (RETIRED, 409, "HTTP 409 (a retired host)")]
)
def test_a_missing_package_names_the_pin_and_offers_a_source_build(
    build_number: int,
    status: int,
    words: str,
    prebuilt_world: PrebuiltWorld,
    package_server: PackageServer,
    shared_ccache: Path,
    tmp_path: Path,
) -> None:
    name = f"{prebuilt_world.name(build_number)}.tar.gz"
    if status != 404:
        package_server.status[name] = status
    workspace_venv(tmp_path / "ws")  # made ahead: the subject is the package, not the venv
    proc = setup_prebuilt(
        prebuilt_world, package_server, tmp_path / "ws", build_number, env=fresh_env(tmp_path, shared_ccache)
    )
    assert proc.returncode == 5, proc.stderr[-3000:]
    commit, llvm = prebuilt_world.pins[build_number][:12], prebuilt_world.world.llvm_commit[:12]
    assert f"there is no prebuilt LLVM for this pin: Triton {commit} pins LLVM {llvm}" in proc.stderr
    assert words in proc.stderr and "--llvm source" in proc.stderr and "Traceback" not in proc.stderr
    _nothing_installed(tmp_path / "ws", name)


def test_a_package_host_that_does_not_resolve_is_one_line(
    prebuilt_world: PrebuiltWorld, package_server: PackageServer, shared_ccache: Path, tmp_path: Path
) -> None:
    """--llvm prebuilt from a host name that does not resolve: exit 4 with one line naming the host, no
    retries, and nothing of the package left (a later --llvm-prebuilt-url that resolves starts clean)."""
    workspace_venv(tmp_path / "ws")  # made ahead: the subject is the package host, not the venv
    proc = setup_prebuilt(
        prebuilt_world,
        package_server,
        tmp_path / "ws",
        GOOD,
        "--llvm-prebuilt-url",
        "https://llvm.nowhere.invalid/public/llvm-builds",
        env=fresh_env(tmp_path, shared_ccache),
    )
    assert proc.returncode == 4, proc.stderr[-3000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith("error: cannot resolve llvm.nowhere.invalid, the host of "), (
        proc.stderr[-3000:]
    )
    assert "no network, or no DNS for it" in errors[0] and "retrying" not in proc.stderr
    assert "fix: connect to the network" in proc.stderr and "Traceback" not in proc.stderr
    _nothing_installed(tmp_path / "ws", prebuilt_world.package.archive)
