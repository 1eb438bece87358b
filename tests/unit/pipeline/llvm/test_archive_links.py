"""Unpacking a package whose links form chains: nothing is ever written outside the package's folder,
on any Python. Names alone cannot judge such a chain (`top/a -> .` makes `top/a/..` the staging
folder), so the extractor judges each member by what is on disk; `tarfile`'s data filter (absent from
Python 3.10.0-3.10.11 and 3.11.0-3.11.3) is only a second guard, and every test here also runs with it
taken away, the code path of those Pythons.

The archives are real tar files written here; the unpacking is real (no process is started). Each runs
in a folder 40 levels deep, deeper than any chain drawn here can climb, and everything around the
package is compared before and after.
"""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.pipeline.llvm.archive import UnsafeArchive, links_out, unpack

TOP = "llvm-0123abcd-ubuntu-x64"
Member = tuple[str, str, str]  # (kind, name below TOP, link target)


@pytest.fixture(params=["data-filter", "no-data-filter"])
def python(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """With tarfile's data filter, and as on a Python without it."""
    if request.param == "no-data-filter" and hasattr(tarfile, "data_filter"):
        monkeypatch.delattr(tarfile, "data_filter")
    return str(request.param)


def archive(where: Path, members: list[Member]) -> Path:
    path = where / f"{TOP}.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for kind, name, target in [("dir", "", ""), ("dir", "bin", ""), ("dir", "lib", ""), *members]:
            info = tarfile.TarInfo(f"{TOP}/{name}".rstrip("/"))
            data = b""
            if kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
            elif kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, target
            elif kind == "hardlink":
                info.type, info.linkname = tarfile.LNKTYPE, f"{TOP}/{target}"
            else:
                data = f"written by the archive as {name}\n".encode()
                info.size, info.mode = len(data), 0o4777  # set-id and world-writable: never kept
            tar.addfile(info, io.BytesIO(data))
    return path


def everything(root: Path) -> dict[str, str]:
    """Every path under `root` with what it is (a link's target, a file's bytes), links not followed."""
    seen = {}
    for where, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(where, name)
            if os.path.islink(path):
                seen[path] = "-> " + os.readlink(path)
            elif os.path.isfile(path):
                seen[path] = Path(path).read_text(errors="replace")
            else:
                seen[path] = "folder"
    return seen


def deep(tmp_path: Path) -> tuple[Path, Path]:
    """(the folder of the archive, the `into` folder 40 levels down) with a file of the user's on the way."""
    base = tmp_path.joinpath(*[f"d{i}" for i in range(40)])
    into = base / "build" / "llvm"
    into.mkdir(parents=True)
    (base / "mine.txt").write_text("the user's\n")
    return tmp_path, into


def unpack_and_check(tmp_path: Path, members: list[Member]) -> Path | None:
    """Unpack; whatever the outcome nothing outside the package's staging folder changed, and a finished
    package has no link out of it. The unpacked folder, or None when refused."""
    root, into = deep(tmp_path)
    path = archive(root, members)
    staging = into / f".{TOP}.unpacking"
    before = everything(root)
    try:
        unpacked: Path | None = unpack(path, into, TOP)
    except UnsafeArchive:
        unpacked = None
    after = {
        p: what for p, what in everything(root).items() if not p.startswith(str(staging) + os.sep) and p != str(staging)
    }
    assert after == before
    if unpacked is not None:
        assert links_out(unpacked) == []
        for where, _dirs, files in os.walk(unpacked):
            for name in files:
                mode = os.lstat(os.path.join(where, name)).st_mode
                assert not mode & 0o7022 or os.path.islink(os.path.join(where, name))
    return unpacked


def test_a_chain_of_links_through_dot_never_writes_outside(python: str, tmp_path: Path) -> None:
    """The report: `top/a -> .`, links inside `top` by their names but `/`-ward on disk, a file through them."""
    # On disk: up is the staging folder, up1 build/llvm, up2 build, up3 the folder holding the user's file.
    climb = [
        ("symlink", "a", "."),
        ("symlink", "up", "a/.."),
        ("symlink", "up1", "up/.."),
        ("symlink", "up2", "up1/.."),
        ("symlink", "up3", "up2/.."),
    ]
    for last in ("up3/escaped.txt", "up3/mine.txt"):
        assert unpack_and_check(tmp_path / last.replace("/", "-"), [*climb, ("file", last, "")]) is None


def test_a_link_made_safe_then_pointed_elsewhere_is_refused(python: str, tmp_path: Path) -> None:
    """A second member of a name already written would change what earlier links lead to."""
    members = [
        ("dir", "d1", ""),
        ("dir", "d1/d2", ""),
        ("symlink", "a", "d1/d2"),
        ("symlink", "b", "a/.."),
        ("symlink", "a", "."),
        ("file", "b/escaped.txt", ""),
    ]
    assert unpack_and_check(tmp_path, members) is None


def test_a_member_below_a_link_to_a_file_is_refused(python: str, tmp_path: Path) -> None:
    """`b -> a` (a file), then the link `b/c -> c`: tarfile cannot make it, and falls back to extracting
    the member its target names, `b/c` itself, again and again (a RecursionError, not a refusal)."""
    for last in (("symlink", "b/c", "c"), ("file", "b/c", ""), ("dir", "b/c", ""), ("hardlink", "b/c", "a")):
        members = [("file", "a", ""), ("symlink", "b", "a"), last]
        assert unpack_and_check(tmp_path / last[0], members) is None


def test_a_hard_link_to_a_link_out_is_refused(python: str, tmp_path: Path) -> None:
    members = [("symlink", "a", "."), ("symlink", "up", "a/.."), ("hardlink", "lib/h", "up/../../mine.txt")]
    assert unpack_and_check(tmp_path, members) is None


def test_a_package_with_ordinary_links_unpacks(python: str, tmp_path: Path) -> None:
    members = [
        ("file", "lib/libLLVM.so.19", ""),
        ("symlink", "lib/libLLVM.so", "libLLVM.so.19"),
        ("file", "bin/lld", ""),
        ("hardlink", "bin/ld.lld", "bin/lld"),
        ("symlink", "bin/up", "../lib"),
        ("symlink", "here", "."),
        ("file", "here/lib/through-a-link-inside.txt", ""),
    ]
    unpacked = unpack_and_check(tmp_path, members)
    assert unpacked is not None
    assert (unpacked / "lib" / "libLLVM.so").resolve() == (unpacked / "lib" / "libLLVM.so.19").resolve()
    assert (unpacked / "lib" / "through-a-link-inside.txt").is_file()
    assert os.lstat(unpacked / "bin" / "lld").st_mode & 0o7777 == 0o755


names = st.sampled_from(["a", "b", "c", "bin", "lib"])
paths = st.lists(names, min_size=1, max_size=3).map("/".join)
targets = st.lists(st.sampled_from(["a", "b", "c", ".", "..", "..", "lib"]), min_size=1, max_size=4).map("/".join)
members = st.lists(
    st.one_of(
        st.tuples(st.just("symlink"), paths, targets.filter(lambda t: t.count("..") <= 3)),
        st.tuples(st.just("dir"), paths, st.just("")),
        st.tuples(st.just("file"), paths, st.just("")),
        st.tuples(st.just("hardlink"), paths, paths),
    ),
    max_size=10,
)


@settings(database=None, deadline=None, max_examples=150, suppress_health_check=list(HealthCheck))
@given(members)
def test_any_chain_of_links_stays_inside(
    python: str, tmp_path_factory: pytest.TempPathFactory, members: list[Member]
) -> None:
    unpack_and_check(tmp_path_factory.mktemp("chain"), members)
