"""distcc's pure parts: counting its client log, the build's variables, telling why a host is left out
(objects compared, ELF read by hand), the job sizing, and a plan with distcc that rebuilds nothing.

The client log lines are distcc 3.4's own, as written by real runs (a remote compile, a host that
refused the connection, a host in backoff, a compile that failed there and was retried here, a host
that refused and the compile that went to the next host, a host that went down during a compile)."""

from __future__ import annotations

import dataclasses
import struct
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.core.settings.distcc_hosts import parse_hosts
from bootstrap.core.settings.settings_table import Settings
from bootstrap.pipeline.distcc.client import (
    DistccBuild,
    DistccCounts,
    DistccSetup,
    HostVerdict,
    observe,
    parse_client_log,
    read_counts,
    trouble_notice,
)
from bootstrap.pipeline.distcc.proof import (
    Compiler,
    DebugProbe,
    debug_difference,
    elf_facts,
    failure_reason,
    object_difference,
)
from bootstrap.pipeline.host.jobs import GIB, Resources, size_distributed, size_jobs
from bootstrap.pipeline.setup.plan import plan_setup
from tests.unit.pipeline.setup.facts_for_tests import fresh

CLIENT_LOG = """\
distcc[12623] compile from t.cpp to a.o
distcc[12623] exec on 127.0.0.1:13632/2: /usr/bin/clang++ -O2 -c -fcolor-diagnostics -o a.o t.cpp
distcc[12623] (dcc_compile_remote) No authentication requested.
distcc[12623] cpp t.cpp on localhost completed ok
distcc[12623] 415860 bytes from t.cpp compiled on 127.0.0.1 in 0.5508s, rate 737kB/s
distcc[12623] compile t.cpp on 127.0.0.1:13632/2 completed ok
distcc[12624] compile u.cpp on 127.0.0.1:13640/3 completed ok
distcc[12625] compile v.cpp on 127.0.0.1:13632/2 completed ok
distcc[12224] exec on 127.0.0.1:13699/2: /usr/bin/clang++ -O2 -c t.cpp -o fb.o
distcc[12224] ERROR: nonblocking connect to 127.0.0.1:13699 failed: Connection refused
distcc[12224] Warning: failed to distribute t.cpp to 127.0.0.1:13699/2, running locally instead
distcc[12224] exec on localhost: /usr/bin/clang++ -O2 -c t.cpp -o fb.o
distcc[12224] compile t.cpp on localhost completed ok
distcc[12284] (dcc_build_somewhere) Warning: failed to distribute, running locally instead
distcc[12284] compile w.cpp on localhost completed ok
distcc[11598] ERROR: compile bad.cpp on 127.0.0.1:13632/2 failed
distcc[11598] (dcc_build_somewhere) Warning: remote compilation of 'bad.cpp' failed, retrying locally
distcc[11598] compile bad.cpp on localhost failed
distcc[20097] exec on 127.0.0.1:13641/2: /usr/bin/clang++ -O3 -c -o x.o x.cpp
distcc[20097] ERROR: nonblocking connect to 127.0.0.1:13641 failed: Connection refused
distcc[20097] exec on 127.0.0.1:13632/2: /usr/bin/clang++ -O3 -c -o x.o x.cpp
distcc[20097] compile x.cpp on 127.0.0.1:13632/2 completed ok
distcc[6583] exec on 127.0.0.1:13650/2: /usr/bin/clang++ -O3 -c -o Type.cpp.o Type.cpp
distcc[6583] (dcc_readx) ERROR: unexpected eof on fd7
distcc[6583] (dcc_r_token_int) ERROR: read failed while waiting for token "DONE"
distcc[6583] (dcc_r_result_header) ERROR: server provided no answer. Is the server configured to allow access...
distcc[6583] exec on 127.0.0.1:13632/2: /usr/bin/clang++ -O3 -c -o Type.cpp.o Type.cpp
distcc[6583] compile Type.cpp on 127.0.0.1:13632/2 completed ok
distcc[26108] compile from Error.cpp to Error.cpp.o
distcc[26108] exec on 127.0.0.1:49539/2: /usr/bin/clang++ -O3 -fPIC -c -o Error.cpp.o Error.cpp
distcc[26108] (dcc_compile_remote) No authentication requested.
distcc[26108] (dcc_writex) ERROR: failed to write: Connection reset by peer
distcc[26108] exec on 127.0.0.1:51327/2: /usr/bin/clang++ -O3 -fPIC -c -o Error.cpp.o Error.cpp
distcc[26108] cpp Error.cpp on localhost completed ok
distcc[26108] compile Error.cpp on 127.0.0.1:51327/2 completed ok
distcc[30001] (dcc_readx) ERROR: failed to read: Input/output error
distcc[30001] compile y.cpp on localhost completed ok
distcc[30002] exec on localhost: /usr/bin/clang++ -O2 -c z.cpp -o z.o
distcc[30002] (dcc_readx) ERROR: unexpected eof on fd4
distcc[30002] compile z.cpp on localhost failed
"""


