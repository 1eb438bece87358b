"""Proving distcc hosts against real distccd daemons on 127.0.0.1: one with this machine's compilers
passes, and each way a host can be unfit is named in the words of distcc or the compilers: nothing
listening, another compiler, a daemon that does not allow this machine, a compiler path distccd may not
run. The doctor says the same; bad host lists and missing tools stop setup before anything is made."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bootstrap.core.errors import ToolMissing
from bootstrap.core.process.runner import Runner
from bootstrap.core.settings.distcc_hosts import parse_hosts
from bootstrap.pipeline.distcc.client import DistccSetup
from bootstrap.pipeline.distcc.proof import GOOD, Compiler, check_hosts, compilers_of, prove
from tests.integration.build.harness import base_env, setup_args, tritondev
from tests.integration.distcc.daemons import DistccDaemon
from tests.world.world import World

CLANG = compilers_of("/usr/bin/clang", "/usr/bin/clang++")


def _setup(hosts: str) -> DistccSetup:
    client = shutil.which("distcc")
    assert client is not None
    return DistccSetup(client, parse_hosts(hosts))


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    env = {k: v for k, v in env.items() if not k.startswith("DISTCC_")}
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env["TMPDIR"] = str(tmp_path / "tmp")  # the distcc client's scratch files stay with the test
    env.update(extra)
    return env


def test_each_host_is_proven_by_its_own_compile(
    good_hosts: tuple[DistccDaemon, DistccDaemon], other_compiler: DistccDaemon, down_host: str
) -> None:
    first, second = good_hosts
    before = first.compiles(), second.compiles(), other_compiler.compiles()
    refusing = DistccDaemon(slots=1, allow="10.11.12.13").start()  # a daemon for another network only
    try:
        hosts = f"{first.token} {down_host} {other_compiler.token} {refusing.token} localhost/1 {second.token}"
        proven = prove(Runner(silent=True), _setup(hosts), CLANG)
    finally:
        refusing.remove()
    verdicts = {v.host.token: v for v in proven.verdicts or ()}
    assert verdicts[first.token].ok and verdicts[second.token].ok and verdicts[first.token].reason == GOOD
    assert "refused the connection" in verdicts[down_host].reason
    assert "is another compiler: 'GCC: " in verdicts[other_compiler.token].reason
    assert "does not allow this machine (distccd --allow)" in verdicts[refusing.token].reason
    # The build gets the good hosts (and localhost, which is this machine), their slots size it.
    assert proven.hosts.value == f"{first.token} localhost/1 {second.token}" and proven.hosts.slots == 2 + 1 + 3
    # distccd's own statistics: the test files really were compiled there (three per host: C and C++ to
    # compare byte for byte, and C++ with debug info as the builds compile).
    after = first.compiles(), second.compiles(), other_compiler.compiles()
    assert (after[0] - before[0], after[1] - before[1]) == (3, 3)
    assert after[2] > before[2]  # the other host compiled them too, with its own compiler


def test_a_compiler_path_distccd_may_not_run(good_hosts: tuple[DistccDaemon, DistccDaemon]) -> None:
    """distccd runs compilers by name or from /usr/bin only (CVE-2004-2687): clang++ by its real path
    under /usr/lib/llvm-N is refused there, and the host is left out with the reason."""
    real = Path(os.path.realpath("/usr/bin/clang++"))
    if real.parent == Path("/usr/bin"):
        pytest.skip("clang++ lives in /usr/bin on this machine")
    first, _ = good_hosts
    with pytest.raises(ToolMissing) as raised:
        prove(Runner(silent=True), _setup(first.token), (Compiler(str(real), ".cpp"),))
    assert f"may not run {real}" in raised.value.message
    assert f"--distcc '{first.token}'" in str(raised.value.fix)
    assert any("cannot be an absolute path" in line for line in first.log.read_text().splitlines())


def test_doctor_checks_the_hosts(
    good_hosts: tuple[DistccDaemon, DistccDaemon], down_host: str, other_compiler: DistccDaemon, tmp_path: Path
) -> None:
    first, second = good_hosts

    def check(hosts: str | None) -> tuple[dict[str, object], int]:
        env = _env(tmp_path, **({"TRITONDEV_DISTCC": hosts} if hosts else {}))
        proc = tritondev(
            "doctor", "--check", "toolchain.distcc", "--json", "--workspace", str(tmp_path / "ws"), env=env
        )
        (found,) = json.loads(proc.stdout)["checks"]
        assert isinstance(found, dict)
        return found, proc.returncode

    good, code = check(f"{first.token} {second.token}")
    assert good["status"] == "ok" and "2 of 2 host(s) compile as this machine does" in str(good["summary"])
    assert code == 0 and good["data"]["slots"] == 5  # type: ignore[index]
    some, code = check(f"{first.token} {down_host} {other_compiler.token}")
    assert some["status"] == "warn" and code == 0, some
    assert "refused the connection" in str(some["summary"]) and "another compiler" in str(some["summary"])
    none, code = check(down_host)
    assert none["status"] == "error" and code == 1 and "setup would stop (exit 3)" in str(none["summary"])
    off, code = check(None)
    assert off["status"] == "skipped" and code == 0
    assert not (tmp_path / "ws").exists()  # the doctor reads only


def _path_without(folder: Path, *names: str) -> str:
    """A PATH of one folder with links to every program on PATH except `names`."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory or not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            target = Path(directory) / name
            if name in names or (folder / name).exists() or not (target.is_file() and os.access(target, os.X_OK)):
                continue
            (folder / name).symlink_to(target)
    return str(folder)


