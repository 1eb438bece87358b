"""The pure parts of purge: metadata readers, ownership, plans, journal, restore plans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError
from bootstrap.core.io.state_files import StateFiles
from bootstrap.purge import journal, metadata, restore, scan
from bootstrap.purge.plan import plan_purge
from bootstrap.purge.scan import Owner, TritonScan


def owner(
    name: str,
    version: str = "1.0",
    files: tuple[str, ...] = (),
    *,
    editable: bool = False,
    editable_path: str | None = None,
    direct_url: dict[str, object] | None = None,
) -> Owner:
    return Owner(
        name=name,
        version=version,
        files=files,
        dist_info=Path(f"/sp/{name}-{version}.dist-info"),
        editable=editable,
        editable_path=editable_path,
        direct_url=direct_url,
        installer="pip",
        placeholder=False,
        record_missing=False,
    )


def dist_info(sp: Path, folder: str, name: str, version: str, record: list[str] | None, **files: str) -> Path:
    meta = sp / folder
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    if record is not None:
        (meta / "RECORD").write_text("".join(f"{r},,\n" for r in record))
    for fname, text in files.items():
        (meta / fname.replace("_", ".") if fname == "direct_url_json" else meta / fname).write_text(text)
    return meta


def test_record_and_installed_files() -> None:
    assert metadata.parse_record('triton/a.py,sha256=x,1\n"triton/odd,name.py",,\n\n') == [
        "triton/a.py",
        "triton/odd,name.py",
    ]
    listed = metadata.parse_installed_files("../triton/__init__.py\n\nPKG-INFO\n")
    assert listed == ["../triton/__init__.py", "PKG-INFO"]


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        ("pytorch_triton-3.5.0+git7416ffcb.dist-info", ("pytorch_triton", "3.5.0+git7416ffcb")),
        ("triton-2.0.0-py3.11.egg-info", ("triton", "2.0.0")),
        ("triton_kernels-1.0.dist-info", ("triton_kernels", "1.0")),
    ],
)
def test_name_from_folder(folder: str, expected: tuple[str, str]) -> None:
    assert metadata.name_from_folder(folder) == expected


def test_package_files_only_under_triton(tmp_path: Path) -> None:
    sp = tmp_path / "site-packages"
    meta = dist_info(
        sp,
        "triton-3.5.0.dist-info",
        "triton",
        "3.5.0",
        ["triton/__init__.py", "triton/language/core.py", "tritonfoo/x.py", "triton_kernels/y.py", "../../bin/proton"],
    )
    dist = metadata.read_dist(meta)
    assert metadata.package_files(dist, (sp,)) == ("triton/__init__.py", "triton/language/core.py")


def test_egg_info_installed_files_are_relative_to_the_egg_info(tmp_path: Path) -> None:
    sp = tmp_path / "site-packages"
    egg = sp / "triton-2.0.0-py3.11.egg-info"
    egg.mkdir(parents=True)
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.0\nName: triton\nVersion: 2.0.0\n")
    (egg / "installed-files.txt").write_text("../triton/__init__.py\nPKG-INFO\n")
    dist = metadata.read_dist(egg)
    assert (dist.name, dist.version) == ("triton", "2.0.0")
    assert metadata.package_files(dist, (sp,)) == ("triton/__init__.py",)


def test_editable_readers(tmp_path: Path) -> None:
    assert metadata.editable_path({"url": "file:///src/triton/python", "dir_info": {"editable": True}}) == (
        "/src/triton/python"
    )
    assert metadata.editable_path({"url": "file:///w/t.whl", "archive_info": {}}) is None
    assert metadata.editable_path(None) is None
    base = tmp_path
    assert metadata.pth_paths("# comment\nimport foo; foo.install()\n/src/python\nrel\n", base) == [
        Path("/src/python"),
        base / "rel",
    ]
    finder = "import sys\nMAPPING: dict[str, str] = {'triton': '/src/python/triton'}\nNAMESPACES = {}\n"
    assert metadata.finder_mapping(finder) == {"triton": "/src/python/triton"}
    assert metadata.finder_mapping("MAPPING = {'a': 'b'}") == {"a": "b"}
    assert metadata.finder_mapping("def (") == {}
    assert metadata.read_egg_link("/src/triton/python\n.\n") == Path("/src/triton/python")
    assert metadata.read_egg_link("") is None


@pytest.mark.parametrize(
    ("name", "stash"),
    [
        ("~riton", True),
        ("~~iton", True),
        ("~riton-3.5.0.dist-info", True),
        ("~ytorch_triton-3.5.0+git1.dist-info", True),
        ("triton", False),
        ("~ip", False),
        ("~orch", False),
        ("~umpy-1.0.dist-info", False),
    ],
)
def test_stash_names(name: str, stash: bool) -> None:
    assert metadata.is_stash_name(name) is stash


def test_owners_leftovers_and_shadows(tmp_path: Path) -> None:
    sp = tmp_path / "site-packages"
    dist_info(sp, "triton-3.5.0.dist-info", "triton", "3.5.0", ["triton/__init__.py", "triton/a.py"])
    dist_info(sp, "pytorch_triton-3.5.0.dist-info", "pytorch-triton", "3.5.0", ["triton/__init__.py", "triton/b.py"])
    dist_info(sp, "triton_kernels-1.0.dist-info", "triton_kernels", "1.0", ["triton_kernels/__init__.py"])
    dist_info(sp, "torch-2.13.0.dist-info", "torch", "2.13.0", ["torch/__init__.py"])
    broken = sp / "triton-3.4.0.dist-info"  # no METADATA: pip cannot see it; its RECORD says it is Triton's
    broken.mkdir()
    (broken / "RECORD").write_text("triton/c.py,,\ntriton-3.4.0.dist-info/RECORD,,\n../../../bin/proton,,\n")
    (sp / "~riton").mkdir()  # pip's stash of triton/, of files a RECORD here lists
    (sp / "~riton" / "a.py").write_text("")
    dists = scan.read_site_packages((sp,))
    owners = scan.owners_in(dists, (sp,))
    assert sorted(o.name for o in owners) == ["pytorch-triton", "triton"]
    assert scan.find_overlaps(owners) == {"triton/__init__.py": ("pytorch-triton", "triton")}
    proven, kept = scan.find_leftovers((sp,), owners, dists)
    assert [p.path for p in proven] == [sp / "~riton", broken] and kept == []
    (sp / "triton").mkdir()
    (sp / "triton" / "a.py").write_text("")
    (sp / "triton" / "__pycache__").mkdir()
    (sp / "triton" / "__pycache__" / "a.cpython-312.pyc").write_bytes(b"")
    proven, kept = scan.find_leftovers((sp,), [], dists)  # no owner: the folder itself is left over
    assert sp / "triton" in [p.path for p in proven]
    (sp / "triton" / "notes.txt").write_text("mine")  # a file no RECORD lists: not proven, kept
    proven, kept = scan.find_leftovers((sp,), [], dists)
    assert sp / "triton" not in [p.path for p in proven] and sp / "triton" in [k.path for k in kept]

    # A .pth nobody installed that adds a folder holding triton/ (conda develop, hand-written).
    src = tmp_path / "src"
    (src / "triton").mkdir(parents=True)
    (sp / "dev.pth").write_text(f"{src}\n")
    cwd = tmp_path / "work"
    (cwd / "triton").mkdir(parents=True)
    shadows = scan.find_shadows(cwd, {"PYTHONPATH": f"{sp}:"}, (sp,), dists)
    assert shadows == [cwd / "triton", src / "triton"]  # site-packages itself on PYTHONPATH is no shadow


def test_record_missing_owner_blocks_and_keeps_triton_owned(tmp_path: Path) -> None:
    sp = tmp_path / "site-packages"
    meta = dist_info(sp, "triton-3.5.0.dist-info", "triton", "3.5.0", None, **{"top_level.txt": "triton\n"})
    (sp / "triton").mkdir()
    (sp / "triton" / "__init__.py").write_text("")
    dists = scan.read_site_packages((sp,))
    owners = scan.owners_in(dists, (sp,))
    assert [(o.name, o.record_missing) for o in owners] == [("triton", True)]
    assert scan.find_leftovers((sp,), owners, dists) == ([], [])  # its files are unknown: nothing is "left over"
    assert scan.find_unowned((sp,), owners) == []
    found = TritonScan((sp,), tuple(owners), {}, (), (), str(sp / "triton" / "__init__.py"))
    plan = plan_purge(found)
    (blocker,) = plan.blockers
    assert plan.blocked == (blocker.reason,)
    assert blocker.owner == owners[0] and "no RECORD" in blocker.reason and str(meta) in blocker.reason
    # An owner the environment's pip does not list (broken metadata) blocks too; one it lists does not.
    ok = owner("triton", files=("triton/__init__.py",))
    hidden = owner("pytorch-triton", files=("triton/__init__.py",))
    listed = TritonScan((sp,), (ok, hidden), {}, (), (), None, pip_listed=("triton",))
    assert [b.owner.name for b in plan_purge(listed).blockers] == ["pytorch-triton"]
    assert plan_purge(TritonScan((sp,), (ok,), {}, (), (), None, pip_listed=None)).blocked == ()
    # Only a pip that answered the scan spares the purge's own check that pip runs (exit 3 with ensurepip).
    assert plan_purge(listed).pip_answered
    assert not plan_purge(TritonScan((sp,), (ok,), {}, (), (), None, pip_listed=None)).pip_answered


def test_egg_link_owner(tmp_path: Path) -> None:
    sp = tmp_path / "site-packages"
    sp.mkdir()
    project = tmp_path / "checkout" / "python"
    (project / "triton").mkdir(parents=True)
    egg = project / "triton.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: triton\nVersion: 3.2.0+dev\n")
    (sp / "triton.egg-link").write_text(f"{project}\n.")
    (found,) = scan.egg_link_owners((sp,), set())
    assert (found.name, found.version, found.editable) == ("triton", "3.2.0+dev", True)
    assert found.editable_path == str(project)
    assert scan.egg_link_owners((sp,), {"triton"}) == []


def test_placeholder_is_judged_by_its_own_record(tmp_path: Path) -> None:
    sp = tmp_path / "site-packages"
    (sp / "triton").mkdir(parents=True)
    init = sp / "triton" / "__init__.py"
    init.write_text('raise RuntimeError("Should never be installed")\n')
    mine = metadata.file_hash(init)
    ph = dist_info(sp, "pytorch_triton-0.0.1.dist-info", "pytorch-triton", "0.0.1", None)
    (ph / "RECORD").write_text(f"triton/__init__.py,{mine},48\n")
    real = dist_info(sp, "triton-3.9.0.dist-info", "triton", "3.9.0", None)
    (real / "RECORD").write_text("triton/__init__.py,sha256=somethingelse,9000\n")
    files = ("triton/__init__.py",)
    assert metadata.is_placeholder(metadata.read_dist(ph), sp, files)
    assert not metadata.is_placeholder(metadata.read_dist(real), sp, files)
    # Overwritten by a real triton later: still recognised by the placeholder wheel's own hash.
    init.write_text("from . import language\n")
    (ph / "RECORD").write_text(f"triton/__init__.py,{metadata.PLACEHOLDER_INIT_HASH},48\n")
    assert metadata.is_placeholder(metadata.read_dist(ph), sp, files)


def test_pip_config_and_sources() -> None:
    config = journal.parse_pip_config(
        "global.index-url='https://pypi.org/simple'\n"
        ":env:.index-url='https://user:s3cret@mirror.example/simple'\n"
        "global.extra-index-url='file:///opt/a file:///opt/b'\n"
    )
    assert config.index_url == "https://user:s3cret@mirror.example/simple"
    assert config.extra_index_urls == ("file:///opt/a", "file:///opt/b")
    src = journal.source_of(owner("triton"), config)
    assert src.to_json() == {
        "kind": "index",
        "index_url": "https://***:***@mirror.example/simple",
        "extra_index_urls": ["file:///opt/a", "file:///opt/b"],
    }
    editable = owner("triton", editable=True, editable_path="/src/python")
    assert journal.source_of(editable, config).to_json() == {"kind": "editable", "path": "/src/python"}
    repo = "https://github.com/triton-lang/triton"
    vcs = owner("triton", direct_url={"url": repo, "vcs_info": {"vcs": "git", "commit_id": "abc"}})
    assert journal.source_of(vcs, config).to_json() == {
        "kind": "vcs",
        "url": "git+https://github.com/triton-lang/triton@abc",
    }
    wheel = owner("triton", direct_url={"url": "file:///w/triton.whl", "archive_info": {}})
    assert journal.source_of(wheel, config).to_json() == {"kind": "url", "url": "file:///w/triton.whl"}
    folder = owner("triton", direct_url={"url": "file:///src/python", "dir_info": {}})
    assert journal.source_of(folder, config).to_json() == {"kind": "directory", "path": "/src/python"}


def test_plan_restore(tmp_path: Path) -> None:
    wheel = tmp_path / "t.whl"
    wheel.write_bytes(b"")
    run = {
        "id": "run-1",
        "target": {"executable": "/v/bin/python"},
        "removed": [
            {"name": "b-late", "version": "1", "installed_at": 20.0, "source": {"kind": "url", "url": wheel.as_uri()}},
            {
                "name": "a-early",
                "version": "2",
                "installed_at": 10.0,
                "source": {"kind": "index", "index_url": "https://***:***@h/simple", "extra_index_urls": ["file:///x"]},
            },
            {"name": "gone", "version": "1", "source": {"kind": "editable", "path": str(tmp_path / "nope")}},
            {"name": "pytorch-triton", "version": "0.0.1", "placeholder": True, "source": {"kind": "index"}},
            {"name": "Here_Already", "version": "3", "source": {"kind": "index"}},
            {"name": "secret", "version": "1", "source": {"kind": "url", "url": "https://***:***@h/x.whl"}},
        ],
    }
    removed = restore.read_run(run, "journal.json").removed
    steps = {s.name: s for s in restore.plan_restore(removed, {"here-already": "3"})}
    order = [s.name for s in restore.plan_restore(removed, {})]
    assert order.index("a-early") < order.index("b-late")  # installed first, reinstalled first
    # Credentials are never written to the journal; pip's own configuration supplies them again.
    assert steps["a-early"].pip_args == ("install", "--no-deps", "a-early==2", "--extra-index-url", "file:///x")
    assert steps["b-late"].pip_args == ("install", "--no-deps", wheel.as_uri())
    assert steps["gone"].cannot and "no longer exists" in steps["gone"].cannot
    assert steps["pytorch-triton"].skip and steps["Here_Already"].skip
    assert steps["secret"].cannot and "credentials" in steps["secret"].cannot


def test_journal_keeps_history_and_never_overwrites_a_bad_file(tmp_path: Path) -> None:
    path = StateFiles(tmp_path / "state").purge_journal
    first = journal.start_run(path, {"executable": "/v/bin/python"}, [{"name": "triton", "version": "1"}])
    journal.update_run(path, first, status="done")
    journal.start_run(path, {"executable": "/v/bin/python"}, [])  # leftovers only: nothing to undo
    assert [r["status"] for r in journal.load(path)["runs"]] == ["done", "started"]
    last = journal.last_run(path)
    assert last is not None and last["id"] == first
    path.write_text("{not json")
    with pytest.raises(ConfigError):
        journal.load(path)
    assert path.read_text() == "{not json"
    assert json.loads(json.dumps(journal.IndexConfig().__dict__)) == {"index_url": None, "extra_index_urls": []}


def test_runs_of_another_environment_or_finished_ones_are_not_merged(tmp_path: Path) -> None:
    path = StateFiles(tmp_path / "state").purge_journal
    venv: dict[str, object] = {"executable": "/v/bin/python"}
    older = journal.start_run(path, venv, [{"name": "triton", "version": "0.9"}])
    journal.update_run(path, older, status="done")  # a finished purge before: not part of this one
    cut = journal.start_run(
        path, venv, [{"name": "pytorch-triton", "version": "3.4"}, {"name": "triton", "version": "3.5"}]
    )
    journal.update_run(path, cut, status="interrupted")
    journal.start_run(path, {"executable": "/other/bin/python"}, [{"name": "triton", "version": "2"}])
    rerun = journal.start_run(path, venv, [{"name": "triton", "version": "3.5"}])
    journal.update_run(path, rerun, status="done")
    last = journal.last_run(path)
    assert last is not None and last["id"] == rerun
    # The other environment's run sits between them: the interrupted run is not merged across it.
    assert [e["name"] for e in last["removed"]] == ["triton"]


def test_an_interrupted_purge_right_before_the_rerun_is_merged(tmp_path: Path) -> None:
    path = StateFiles(tmp_path / "state").purge_journal
    venv: dict[str, object] = {"executable": "/v/bin/python"}
    cut = journal.start_run(
        path, venv, [{"name": "pytorch-triton", "version": "3.4"}, {"name": "triton", "version": "3.5"}]
    )
    journal.update_run(path, cut, status="interrupted")
    killed = journal.start_run(path, venv, [{"name": "Triton", "version": "3.5"}])  # kill -9: stays "started"
    rerun = journal.start_run(path, venv, [{"name": "triton", "version": "3.5"}])
    journal.update_run(path, rerun, status="done")
    last = journal.last_run(path)
    assert last is not None and last["id"] == rerun and last["merged_runs"] == [cut, killed, rerun]
    assert [(e["name"], e["version"]) for e in last["removed"]] == [("pytorch-triton", "3.4"), ("triton", "3.5")]
    assert restore.read_run(last, str(path)).removed[0].name == "pytorch-triton"
