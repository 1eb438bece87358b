"""The setup plan for each LLVM source (`--llvm source|prebuilt|PATH`), from hand-made facts: which
LLVM steps there are, what Triton is built against, what a re-run does. No process starts here."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bootstrap.pipeline.built.records import StepRecord
from bootstrap.pipeline.host.jobs import Jobs, Resources
from bootstrap.pipeline.llvm.builds import LlvmFolders, LlvmSite
from bootstrap.pipeline.llvm.package import Package
from bootstrap.pipeline.llvm.plan import source_build_cost
from bootstrap.pipeline.llvm.source import PrebuiltPackage, TreeReport, UserTree
from bootstrap.pipeline.setup.facts import SetupFacts
from bootstrap.pipeline.setup.plan import Record, SetupPlan, plan_setup
from tests.unit.pipeline.setup.facts_for_tests import ERAS, LLVM, WS, dry_drive, fresh, in_place

SUM = "ab" * 32
BASE = "https://llvm.example/llvm-builds"
PACKAGE = Package(
    f"llvm-{LLVM[:8]}-ubuntu-x64-1",
    f"{BASE}/llvm-{LLVM[:8]}-ubuntu-x64-1.tar.gz",
    SUM,
    "ubuntu-x64",
    LLVM,
    1,
    "glibc 2.36 > 2.28",
)
PREBUILT_STEPS = [
    "venv",
    "checkout-triton",
    "llvm-download",
    "purge",
    "triton-requirements",
    "triton-install",
    "verify",
]
TREE = Path("/opt/llvm/build")


def statuses(plan: SetupPlan) -> dict[str, str]:
    return {s.name: s.status.value for s in plan.steps}


def with_package(
    facts: SetupFacts, package: Package = PACKAGE, site: LlvmSite | None = None, registered: tuple[LlvmSite, ...] = ()
) -> SetupFacts:
    """`facts` with --llvm prebuilt: no LLVM checkout, the package's folder under build/llvm."""
    mine = WS / "build" / "llvm" / package.name
    folders = LlvmFolders(mine, site, None, registered)
    return dataclasses.replace(
        facts,
        settings=dataclasses.replace(facts.settings, llvm="prebuilt"),
        llvm=PrebuiltPackage(package),
        llvm_folders=folders,
    )


def unpacked(build: Path, package: Package = PACKAGE) -> LlvmSite:
    """The package as llvm-download leaves it: its folder with bin/, stamped."""
    stamp = {"kind": "prebuilt", "package": package.name, "sha256": package.sha256}
    return LlvmSite(build, build, stamp, has_bin=True)


def with_tree(facts: SetupFacts, revision: str = LLVM, accepted: str | None = None) -> SetupFacts:
    tree = TreeReport(TREE, (), ("X86", "NVPTX", "AMDGPU"), revision)
    return dataclasses.replace(
        facts,
        settings=dataclasses.replace(facts.settings, llvm=str(TREE)),
        llvm=UserTree(tree, accepted),
        llvm_folders=LlvmFolders(TREE, None, None),
    )


def done(facts: SetupFacts, plan: SetupPlan) -> SetupFacts:
    """The records a finished run of `plan` leaves (step records and the purge's)."""
    records = {
        s.name: StepRecord(s.fingerprint, s.inputs, {d: plan.step(d).fingerprint for d in s.after})
        for s in plan.steps
        if s.record == Record.STEPS
    }
    purge = plan.step("purge")
    records["purge"] = StepRecord(purge.fingerprint, purge.inputs, {})
    return dataclasses.replace(facts, records=records)