@pytest.mark.parametrize(
    ("extra", "env_extra", "code", "said"),
    [
        (["--distcc", "user@build1"], {}, 2, "is an ssh host"),
        (["--distcc", "build1:99999"], {}, 2, "port must be a number"),
        (["--distcc", "localhost/8"], {}, 2, "names no remote host"),
        (["--distcc", "build1/8", "--no-ccache"], {}, 2, "ccache is turned off"),
        ([], {"TRITONDEV_DISTCC": "build1 build1"}, 2, "listed twice"),
        (["--distcc", "build1/8"], {"PATH": "no-distcc"}, 3, "distcc is not installed"),
        (["--distcc", "build1/8"], {"PATH": "no-ccache"}, 3, "ccache is not installed"),
    ],
)
def test_bad_input_stops_setup_before_anything_is_made(
    world: World, tmp_path: Path, extra: list[str], env_extra: dict[str, str], code: int, said: str
) -> None:
    env = _env(tmp_path, **env_extra)
    if env_extra.get("PATH") in ("no-distcc", "no-ccache"):
        env["PATH"] = _path_without(tmp_path / "bin", "distcc" if env_extra["PATH"] == "no-distcc" else "ccache")
    ws = tmp_path / "ws"
    proc = tritondev(*setup_args(world, ws, "root-json", *extra), env=env)
    assert proc.returncode == code, proc.stderr[-2000:]
    assert said in proc.stderr and "fix:" in proc.stderr and "Traceback" not in proc.stderr
    assert not ws.exists()


def test_a_host_that_loses_split_dwarf_is_left_out(good_hosts: tuple[DistccDaemon, DistccDaemon]) -> None:
    """distcc 3.4 brings back the object of a remote compile and not the .dwo that -gsplit-dwarf writes
    beside it: a proof with the build's debug flags sees it (which is why the builds never split DWARF
    through distcc), and the same host passes with -g alone."""
    first, _ = good_hosts
    split = check_hosts(Runner(silent=True), _setup(first.token), CLANG, ("-O2", "-g", "-gsplit-dwarf"))
    verdict = (split.verdicts or ())[0]
    assert not verdict.ok and verdict.reason.startswith("brings back no .dwo file of a -O2 -g -gsplit-dwarf compile")
    with pytest.raises(ToolMissing, match=r"brings back no \.dwo file"):  # the only host: none left for the build
        prove(Runner(silent=True), _setup(first.token), CLANG, debug_flags=("-O2", "-g", "-gsplit-dwarf"))
    plain = prove(Runner(silent=True), _setup(first.token), CLANG, debug_flags=("-O2", "-g"))
    assert (plain.verdicts or ())[0].ok