def test_the_client_log_says_where_each_compile_ran(tmp_path: Path) -> None:
    counts = parse_client_log(CLIENT_LOG.splitlines())
    assert dict(counts.remote) == {"127.0.0.1:13632/2": 4, "127.0.0.1:13640/3": 1, "127.0.0.1:51327/2": 1}
    assert (counts.remote_total, counts.local, counts.fell_back) == (6, 3, 3)
    # Each sending that failed counts once, whatever distcc said about it: a refused connection, a host
    # that answered nothing (three lines), a connection reset mid-compile (the host stopped: then the
    # next host compiled it). A read error of a client that sent nothing, or that compiles here, is no host's.
    assert dict(counts.unreachable) == {
        "127.0.0.1:13699/2": 1,
        "127.0.0.1:13641/2": 1,
        "127.0.0.1:13650/2": 1,
        "127.0.0.1:49539/2": 1,
    }
    assert counts.describe() == (
        "distcc: 6 compiled remotely (127.0.0.1:13632/2: 4, 127.0.0.1:13640/3: 1, 127.0.0.1:51327/2: 1), 3 here"
        " (3 after a host failed); unreachable: 127.0.0.1:13641/2 1 time(s), 127.0.0.1:13650/2"
        " 1 time(s), 127.0.0.1:13699/2 1 time(s), 127.0.0.1:49539/2 1 time(s)"
    )
    assert not parse_client_log(CLIENT_LOG.splitlines()[:8]).troubled
    log = tmp_path / "distcc-llvm-build.log"
    log.write_text(CLIENT_LOG)
    read = read_counts(log)
    assert read is not None and read.log == str(log) and read.to_json()["remote"] == 6
    notice = trouble_notice("LLVM build", read)
    assert notice.startswith(
        "distcc during the LLVM build: 127.0.0.1:13641/2, 127.0.0.1:13650/2, 127.0.0.1:13699/2, 127.0.0.1:49539/2 "
        "refused or dropped compiles; 3 compile(s) ran here because a host failed or refused them"
    )
    assert read_counts(tmp_path / "missing.log") is None
    fifo = tmp_path / "fifo.log"
    import os

    os.mkfifo(fifo)
    assert read_counts(fifo) is None  # never a hang


def test_the_build_gets_distcc_behind_ccache_with_its_own_log_per_step(tmp_path: Path) -> None:
    build = DistccBuild("/usr/bin/distcc", parse_hosts("--randomize a/2 b/3"), tmp_path / "logs")
    env = build.env("llvm-build")
    # distcc reads DISTCC_SKIP_LOCAL_RETRY as "set" whatever its value: the build's environment has none.
    assert env == {
        "CCACHE_PREFIX": "/usr/bin/distcc",
        "DISTCC_HOSTS": "--randomize a/2 b/3",
        "DISTCC_FALLBACK": None,
        "DISTCC_SKIP_LOCAL_RETRY": None,
        "DISTCC_LOG": str(tmp_path / "logs" / "distcc-llvm-build.log"),
    }
    assert "DISTCC_LOG" not in DistccBuild("/usr/bin/distcc", parse_hosts("a"), None).env("llvm-build")

    def compile_remotely() -> None:  # what distcc would append while ninja runs
        with (tmp_path / "logs" / "distcc-llvm-build.log").open("a") as log:
            log.write("distcc[1] compile x.cpp on a/2 completed ok\n")

    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "distcc-llvm-build.log").write_text(CLIENT_LOG)  # an earlier build's: not counted
    counts = build.counted("llvm-build", compile_remotely)
    assert counts is not None and dict(counts.remote) == {"a/2": 1} and counts.local == 0
    # A FIFO at the log's name is replaced, never opened (which would hang).
    import os

    fifo = tmp_path / "logs" / "distcc-triton-install.log"
    os.mkfifo(fifo)
    assert build.counted("triton-install", lambda: None) == DistccCounts(log=str(fifo))
    assert fifo.is_file()