@pytest.mark.parametrize("era", ERAS)
def test_prebuilt_downloads_instead_of_cloning_and_building_llvm(era: str) -> None:
    plan = plan_setup(with_package(fresh(era)))
    assert [s.name for s in plan.steps] == PREBUILT_STEPS
    download = plan.step("llvm-download")
    assert download.runs and download.reason == f"package {PACKAGE.name} not here yet"
    assert download.commands == ()  # no process: the download is done in-process
    assert download.inputs == {"package": PACKAGE.name, "sha256": SUM, "llvm_hash": LLVM}
    assert not any(c.step.startswith(("llvm-", "checkout-llvm")) for c in plan.commands())
    install = plan.step("triton-install")
    assert install.after == ("llvm-download", "triton-requirements")
    assert dict(install.commands[0].env)["LLVM_SYSPATH"] == str(WS / "build" / "llvm" / PACKAGE.name)
    assert plan.llvm.build == plan.llvm.source == WS / "build" / "llvm" / PACKAGE.name
    assert plan.llvm.reused_from is None and plan.notes == ()  # not "an LLVM build reused": nothing was built


@pytest.mark.parametrize("era", ERAS)
def test_an_unpacked_package_is_used_and_a_finished_workspace_plans_nothing(era: str) -> None:
    mine = WS / "build" / "llvm" / PACKAGE.name
    facts = with_package(in_place(fresh(era)), site=unpacked(mine))
    plan = plan_setup(facts)
    assert plan.step("llvm-download").reason == f"package {PACKAGE.name} in place (sha256 checked)"
    again = plan_setup(done(facts, plan))
    assert set(statuses(again).values()) == {"up to date"} and again.commands() == []


def test_a_new_build_number_downloads_again_and_rebuilds_triton() -> None:
    mine = WS / "build" / "llvm" / PACKAGE.name
    facts = with_package(in_place(fresh("root-json")), site=unpacked(mine))
    before = done(facts, plan_setup(facts))
    rebuilt = dataclasses.replace(PACKAGE, name=f"llvm-{LLVM[:8]}-ubuntu-x64-2", sha256="cd" * 32, build_number=2)
    plan = plan_setup(with_package(before, rebuilt))
    would = [n for n, s in statuses(plan).items() if s == "would run"]
    assert would == ["llvm-download", "triton-install", "verify"]
    assert plan.step("triton-install").reason == "changed: env"  # LLVM_SYSPATH names the new package


def test_a_package_with_another_sum_is_not_taken_for_the_pinned_one() -> None:
    mine = WS / "build" / "llvm" / PACKAGE.name
    stale = dataclasses.replace(unpacked(mine), stamp={**unpacked(mine).stamp, "sha256": "00" * 32})
    assert plan_setup(with_package(in_place(fresh("root-json")), site=stale)).step("llvm-download").runs


def test_a_package_another_workspace_unpacked_is_linked() -> None:
    other = Path("/other/build/llvm") / PACKAGE.name
    plan = plan_setup(with_package(in_place(fresh("root-json")), registered=(unpacked(other),)))
    assert plan.llvm.build == other and plan.llvm.link_to == other
    assert not plan.step("llvm-download").runs
    assert plan.step("llvm-download").reason == f"package {PACKAGE.name} reused from {other}"
    assert dict(plan.step("triton-install").commands[0].env)["LLVM_SYSPATH"] == str(other)
    # Gone (no bin/ any more): downloaded here.
    gone = with_package(in_place(fresh("root-json")), registered=(dataclasses.replace(unpacked(other), has_bin=False),))
    assert plan_setup(gone).llvm.build == WS / "build" / "llvm" / PACKAGE.name


def test_an_unverified_package_of_an_old_era_is_planned_and_says_so() -> None:
    old = dataclasses.replace(PACKAGE, name=f"llvm-{LLVM[:8]}-ubuntu-x64", sha256=None, build_number=None)
    mine = WS / "build" / "llvm" / old.name
    plan = plan_setup(with_package(in_place(fresh("python-dir")), old, site=unpacked(mine, old)))
    assert plan.step("llvm-download").reason == f"package {old.name} in place (no sha256 published)"


