"""What a purge may remove for an owner of triton/: RECORD and entry_points.txt are outside input.

A crafted or broken RECORD (`../` into other packages, absolute paths, another distribution's files,
the venv's bin/python, paths through a link out of triton/) and console scripts named like the
interpreter are all flagged, so the purge stops before pip runs; Triton's own files never are.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.purge import metadata, ownership
from bootstrap.purge.metadata import InstalledDist

SETTINGS = settings(database=None, deadline=None, max_examples=200, suppress_health_check=list(HealthCheck))


class Env:
    """A venv-shaped folder: bin/python (a link, as venvs have), site-packages with triton and torch."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.sp = root / "lib" / "python3.12" / "site-packages"
        self.bin.mkdir(parents=True, exist_ok=True)
        self.sp.mkdir(parents=True, exist_ok=True)
        if not (self.bin / "python").is_symlink():
            (self.bin / "python").symlink_to("/usr/bin/python3")
        self.torch = self.dist("torch", "2.5.0", ["torch/__init__.py", "../../../bin/torchrun"])
        (self.sp / "torch").mkdir(exist_ok=True)
        (self.sp / "torch" / "__init__.py").write_text("")
        (self.bin / "torchrun").write_text("#!/bin/sh\n")

    def dist(self, name: str, version: str, record: list[str], scripts: tuple[str, ...] = ()) -> InstalledDist:
        meta = self.sp / f"{name}-{version}.dist-info"
        meta.mkdir(exist_ok=True)
        (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        (meta / "RECORD").write_text("".join(f"{r},,\n" for r in record))
        if scripts:
            (meta / "entry_points.txt").write_text(
                "[console_scripts]\n" + "".join(f"{s} = triton.tools:main\n" for s in scripts)
            )
        return metadata.read_dist(meta)

    def foreign(self, dist: InstalledDist) -> tuple[str, ...]:
        claimed = ownership.claims([self.torch])
        return ownership.foreign_entries(dist, (self.sp,), self.bin, self.bin / "python", claimed)


REAL_TRITON = [
    "triton/__init__.py",
    "triton/language/core.py",
    "triton-3.5.0.dist-info/RECORD",
    "triton-3.5.0.dist-info/METADATA",
    "../../../bin/proton",
    "../../../bin/proton-viewer",
    "__editable__.triton-3.5.0.pth",
    "__editable___triton_3_5_0_finder.py",
    "__pycache__/__editable___triton_3_5_0_finder.cpython-312.pyc",
    "triton.libs/libz.so",
]


def test_a_real_triton_record_is_all_triton(tmp_path: Path) -> None:
    env = Env(tmp_path)
    triton = env.dist("triton", "3.5.0", REAL_TRITON, scripts=("proton", "proton-viewer"))
    for script in ("proton", "proton-viewer"):
        (env.bin / script).write_text("#!/bin/sh\n")
    assert env.foreign(triton) == ()


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("../torch/__init__.py", "torch"),  # another distribution's file
        ("torch/__init__.py", "torch"),
        ("../../../bin/torchrun", "torch"),
        ("../../../bin/python", "not name"),  # the venv itself
        ("../../../pyvenv.cfg", "outside"),
        ("/etc/passwd", "outside"),
        ("../../../../../home/me/notes.txt", "outside"),
        ("torch-2.5.0.dist-info/RECORD", "torch"),
        ("unrelated/__init__.py", "outside"),
        ("__editable__.torch-2.5.0.pth", "outside"),
    ],
)
def test_crafted_record_entries_are_flagged(tmp_path: Path, entry: str, why: str) -> None:
    env = Env(tmp_path)
    crafted = env.dist("triton", "3.5.0", ["triton/__init__.py", entry])
    found = env.foreign(crafted)
    assert len(found) == 1 and found[0].startswith(entry) and why in found[0], found


@pytest.mark.parametrize("script", ["python", "python3", "pip", "activate", "torchrun", "../lib/x"])
def test_console_scripts_named_like_the_environment_are_flagged(tmp_path: Path, script: str) -> None:
    env = Env(tmp_path)
    crafted = env.dist("triton", "3.5.0", ["triton/__init__.py"], scripts=(script,))
    assert any(f.startswith(f"console script {script}") for f in env.foreign(crafted))


def test_a_link_out_of_triton_is_flagged(tmp_path: Path) -> None:
    env = Env(tmp_path)
    elsewhere = tmp_path / "checkout"
    elsewhere.mkdir()
    (elsewhere / "keep.py").write_text("mine")
    (env.sp / "triton").mkdir()
    (env.sp / "triton" / "src").symlink_to(elsewhere)
    crafted = env.dist("triton", "3.5.0", ["triton/__init__.py", "triton/src/keep.py"])
    assert env.foreign(crafted) == ("triton/src/keep.py: it leads out of triton/ through a symbolic link",)


entries = st.lists(
    st.sampled_from(
        [
            "..",
            "../..",
            "triton",
            "torch",
            "bin",
            "lib",
            "/",
            "etc",
            "x.py",
            "~",
            "triton-3.5.0.dist-info",
            "__editable__.x.pth",
            "site-packages",
            ".",
        ]
    ),
    min_size=1,
    max_size=6,
).map("/".join)


@SETTINGS
@given(st.lists(entries, min_size=1, max_size=5))
def test_whatever_a_record_lists_only_triton_and_its_own_files_pass(
    tmp_path_factory: pytest.TempPathFactory, listed: list[str]
) -> None:
    env = Env(tmp_path_factory.mktemp("env"))
    dist = env.dist("triton", "3.5.0", listed)
    flagged = {f.split(": ", 1)[0] for f in env.foreign(dist)}
    package, meta = env.sp / "triton", dist.meta_dir
    for entry in listed:
        path = metadata.resolve_entry(entry, dist.base)
        allowed = path == package or package in path.parents or meta in path.parents
        if not allowed:
            assert entry in flagged, (entry, path)
        if entry in flagged:
            assert not (package in path.parents and os.path.realpath(path.parent).startswith(str(package)))


@pytest.mark.parametrize(
    ("name", "top_level", "triton_folder", "owner"),
    [
        ("tritonclient", "tritonclient\n", True, False),
        ("tritonclient", None, True, False),
        ("triton-model-analyzer", None, False, False),
        ("triton-model-analyzer", "model_analyzer\n", True, False),
        ("pytorch-triton-rocm", None, True, True),
        ("triton", None, True, True),
        ("some-fork", "triton\n", False, True),
    ],
)
def test_without_record_only_a_distribution_that_says_so_owns_triton(
    tmp_path: Path, name: str, top_level: str | None, triton_folder: bool, owner: bool
) -> None:
    from bootstrap.purge import scan

    sp = tmp_path / "site-packages"
    meta = sp / f"{name.replace('-', '_')}-1.0.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if top_level is not None:
        (meta / "top_level.txt").write_text(top_level)
    if triton_folder:
        (sp / "triton").mkdir()
    owners = scan.owners_in([metadata.read_dist(meta)], (sp,))
    assert bool(owners) is owner