def test_a_logs_folder_that_is_a_link_out_of_the_workspace_gets_no_client_log(tmp_path: Path) -> None:
    """The client log is written as every file tritondev writes: a `logs/` that is a link to a folder of
    the user's is refused (exit 2 naming it) before the build runs, and nothing is created there."""
    import pytest

    from bootstrap.core.io import writes

    ws, mine = tmp_path / "ws", tmp_path / "my folder"
    ws.mkdir()
    mine.mkdir()
    (ws / "logs").symlink_to(mine)
    writes.anchor(ws)
    build = DistccBuild("/usr/bin/distcc", parse_hosts("a/2"), ws / "logs")
    ran: list[str] = []
    with pytest.raises(writes.NotWritable, match="logs is a symbolic link"):
        build.counted("llvm-build", lambda: ran.append("built"))
    assert ran == [] and list(mine.iterdir()) == []


def test_hosts_proven_and_left_out() -> None:
    given_hosts = parse_hosts("a/2 b/3 localhost/1 c/4")
    setup = DistccSetup("/usr/bin/distcc", given_hosts)
    assert not setup.proven and setup.hosts.slots == 10
    a, b, c = given_hosts.remote
    proven = dataclasses.replace(
        setup, verdicts=(HostVerdict(a, True, "ok"), HostVerdict(b, False, "refused"), HostVerdict(c, True, "ok"))
    )
    assert proven.hosts.value == "a/2 localhost/1 c/4" and proven.hosts.slots == 7
    assert [v.host.token for v in proven.left_out()] == ["b/3"]
    assert proven.to_json()["used"] == "a/2 localhost/1 c/4"


def test_distcc_needs_the_client_and_ccache(tmp_path: Path) -> None:
    import pytest

    from bootstrap.core.errors import ConfigError, ToolMissing

    on = Settings(workspace=tmp_path, distcc="a/2")
    assert observe(Settings(workspace=tmp_path), True) is None
    assert observe(dataclasses.replace(on, distcc="none"), True) is None
    found = observe(on, True, which=lambda name: f"/usr/bin/{name}")
    assert found is not None and found.client == "/usr/bin/distcc"
    with pytest.raises(ToolMissing, match="distcc is not installed"):
        observe(on, True, which=lambda name: None)
    with pytest.raises(ConfigError, match="ccache is turned off"):
        observe(dataclasses.replace(on, ccache=False), True, which=lambda name: "/x")
    with pytest.raises(ToolMissing, match="ccache is not installed"):
        observe(on, False, which=lambda name: "/x")


def _elf64(machine: int, comment: bytes, text: bytes = b"\x90" * 8, sections: tuple[bytes, ...] = ()) -> bytes:
    """A minimal little-endian ELF64 relocatable: .text, .comment, `sections` (empty) and the section names."""
    names = b"\0" + b"".join(n + b"\0" for n in (b".text", b".comment", *sections, b".shstrtab"))
    body = text + comment + names
    text_at, comment_at, names_at = 64, 64 + len(text), 64 + len(text) + len(comment)
    shoff = 64 + len(body)
    count = 4 + len(sections)
    header = b"\x7fELF" + bytes([2, 1, 1]) + b"\0" * 9
    header += struct.pack("<HHIQQQIHHHHHH", 1, machine, 1, 0, 0, shoff, 0, 64, 0, 0, 64, count, count - 1)
    rows = [
        (names.index(b"\0.text\0") + 1, text_at, len(text)),
        (names.index(b"\0.comment\0") + 1, comment_at, len(comment)),
    ]
    rows += [(names.index(b"\0" + n + b"\0") + 1, names_at, 0) for n in sections]
    rows.append((names.index(b"\0.shstrtab\0") + 1, names_at, len(names)))
    headers = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    headers += [struct.pack("<IIQQQQIIQQ", name, 1, 0, 0, offset, size, 0, 0, 1, 0) for name, offset, size in rows]
    return header + body + b"".join(headers)


