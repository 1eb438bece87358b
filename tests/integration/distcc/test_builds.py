"""`setup --distcc` end to end on the test world, with real distccd daemons on 127.0.0.1.

Workspace A builds with two good daemons (2 and 3 slots), a host nothing listens on and a host with
another compiler: the last two are named and left out, every compile of A's LLVM and Triton builds
runs on the two daemons (their own statistics say so), and the Triton A installs is the same as the
one workspace B builds here without distcc: same provenance, same LLVM revision. C loses one of its
two daemons in the middle of its LLVM build: distcc compiles the rest here and the build finishes.
A host list none of which can be used stops setup (exit 3) before anything is built.

Every workspace has its own ccache folder (so that ccache's counters are its own builds, and a
compile is never answered by another workspace's cache) and its own XDG cache (no borrowed LLVM).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from bootstrap.pipeline.ccache.stats import delta, parse_print_stats
from tests.integration.build.harness import base_env, installed_triton, tritondev
from tests.integration.distcc.daemons import DistccDaemon
from tests.support.cli import tritondev_argv
from tests.support.venvs import workspace_venv
from tests.world.world import World

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
LABEL = "root-json"
BUILDS = ("LLVM build", "Triton build")


def _env(area: Path, name: str) -> dict[str, str]:
    env = base_env(area / f"home-{name}", xdg=area / f"xdg-{name}", ccache_dir=area / f"ccache-{name}")
    return {k: v for k, v in env.items() if not k.startswith("DISTCC_")} | {"TMPDIR": str(scratch(area, name))}


def scratch(area: Path, name: str) -> Path:
    """The builds' TMPDIR: what a distcc client stopped mid-compile (a host gone) leaves goes with the test."""
    folder = area / f"tmp-{name}"
    folder.mkdir(exist_ok=True)
    return folder


def _setup_args(world: World, ws: Path, *extra: str, json: bool = True) -> list[str]:
    """setup for the world's main Triton, jobs left to tritondev (the distcc slots size them)."""
    return [
        "setup",
        "--workspace",
        str(ws),
        "--mirror",
        str(world.git_root),
        "--triton-commit",
        world.triton_commits[LABEL],
        *(["--json"] if json else []),
        *extra,
    ]


def _report(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, f"setup failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def _ccache(env: dict[str, str]) -> dict[str, int]:
    out = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True, check=True).stdout
    return parse_print_stats(out)