@pytest.mark.parametrize("era", ERAS)
def test_a_tree_of_the_users_is_used_as_it_is(era: str) -> None:
    plan = plan_setup(with_tree(fresh(era)))
    assert [s.name for s in plan.steps] == [
        "venv",
        "checkout-triton",
        "llvm-use",
        "purge",
        "triton-requirements",
        "triton-install",
        "verify",
    ]
    use = plan.step("llvm-use")
    assert not use.runs and use.reason == f"LLVM {LLVM[:12]} at {TREE} (--llvm PATH)"
    assert dict(plan.step("triton-install").commands[0].env)["LLVM_SYSPATH"] == str(TREE)
    assert plan.llvm.reused_from is not None  # nothing is ever written into it
    assert not any("reused" in n for n in plan.notices)


def test_another_tree_rebuilds_triton_and_a_mismatch_allowed_is_what_verify_expects() -> None:
    facts = with_tree(in_place(fresh("root-json")))
    before = done(facts, plan_setup(facts))
    moved = plan_setup(dataclasses.replace(with_tree(before, "9" * 40, accepted="9" * 40)))
    assert [n for n, s in statuses(moved).items() if s == "would run"] == ["triton-install", "verify"]
    assert moved.step("triton-install").reason == "depends on re-run step: llvm-use"
    source = with_tree(before, "9" * 40, accepted="9" * 40).llvm
    assert source.expected_revision(LLVM) == "9" * 40
    assert with_tree(before).llvm.expected_revision(LLVM) == LLVM


def test_switching_from_source_to_prebuilt_reinstalls_triton_only_after_the_download() -> None:
    source = in_place(fresh("root-json"))
    first = plan_setup(source)
    prebuilt = with_package(done(source, first))
    plan = plan_setup(prebuilt)
    assert [n for n, s in statuses(plan).items() if s == "would run"] == ["llvm-download", "triton-install", "verify"]


@pytest.mark.parametrize("kind", ["prebuilt", "path"])
def test_dry_run_shows_no_download_and_only_the_plans_commands(kind: str) -> None:
    facts = with_package(fresh("root-json")) if kind == "prebuilt" else with_tree(fresh("root-json"))
    facts = dataclasses.replace(facts, dry_run=True)
    plan = plan_setup(facts)
    report = dry_drive(facts)  # nothing is downloaded, nothing written
    assert [(c.step, c.argv) for c in report.commands] == [(c.step, c.argv) for c in plan.commands()]
    assert {o.name: o.status.value for o in report.steps} == statuses(plan)
    assert report.llvm is not None and report.llvm.build == plan.llvm.build
    shown = report.llvm.to_json()
    assert shown["kind"] == kind and shown["build"] == str(plan.llvm.build)
    if kind == "prebuilt":
        assert shown["package"] == PACKAGE.to_json() and "download" not in shown and report.llvm.download is None
    assert [c.to_json()["path"] for c in report.checkouts] == [str(WS / "src" / "triton")]  # no LLVM checkout


def test_a_source_build_says_what_it_costs_before_it_starts() -> None:
    report = dry_drive(fresh("root-json"))
    assert report.llvm is not None
    cost = str(report.llvm.source_build_cost)
    assert report.llvm.to_json()["source_build_cost"] == cost
    assert "--llvm prebuilt" in cost and "2 compile jobs" in cost and "12 GiB of disk" in cost
    assert "about 3.0 hours" in source_build_cost(Resources(2, 24 * 2**30), Jobs(2, 2, ""), "Release")
    assert "about 22 minutes" in source_build_cost(Resources(16, 64 * 2**30), Jobs(16, 8, ""), "Release")
    # Nothing to say where the build is up to date, or LLVM is not built here.
    report = dry_drive(with_package(fresh("root-json")))
    assert report.llvm is not None and report.llvm.source_build_cost is None
    assert "source_build_cost" not in report.llvm.to_json()