def test_why_a_hosts_object_differs() -> None:
    here = _elf64(62, b"\0Debian clang version 14.0.6\0")
    assert elf_facts(here) == (62, "Debian clang version 14.0.6")
    assert object_difference(here, here, "/usr/bin/clang++") is None
    gcc = _elf64(62, b"\0GCC: (Debian 12.2.0-14) 12.2.0\0")
    assert object_difference(here, gcc, "/usr/bin/clang++") == (
        "its /usr/bin/clang++ is another compiler: 'GCC: (Debian 12.2.0-14) 12.2.0', here 'Debian clang version 14.0.6'"
    )
    arm = _elf64(183, b"\0Debian clang version 14.0.6\0")
    assert "another target (ELF machine 183, here 62)" in str(object_difference(here, arm, "clang++"))
    other_code = _elf64(62, b"\0Debian clang version 14.0.6\0", b"\xcc" * 8)
    assert "another object of the same file" in str(object_difference(here, other_code, "clang++"))
    assert "another object" in str(object_difference(here, b"not an object", "clang++"))


@settings(database=None, deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400), st.integers(min_value=0, max_value=399), st.binary(max_size=8))
def test_any_bytes_are_an_elf_or_none(data: bytes, at: int, patch: bytes) -> None:
    """What a host sends back is outside input: a damaged object is None, never an exception."""
    damaged = bytearray(_elf64(62, b"\0clang\0"))
    damaged[at : at + len(patch)] = patch
    for candidate in (data, bytes(damaged), b"\x7fELF" + data):
        facts = elf_facts(candidate)
        assert facts is None or isinstance(facts[1], str)


def test_why_a_probe_failed_in_distccs_words() -> None:
    refused = (
        "distcc[1717] ERROR: nonblocking connect to 127.0.0.1:1 failed: Connection refused\n"
        "distcc[1717] (dcc_build_somewhere) ERROR: failed to distribute and fallbacks are disabled\n"
    )
    assert failure_reason(refused, "", "/usr/bin/clang") == (
        "refused the connection (no distccd listening there) (distcc: nonblocking connect to 127.0.0.1:1 failed: "
        "Connection refused)"
    )
    silent = (
        "distcc[9965] (dcc_readx) ERROR: unexpected eof on fd6\n"
        "distcc[9965] (dcc_r_result_header) ERROR: server provided no answer. Is the server configured...\n"
    )
    assert "may not run /opt/cc/clang++" in failure_reason(silent, "", "/opt/cc/clang++")
    assert failure_reason("", "clang: error: unknown argument\n", "cc") == (
        "could not compile a test file with cc there: clang: error: unknown argument"
    )


def test_distributed_jobs_follow_the_slots_and_links_stay_sized_from_memory() -> None:
    machine = Resources(cpus=2, mem_available=24 * GIB)
    local = size_jobs(machine, "RelWithDebInfo")
    jobs = size_distributed(machine, "RelWithDebInfo", 40)
    assert (local.compile, local.link, local.tablegen_jobs) == (2, 2, 2)
    assert (jobs.compile, jobs.link, jobs.tablegen_jobs) == (40, 4, 2)  # links: 24 GiB at 5 GiB each
    assert "40 distcc slot(s)" in jobs.reason
    small = size_distributed(Resources(cpus=2, mem_available=3 * GIB), "Release", 40)
    assert small.compile == 6 and "limited to 6" in small.reason  # 0.5 GiB per preprocessor here
    assert size_distributed(machine, "Release", 40, jobs=7, link_jobs=9).compile == 7
    assert size_distributed(machine, "Release", 40, jobs=7, link_jobs=9).link == 7


