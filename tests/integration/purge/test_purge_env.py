"""`tritondev purge` on real venvs with real wheels: the corrupted states of the field reports.

`triton` and `pytorch-triton` (built by the tests) both install `triton/`; pip sees no conflict,
and uninstalling one deletes the other's files ("module 'triton' has no attribute 'language'").
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.integration.purge.conftest import (
    PYTORCH_TRITON_VERSION,
    TRITON_VERSION,
    VenvCopy,
    Wheels,
    listed,
    pip,
    run_py,
    site_packages,
    snapshot,
)

USES_LANGUAGE = "import triton; triton.language.program_id(0); print(triton.DIST)"


def journal_of(ws: Path) -> dict[str, Any]:
    journal: dict[str, Any] = json.loads((ws / "state" / "purge-journal.json").read_text())
    return journal


@pytest.mark.slow
def test_overlapping_owners_purged_journaled_and_restored(
    cli: Cli, venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path
) -> None:
    py = venv_copy()
    pip(py, "install", "-q", str(wheels.unrelated), str(wheels.triton))
    pip(py, "install", "-q", str(wheels.pytorch_triton))  # installed last: its shared files win
    sp = site_packages(py)
    (sp / "~riton").mkdir()  # what an interrupted pip leaves behind
    (sp / "~riton" / "__init__.py").write_text("")
    unrelated_before = snapshot(sp / "unrelated")
    others = {k: v for k, v in listed(py).items() if k not in ("triton", "pytorch-triton")}
    ws = tmp_path / "ws"

    # --dry-run --json: every owner, the shared files and the leftover; nothing changes.
    before = snapshot(sp)
    dry = cli("purge", "--python", str(py), "--workspace", str(ws), "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    report = json.loads(dry.stdout)
    owners = {o["name"]: o for o in report["scan"]["owners"]}
    assert set(owners) == {"triton", "pytorch-triton"}
    assert owners["pytorch-triton"]["version"] == PYTORCH_TRITON_VERSION
    assert report["scan"]["overlaps"]["triton/__init__.py"] == ["pytorch-triton", "triton"]
    assert "triton/only_triton.py" not in report["scan"]["overlaps"]
    assert report["scan"]["leftovers"] == [str(sp / "~riton")]
    assert report["plan"]["pip_args"] == ["uninstall", "-y", "pytorch-triton", "triton"]
    assert report["result"] is None
    assert snapshot(sp) == before
    assert not ws.exists()

    result = cli("purge", "--python", str(py), "--workspace", str(ws), "--json")
    assert result.returncode == 0, result.stderr
    done = json.loads(result.stdout)["result"]
    assert done["import_location_after"] is None
    assert run_py(py, "import triton").returncode != 0
    assert not (sp / "triton").exists() and not (sp / "~riton").exists()
    assert listed(py) == others  # every other distribution stays, at its version
    assert snapshot(sp / "unrelated") == unrelated_before

    run = journal_of(ws)["runs"][-1]
    assert run["status"] == "done" and run["target"]["executable"] == str(py)
    removed = {e["name"]: e for e in run["removed"]}
    assert removed["triton"]["version"] == TRITON_VERSION
    assert removed["triton"]["source"] == {"kind": "url", "url": wheels.triton.as_uri()}
    assert removed["pytorch-triton"]["source"]["kind"] == "url"

    # A second purge finds nothing and keeps the journal of the first for --restore.
    again = cli("purge", "--python", str(py), "--workspace", str(ws))
    assert again.returncode == 0 and "nothing to purge" in again.stderr
    assert len(journal_of(ws)["runs"]) == 1

    restored = cli("purge", "--restore", "--workspace", str(ws), "--json")
    assert restored.returncode == 0, restored.stderr
    assert {r["name"] for r in json.loads(restored.stdout)["restored"]} == {"triton", "pytorch-triton"}
    assert listed(py)["triton"] == TRITON_VERSION
    assert listed(py)["pytorch-triton"] == PYTORCH_TRITON_VERSION
    # Reinstalled in the original order, so the distribution installed last owns the shared files again.
    assert run_py(py, USES_LANGUAGE).stdout.strip() == "pytorch-triton"
    assert journal_of(ws)["runs"][-1]["restore"]["restored"]


def test_half_uninstalled_env_is_repaired(cli: Cli, venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path) -> None:
    """The field report: `pip uninstall triton` deleted files pytorch-triton still needs."""
    py = venv_copy()
    pip(py, "install", "-q", str(wheels.triton), str(wheels.pytorch_triton), str(wheels.unrelated))
    sp = site_packages(py)
    (sp / "triton" / "_C").mkdir()
    (sp / "triton" / "_C" / "libtriton.so").write_bytes(b"\0")  # no RECORD lists it
    pip(py, "uninstall", "-y", "triton")
    broken = run_py(py, USES_LANGUAGE)
    assert "has no attribute 'language'" in broken.stderr  # the corrupted state, reproduced

    ws = tmp_path / "ws"
    scan = json.loads(cli("purge", "--python", str(py), "--workspace", str(ws), "--dry-run", "--json").stdout)
    (owner,) = scan["scan"]["owners"]
    assert owner["name"] == "pytorch-triton" and owner["missing_files"] >= 2
    assert str(sp / "triton" / "_C" / "libtriton.so") in scan["plan"]["unowned_files"]

    result = cli("purge", "--python", str(py), "--workspace", str(ws))
    assert result.returncode == 0, result.stderr
    assert not (sp / "triton").exists()
    assert run_py(py, "import triton").returncode != 0
    assert run_py(py, "import unrelated").returncode == 0
    assert [e["name"] for e in journal_of(ws)["runs"][-1]["removed"]] == ["pytorch-triton"]


def test_editable_install_purged_without_touching_the_checkout(
    cli: Cli, venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path
) -> None:
    py = venv_copy()
    pip(py, "install", "-q", str(wheels.pytorch_triton))
    pip(py, "install", "-q", "--no-build-isolation", "-e", str(wheels.editable_src))
    checkout = snapshot(wheels.editable_src / "triton")
    ws = tmp_path / "ws"

    scan = json.loads(cli("purge", "--python", str(py), "--workspace", str(ws), "--dry-run", "--json").stdout)
    editable = [o for o in scan["scan"]["owners"] if o["editable"]]
    assert [(o["name"], o["editable_path"]) for o in editable] == [("triton", str(wheels.editable_src))]
    # The wheel's regular package wins over setuptools' editable finder: the checkout is not used.
    assert scan["scan"]["import_location"] == str(site_packages(py) / "triton" / "__init__.py")

    assert cli("purge", "--python", str(py), "--workspace", str(ws)).returncode == 0
    assert run_py(py, "import triton").returncode != 0
    assert snapshot(wheels.editable_src / "triton") == checkout
    sources = {e["name"]: e["source"] for e in journal_of(ws)["runs"][-1]["removed"]}
    assert sources["triton"] == {"kind": "editable", "path": str(wheels.editable_src)}

    restored = cli("purge", "--restore", "--workspace", str(ws))
    assert restored.returncode == 0, restored.stderr
    dists = {d["name"]: d for d in json.loads(pip(py, "list", "-v", "--format=json").stdout)}
    assert dists["triton"].get("editable_project_location") == str(wheels.editable_src)
    assert dists["pytorch-triton"]["version"] == PYTORCH_TRITON_VERSION


def test_restore_reports_what_is_gone(cli: Cli, venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path) -> None:
    py = venv_copy()
    moved = tmp_path / "wheelhouse"
    moved.mkdir()
    local = moved / wheels.pytorch_triton.name
    local.write_bytes(wheels.pytorch_triton.read_bytes())
    pip(py, "install", "-q", str(local), str(wheels.triton))
    ws = tmp_path / "ws"
    assert cli("purge", "--python", str(py), "--workspace", str(ws)).returncode == 0
    local.unlink()  # the wheel pytorch-triton came from is gone

    result = cli("purge", "--restore", "--workspace", str(ws), "--json")
    assert result.returncode == 4
    report = json.loads(result.stdout)
    assert [f["name"] for f in report["failed"]] == ["pytorch-triton"]
    assert "no longer exists" in report["failed"][0]["cannot"]
    assert [r["name"] for r in report["restored"]] == ["triton"]
    assert "pytorch-triton" not in listed(py) and listed(py)["triton"] == TRITON_VERSION


def test_shadowing_folders_are_reported_and_kept(cli: Cli, venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path) -> None:
    py = venv_copy()
    pip(py, "install", "-q", str(wheels.triton))
    work = tmp_path / "work"
    (work / "triton").mkdir(parents=True)  # e.g. a checkout's triton/ folder where the user runs python
    on_path = tmp_path / "extra"
    (on_path / "triton").mkdir(parents=True)
    (on_path / "triton" / "__init__.py").write_text("")
    env = {"PYTHONPATH": str(on_path)}
    ws = tmp_path / "ws"

    result = cli("purge", "--python", str(py), "--workspace", str(ws), "--dry-run", "--json", cwd=work, env=env)
    scan = json.loads(result.stdout)["scan"]
    assert scan["shadows"] == [str(work / "triton"), str(on_path / "triton")]
    # PYTHONPATH comes before site-packages: the shadow is what `import triton` really gives.
    assert scan["import_location"] == str(on_path / "triton" / "__init__.py")

    result = cli("purge", "--python", str(py), "--workspace", str(ws), cwd=work, env=env)
    assert result.returncode == 0, result.stderr
    assert "shadows the installed triton" in result.stderr
    assert (work / "triton").is_dir() and (on_path / "triton" / "__init__.py").is_file()
    assert "triton" not in listed(py)
    assert run_py(py, "import triton", cwd=tmp_path, env={**os.environ, "PYTHONPATH": ""}).returncode != 0


def test_library_removes_only_what_the_plan_names(venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path) -> None:
    """setup keeps its own install by narrowing the plan; execute_purge must not widen it again."""
    import dataclasses

    from bootstrap.core.process.runner import Runner
    from bootstrap.core.target.interpreter import inspect_interpreter
    from bootstrap.purge import execute_purge, plan_purge, scan_environment

    py = venv_copy()
    pip(py, "install", "-q", str(wheels.triton), str(wheels.pytorch_triton))
    sp = site_packages(py)
    runner = Runner()
    target = inspect_interpreter(py, "--python", runner)
    found = scan_environment(target, runner, cwd=tmp_path, environ={})
    plan = plan_purge(found)
    narrowed = dataclasses.replace(plan, owners=tuple(o for o in plan.owners if o.name == "pytorch-triton"))
    report = execute_purge(narrowed, target, runner, tmp_path / "journal.json")
    assert [e.name for e in report.removed] == ["pytorch-triton"]
    assert "triton" in listed(py) and "pytorch-triton" not in listed(py)
    assert (sp / "triton" / "only_triton.py").is_file()  # still owned by triton: not a leftover
    assert report.leftovers_removed == []
    assert any(c.argv[-3:] == ("uninstall", "-y", "pytorch-triton") for c in runner.history)


def test_triton_symlink_into_a_checkout(cli: Cli, venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path) -> None:
    """A common hack: site-packages/triton linked to a source checkout. The checkout must survive."""
    checkout = tmp_path / "src" / "triton" / "python" / "triton"
    checkout.mkdir(parents=True)
    (checkout / "__init__.py").write_text("from . import language\n")
    (checkout / "language").mkdir()
    (checkout / "language" / "__init__.py").write_text("def program_id(axis): return axis\n")
    before = snapshot(checkout)
    py = venv_copy()
    sp = site_packages(py)
    pip(py, "install", "-q", str(wheels.triton))
    shutil.rmtree(sp / "triton")
    (sp / "triton").symlink_to(checkout)
    ws = tmp_path / "ws"

    # The wheel's RECORD still lists triton/*: pip would delete them through the link. Refused.
    refused = cli("purge", "--python", str(py), "--workspace", str(ws))
    assert refused.returncode == 2, refused.stderr
    assert "symlink" in refused.stderr and "rm " in refused.stderr
    assert snapshot(checkout) == before and "triton" in listed(py)

    # Without an owner, the link is a leftover: the link goes, the checkout stays.
    next(sp.glob("triton-*.dist-info")).joinpath("RECORD").write_text("")
    pip(py, "uninstall", "-y", "-q", "triton")
    scan = json.loads(cli("purge", "--python", str(py), "--workspace", str(ws), "--dry-run", "--json").stdout)
    assert scan["scan"]["leftovers"] == [str(sp / "triton")]
    assert cli("purge", "--python", str(py), "--workspace", str(ws)).returncode == 0
    assert not os.path.lexists(sp / "triton")
    assert snapshot(checkout) == before


def test_pip_is_asked_only_when_something_owns_triton(venv_copy: VenvCopy, wheels: Wheels, tmp_path: Path) -> None:
    """pip's listing judges owners only: an environment without a triton is scanned without starting pip
    (setup's purge step runs in every setup), and one with a triton still gets pip's verdict."""
    from bootstrap.core.process.runner import Runner
    from bootstrap.core.target.interpreter import inspect_interpreter
    from bootstrap.purge import plan_purge, scan_environment

    py = venv_copy()

    def scanned() -> tuple[dict[str, object], list[tuple[str, ...]]]:
        runner = Runner()
        found = scan_environment(inspect_interpreter(py, "--python", runner), runner, cwd=tmp_path, environ={})
        assert plan_purge(found).blocked == ()
        return found.to_json(), [c.argv[1:4] for c in runner.history if c.argv[1:3] == ("-m", "pip")]

    empty, pip_runs = scanned()
    assert empty["owners"] == [] and empty["pip_available"] is None
    assert pip_runs == []
    pip(py, "install", "-q", str(wheels.triton))
    owned, pip_runs = scanned()
    owners = owned["owners"]
    assert isinstance(owners, list) and [o["name"] for o in owners] == ["triton"]
    assert owned["pip_available"] is True
    assert pip_runs == [("-m", "pip", "list")]