@pytest.fixture(scope="module")
def area(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("distcc")


@pytest.fixture(scope="module")
def builds(
    world: World,
    area: Path,
    good_hosts: tuple[DistccDaemon, DistccDaemon],
    other_compiler: DistccDaemon,
    down_host: str,
) -> dict[str, Any]:
    first, second = good_hosts
    hosts = f"{first.token} {down_host} {second.token} {other_compiler.token}"
    out: dict[str, Any] = {"hosts": hosts}
    before = first.compiles() + second.compiles()
    for name, extra in (("A", ("--distcc", hosts)), ("B", ())):
        env = _env(area, name)
        ws = area / f"ws-{name}"
        workspace_venv(ws)
        proc = tritondev(*_setup_args(world, ws, *extra), env=env)
        out[name] = {"ws": ws, "env": env, "report": _report(proc), "ccache": _ccache(env), "stderr": proc.stderr}
        if name == "A":
            out["daemon_compiles"] = first.compiles() + second.compiles() - before
    return out


def test_every_compile_went_to_the_daemons(
    builds: dict[str, Any], good_hosts: tuple[DistccDaemon, DistccDaemon]
) -> None:
    a = builds["A"]
    report, first, second = a["report"], *good_hosts
    distcc = report["distcc"]
    assert distcc["used"] == f"{first.token} {second.token}"
    per_build = [distcc["builds"][label] for label in BUILDS]
    remote = sum(b["remote"] for b in per_build)
    # ccache compiled every file (an empty cache) and handed each to distcc, which ran none here.
    counts = delta({}, a["ccache"])
    assert counts.misses == counts.calls > 20 and remote == counts.misses
    assert all(b["local"] == 0 and b["fell_back"] == 0 for b in per_build)
    assert {host for b in per_build for host in b["hosts"]} == {first.token, second.token}
    # distccd's own statistics: the daemons ran exactly those compiles, plus the proof's three test files.
    assert builds["daemon_compiles"] == remote + 2 * 3
    for daemon in good_hosts:
        assert daemon.compiles_logged() == daemon.compiles()


def test_unfit_hosts_are_named_and_left_out(
    builds: dict[str, Any], other_compiler: DistccDaemon, down_host: str
) -> None:
    report = builds["A"]["report"]
    left = {h["token"]: h["reason"] for h in report["distcc"]["hosts"] if not h["ok"]}
    assert set(left) == {down_host, other_compiler.token}
    assert "refused the connection" in left[down_host] and "is another compiler" in left[other_compiler.token]
    assert any(n.startswith(f"distcc host {down_host} left out:") for n in report["notices"])
    assert sum(b["remote"] for b in report["distcc"]["builds"].values()) > 0
    assert all(other_compiler.token not in b["hosts"] for b in report["distcc"]["builds"].values())


def test_jobs_follow_the_slots_and_links_and_tablegen_stay_here(builds: dict[str, Any]) -> None:
    a, b = builds["A"]["report"], builds["B"]["report"]
    assert a["jobs"]["compile"] == 2 + 3  # the slots of the two hosts used
    assert a["jobs"]["tablegen"] == b["jobs"]["compile"]  # as many as compiles here would be
    install = next(c for c in a["commands"] if c["step"] == "triton-install")
    assert install["env"]["MAX_JOBS"] == "5" and install["env"]["CCACHE_PREFIX"].endswith("distcc")
    ninja = next(c for c in a["commands"] if c["step"] == "llvm-build")
    assert ninja["argv"][-2:] == ["-j", "5"]
    pools = (Path(a["llvm_build"]) / "CMakeFiles" / "rules.ninja").read_text()
    assert f"pool tablegen_job_pool\n  depth = {a['jobs']['tablegen']}" in pools
    assert f"pool link_job_pool\n  depth = {a['jobs']['link']}" in pools
    assert "  pool = tablegen_job_pool" in (Path(a["llvm_build"]) / "build.ninja").read_text()  # mlir-tblgen's run
    # What builds by hand and `tritondev build` without distcc get is sized for this machine alone.
    state = json.loads((builds["A"]["ws"] / "state" / "setup.json").read_text())
    assert dict(state["install"]["env"])["MAX_JOBS"] == str(b["jobs"]["compile"])


def test_the_same_triton_as_a_build_here(builds: dict[str, Any], world: World) -> None:
    a, b = builds["A"], builds["B"]
    pa, pb = a["report"]["verify"]["provenance"], b["report"]["verify"]["provenance"]
    assert pa["ok"] and pb["ok"] and b["report"]["distcc"] is None
    assert pa["llvm_revision"] == pb["llvm_revision"] == world.llvm_commit
    assert pa["version"] == pb["version"] and pa["triton_head"] == pb["triton_head"]
    ta = installed_triton(a["ws"] / "venv" / "bin" / "python", a["ws"])
    tb = installed_triton(b["ws"] / "venv" / "bin" / "python", b["ws"])
    assert (ta["version"], ta["llvm_commit"], ta["build_type"]) == (tb["version"], tb["llvm_commit"], tb["build_type"])
    # The LLVM builds are the same build: same key (commit, flags, toolchain), in each workspace.
    assert Path(a["report"]["llvm_build"]).name == Path(b["report"]["llvm_build"]).name


def test_the_workspace_remembers_distcc_and_build_compiles_remotely(
    builds: dict[str, Any], good_hosts: tuple[DistccDaemon, DistccDaemon]
) -> None:
    a = builds["A"]
    ws, env = a["ws"], a["env"]
    saved = json.loads((ws / "state" / "settings.json").read_text())["settings"]
    assert saved["distcc"] == builds["hosts"]
    shown = tritondev("config", "show", "--workspace", str(ws), env=env).stdout
    assert f"distcc = {builds['hosts']}  (workspace:{ws / 'state' / 'settings.json'}" in shown
    # An edited file: `build` (the remembered hosts, proven again) compiles it on a daemon.
    compiled = json.loads((ws / "src" / "triton" / "compile_commands.json").read_text())
    source = Path(compiled[0]["directory"], compiled[0]["file"])
    source.write_text(source.read_text() + "\nint tritondev_distcc_edit_1();\n")  # not a comment: a ccache miss
    before = sum(d.compiles() for d in good_hosts)
    proc = tritondev("build", "--workspace", str(ws), "--json", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert result["distcc"]["Triton build"]["remote"] == 1 and result["ccache"]["Triton build"]["misses"] == 1
    assert sum(d.compiles() for d in good_hosts) - before == 1 + 2 * 3  # the file, and the proof's
    ninja = next(c for c in result["commands"] if c["step"] == "triton-build")
    assert ninja["argv"][3:5] == ["-j", "5"]  # the hosts' slots
    # In words, as a user reads it.
    source.write_text(source.read_text() + "int tritondev_distcc_edit_2();\n")
    text = tritondev("build", "--workspace", str(ws), env=env)
    assert text.returncode == 0 and "Triton build: distcc: 1 compiled remotely (127.0.0.1:" in text.stdout
    assert "Triton build: ccache: 0/1 compilations from cache" in text.stdout
    # Turned off: the same build, here, nothing rebuilt for it.
    off = tritondev("build", "--workspace", str(ws), "--distcc", "none", "--json", env=env)
    assert off.returncode == 0 and "distcc" not in json.loads(off.stdout)


def _build_while_a_host_dies(
    world: World, ws: Path, env: dict[str, str], dies: DistccDaemon, hosts: str
) -> dict[str, Any]:
    """setup --distcc HOSTS, `dies` stopped once it ran a few of the LLVM build's compiles."""
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    args = _setup_args(world, ws, "--distcc", hosts)
    proc = subprocess.Popen(tritondev_argv(*args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while dies.compiles_logged() < 3 + 3:  # the proof's three, then a few of the LLVM build's
            assert proc.poll() is None, "setup ended before the build got going"
            assert time.monotonic() < deadline
            time.sleep(0.1)
        dies.stop()
        assert proc.poll() is None, "the build was over before the host went down"
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    report = _report(subprocess.CompletedProcess(args, proc.returncode, stdout, stderr))
    assert report["verify"]["provenance"]["ok"]
    assert installed_triton(ws / "venv" / "bin" / "python", ws)["llvm_commit"] == world.llvm_commit
    counts = delta({}, _ccache(env))
    assert sum(b["remote"] + b["local"] for b in report["distcc"]["builds"].values()) == counts.misses
    # The LLVM build's compiles run on after the stop; on a busy machine the last of them may be under way
    # already, and the first build to ask the dead host again is Triton's: either one must say so.
    assert any(
        n.startswith(("distcc during the LLVM build: ", "distcc during the Triton build: ")) for n in report["notices"]
    ), report["notices"]
    return report


def test_the_only_host_goes_down_mid_build(world: World, area: Path) -> None:
    """Its compiles run here from then on; the build finishes, and says so. The user's shell asks distcc
    never to compile here: the build's environment has neither variable (distcc would fail the build)."""
    dies = DistccDaemon(slots=2).start()
    env = {**_env(area, "C"), "DISTCC_FALLBACK": "0", "DISTCC_SKIP_LOCAL_RETRY": "1"}
    try:
        report = _build_while_a_host_dies(world, area / "ws-C", env, dies, dies.token)
    finally:
        dies.remove()
    llvm = report["distcc"]["builds"]["LLVM build"]
    assert llvm["hosts"][dies.token] >= 3 and llvm["local"] >= 1 and llvm["fell_back"] >= 1
    assert report["distcc"]["builds"]["Triton build"]["local"] > 0  # distcc leaves the host alone for a while


def test_one_of_two_hosts_goes_down_mid_build(world: World, area: Path) -> None:
    """distcc takes its hosts in order and moves a compile the first refuses to the next one."""
    dies, keeps = DistccDaemon(slots=2).start(), DistccDaemon(slots=2).start()
    try:
        report = _build_while_a_host_dies(world, area / "ws-D", _env(area, "D"), dies, f"{dies.token} {keeps.token}")
    finally:
        dies.remove()
        keeps.remove()
    builds = report["distcc"]["builds"]
    assert builds["LLVM build"]["hosts"][dies.token] >= 3
    assert sum(b["hosts"].get(keeps.token, 0) for b in builds.values()) >= 1
    # it was noticed, whichever way distcc went on, in whichever build asked the dead host first
    assert any(b["unreachable"] or b["fell_back"] for b in builds.values()), builds


def _dwo_names(obj: Path) -> tuple[bool, list[Path]]:
    """(whether the object carries debug info, the .dwo files its skeleton units name). readelf also
    dumps the units of a .dwo it finds: only skeleton units (DW_TAG_skeleton_unit, or DWARF 4's unit
    with DW_AT_GNU_dwo_name) are the object's own references."""
    out = subprocess.run(
        ["readelf", "--debug-dump=info", "--dwarf-depth=1", str(obj)], capture_output=True, text=True, check=True
    ).stdout
    units: list[dict[str, str]] = []
    for line in out.splitlines():
        if line.lstrip().startswith("<0><") and "DW_TAG_" in line:
            units.append({"tag": line.split("(")[-1].rstrip(")")})
        elif units and ("DW_AT_comp_dir" in line or "dwo_name" in line):
            name = "GNU_dwo_name" if "DW_AT_GNU_dwo_name" in line else line.split()[1].removeprefix("DW_AT_")
            units[-1][name] = line.rsplit("): ", 1)[-1].strip()
    names = [
        Path(u.get("comp_dir", str(obj.parent))) / (u.get("dwo_name") or u["GNU_dwo_name"])
        for u in units
        if (u["tag"] == "DW_TAG_skeleton_unit" and "dwo_name" in u) or "GNU_dwo_name" in u
    ]
    return bool(units), names


@pytest.mark.slow
def test_a_debug_llvm_through_distcc_keeps_its_debug_info(
    world: World, area: Path, good_hosts: tuple[DistccDaemon, DistccDaemon]
) -> None:
    """`--llvm-build-type Debug --distcc`: every object carries its debug info, and none names a .dwo that
    is not on disk (distcc brings back no .dwo: LLVM_USE_SPLIT_DWARF stays off while distcc is on)."""
    first, _ = good_hosts
    env, ws = _env(area, "G"), area / "ws-G"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    proc = tritondev(
        *_setup_args(world, ws, "--distcc", first.token, "--llvm-build-type", "Debug", "--skip-verify"), env=env
    )
    report = _report(proc)
    assert report["distcc"]["builds"]["LLVM build"]["remote"] > 0
    llvm = Path(report["llvm_build"])
    assert "LLVM_USE_SPLIT_DWARF:BOOL=ON" not in (llvm / "CMakeCache.txt").read_text()
    objects = sorted(llvm.rglob("*.o"))
    assert len(objects) > 20
    missing, bare = [], []
    for obj in objects:
        debug, dwo = _dwo_names(obj)
        if not debug:
            bare.append(obj.name)
        missing += [str(d) for d in dwo if not d.is_file()]
    assert bare == [] and missing == []
    assert any("without split DWARF" in n for n in report["notices"])


def test_no_usable_host_stops_before_anything_is_built(
    world: World, area: Path, down_host: str, other_compiler: DistccDaemon
) -> None:
    env = _env(area, "E")
    ws = area / "ws-E"
    hosts = f"{down_host} {other_compiler.token}"
    proc = tritondev(*_setup_args(world, ws, "--distcc", hosts, json=False), env=env)
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert "no distcc host can compile for this build" in proc.stderr
    assert "fix: start distccd on them" in proc.stderr and f"--distcc '{hosts}'" in proc.stderr
    assert "Traceback" not in proc.stderr
    # Proven before the first step: no venv, no checkout, no build; the lock, and the logs of what ran.
    assert sorted(p.name for p in ws.iterdir()) == ["logs", "state"]
    assert "distcc-probe.log" in os.listdir(ws / "logs") and os.listdir(ws / "state") == ["lock"]