def test_distcc_changes_the_jobs_and_no_fingerprint() -> None:
    """distcc is no input of any step: turning it on or off rebuilds nothing, and no CMake variable of
    either build changes except the job pools (which no fingerprint holds)."""
    plain = fresh("root-json")
    plain = dataclasses.replace(plain, settings=dataclasses.replace(plain.settings, jobs=None, link_jobs=None))
    with_distcc = dataclasses.replace(plain, distcc=DistccSetup("/usr/bin/distcc", parse_hosts("a/8 b/8")))
    off, on = plan_setup(plain), plan_setup(with_distcc)
    assert [s.fingerprint for s in off.steps] == [s.fingerprint for s in on.steps]
    assert (off.jobs.compile, on.jobs.compile) == (2, 16)
    assert dict(on.presets.triton_env)["MAX_JOBS"] == "16"
    assert on.presets.llvm_build.argv[-2:] == ("-j", "16")
    changed = {k for k, v in dict(on.presets.llvm_cache).items() if dict(off.presets.llvm_cache)[k] != v}
    assert changed <= {"LLVM_PARALLEL_LINK_JOBS"}
    assert dict(on.presets.llvm_cache)["LLVM_PARALLEL_TABLEGEN_JOBS"] == "2"  # tablegen runs here


def test_a_debug_llvm_through_distcc_is_built_without_split_dwarf() -> None:
    """distcc 3.4 brings back the object of a remote compile and not its .dwo (reproduced with a distccd
    here), so LLVM_USE_SPLIT_DWARF (HandleLLVMOptions.cmake: -gsplit-dwarf) stays off while distcc is on."""
    debug = fresh("root-json")
    debug = dataclasses.replace(debug, settings=dataclasses.replace(debug.settings, llvm_build_type="Debug"))
    alone = dict(plan_setup(debug).presets.llvm_cache)
    assert alone["LLVM_USE_SPLIT_DWARF"] == "ON"
    with_distcc = dataclasses.replace(debug, distcc=DistccSetup("/usr/bin/distcc", parse_hosts("a/8")))
    plan = plan_setup(with_distcc)
    assert "LLVM_USE_SPLIT_DWARF" not in dict(plan.presets.llvm_cache)
    assert not any("SPLIT_DWARF" in a for a in plan.step("llvm-configure").commands[0].argv)
    assert any("without split DWARF" in n for n in plan.notices)


def test_a_hosts_debug_compile_must_bring_back_what_the_one_here_wrote() -> None:
    probe = DebugProbe(Compiler("/usr/bin/clang++", ".cpp"), ("-O2", "-g", "-gsplit-dwarf"), (".dwo",))
    with_debug = _elf64(62, b"clang", sections=(b".debug_info",))
    assert debug_difference(probe, with_debug, (".dwo",)) is None
    lost = debug_difference(probe, with_debug, ())
    assert lost is not None and lost.startswith("brings back no .dwo file of a -O2 -g -gsplit-dwarf compile")
    plain = DebugProbe(probe.compiler, ("-O2", "-g"), ())
    assert debug_difference(plain, with_debug, ()) is None
    assert "without debug info" in (debug_difference(plain, _elf64(62, b"clang"), ()) or "")
    assert "without debug info" in (debug_difference(plain, b"not an object", ()) or "")


def test_pump_mode_hosts_are_named_as_not_pumped() -> None:
    """distcc(1) 3.4: ",cpp ... the build command must be wrapped in the distcc-pump script"; tritondev
    runs no include server, so distcc preprocesses here ("INCLUDE_SERVER_PORT not set")."""
    plain = fresh("root-json")
    pumped = dataclasses.replace(plain, distcc=DistccSetup("/usr/bin/distcc", parse_hosts("a/8,lzo,cpp b/8")))
    notes = [n for n in plan_setup(pumped).notices if "distcc-pump" in n]
    assert len(notes) == 1 and notes[0].startswith("distcc pump mode (,cpp) of a/8,lzo,cpp needs")
    unpumped = dataclasses.replace(plain, distcc=DistccSetup("/usr/bin/distcc", parse_hosts("b/8")))
    assert not [n for n in plan_setup(unpumped).notices if "distcc-pump" in n]
