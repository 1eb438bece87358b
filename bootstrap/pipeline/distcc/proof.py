"""Before a build uses distcc: each host compiles a test file with this machine's compilers, and its
object must be byte for byte the one compiled here.

The same compiler (path, version and target) at the same flags gives the same object, so an equal
object is the proof and any difference is named: another compiler or version (the `.comment` section
each compiler writes, e.g. "GCC: (Debian 12.2.0-14) 12.2.0" against "Debian clang version 14.0.6"),
another target (the ELF machine), or a host that is down, refuses this machine or may not run the
compiler (distcc's client log). Every such host is left out of the build; none left is exit 3.

The builds compile with debug info (`-g`: every Triton build type but Release, a Debug or
RelWithDebInfo LLVM), so each host also compiles the C++ file with DEBUG_FLAGS: its object must carry
debug info, and what the compile here writes beside the object (a `.dwo` under -gsplit-dwarf) must come
back too - distcc returns only the object, which is why an LLVM built through distcc never uses split
DWARF (bootstrap.pipeline.recipe.llvm). Such objects are not compared byte for byte: clang records the
folder it compiled in (DW_AT_comp_dir), the host's own.

Each probe is distcc run by hand on one host (DISTCC_HOSTS=<that host>), with DISTCC_FALLBACK=0 and
DISTCC_SKIP_LOCAL_RETRY=1 so that nothing can be compiled here instead, a private DISTCC_DIR (the
user's backoff state neither hides a host that is back nor records one that is not) and a short
DISTCC_IO_TIMEOUT. Hosts are proven at once, one thread each. The files live in a temporary folder
that is removed afterwards; the probes only read, so they run under --dry-run too.
"""

from __future__ import annotations

import re
import shutil
import struct
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import CommandFailed, ToolMissing
from bootstrap.core.io import writes
from bootstrap.core.process.runner import Runner
from bootstrap.core.settings.distcc_hosts import HostSpec
from bootstrap.pipeline.distcc.client import DistccSetup, HostVerdict, left_out_notice

if TYPE_CHECKING:
    from rich.console import Console

STEP = "distcc-probe"
PROBE_TIMEOUT = 90.0  # one compile on one host, connection included
IO_TIMEOUT = "30"  # DISTCC_IO_TIMEOUT of a probe: a host that stops answering is given up on
GOOD = "compiles as this machine does"
DEBUG_FLAGS = ("-O2", "-g")  # what the builds' compiles have in common (LLVM's Debug adds -O0, not compared)
# One file per language, each with some code generation to compare (templates, a loop, a vtable).
SOURCES = {
    ".c": "int tritondev_distcc_probe_c(int n) { int s = 0; for (int i = 0; i < n; ++i) s += i * 3; return s; }\n",
    ".cpp": (
        "template <typename T> static T scaled(T x, int n) { T s = 0; for (int i = 0; i < n; ++i) s += x * i;"
        " return s; }\n"
        "struct TritondevProbe { virtual ~TritondevProbe() = default;"
        " virtual double f(double x) const { return scaled(x, 7); } };\n"
        "int tritondev_distcc_probe(int x) { TritondevProbe p; return static_cast<int>(p.f(x)) + scaled(x, 3); }\n"
    ),
}
# "distcc[PID] (function) ERROR: " before what distcc's client log says.
_PREFIX = re.compile(r"^distcc\[\d+\] (?:\([^)]*\) )?(?:ERROR: )?")
# What distcc's client log says when a host cannot be used, and what that means.
_WHY = (
    ("connection refused", "refused the connection (no distccd listening there)"),
    ("connection reset by peer", "hung up at once: its distccd does not allow this machine (distccd --allow)"),
    ("failed to look up", "its name does not resolve"),
    ("network is unreachable", "is unreachable"),
    ("no route to host", "is unreachable"),
    ("timeout", "did not answer in time"),
    ("timed out", "did not answer in time"),
    (
        "server provided no answer",
        "took the connection but answered nothing: distccd refuses this machine "
        "(--allow) or may not run {compiler} (distccd runs only compilers listed in /usr/lib/distcc, by "
        "name or under /usr/bin)",
    ),
)


@dataclass(frozen=True)
class Compiler:
    path: str
    suffix: str  # the language of its test file: ".c" or ".cpp"


def compilers_of(cc: str, cxx: str) -> tuple[Compiler, ...]:
    return (Compiler(cc, ".c"), Compiler(cxx, ".cpp"))


def prove(
    runner: Runner,
    setup: DistccSetup,
    compilers: Sequence[Compiler],
    console: Console | None = None,
    debug_flags: Sequence[str] = DEBUG_FLAGS,
) -> DistccSetup:
    """`setup` with each remote host's verdict; ToolMissing (exit 3) when none of them is usable."""
    if setup.proven:
        return setup
    proven = check_hosts(runner, setup, compilers, debug_flags)
    _say(console, proven)
    if not proven.hosts.remote:
        raise ToolMissing(
            "no distcc host can compile for this build: "
            + "; ".join(f"{v.host.token} {v.reason}" for v in proven.verdicts or ()),
            fix=f"start distccd on them with the compilers of this machine (docs/distributed-builds.md), or "
            f"change or turn off the host list (--distcc '{setup.given.value}', or --distcc none)",
        )
    return proven


def check_hosts(
    runner: Runner, setup: DistccSetup, compilers: Sequence[Compiler], debug_flags: Sequence[str] = DEBUG_FLAGS
) -> DistccSetup:
    """`setup` with a verdict for each of its remote hosts, proven at once."""
    folder = Path(tempfile.mkdtemp(prefix="tritondev-distcc-"))
    try:
        reference = _compile_here(runner, compilers, folder)
        debug = _debug_here(runner, compilers[-1], debug_flags, folder)
        hosts = setup.given.remote
        with ThreadPoolExecutor(max_workers=min(16, len(hosts))) as pool:
            verdicts = list(
                pool.map(
                    lambda n: _prove_one(runner, setup.client, hosts[n], n, compilers, reference, folder, debug),
                    range(len(hosts)),
                )
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return DistccSetup(setup.client, setup.given, tuple(verdicts))


def _say(console: Console | None, proven: DistccSetup) -> None:
    if console is None:
        return
    from rich.markup import escape

    for verdict in proven.verdicts or ():
        line = f"distcc host {verdict.describe()}" if verdict.ok else left_out_notice(verdict)
        console.print(escape(line), highlight=False)


def _compile_here(runner: Runner, compilers: Sequence[Compiler], folder: Path) -> dict[str, bytes]:
    """The objects this machine's compilers make of the test files, by compiler path."""
    objects: dict[str, bytes] = {}
    for n, compiler in enumerate(compilers):
        source = folder / f"probe{compiler.suffix}"
        writes.replace_text(source, SOURCES[compiler.suffix], verbatim=True)
        target = folder / f"here-{n}.o"
        try:
            runner.capture(
                [compiler.path, "-O2", "-c", source.name, "-o", target.name],
                step=STEP,
                cwd=folder,
                timeout=PROBE_TIMEOUT,
                fix="see the log: this machine's compiler failed on it",
            )
        except CommandFailed as exc:
            raise ToolMissing(
                f"{compiler.path} cannot compile a test file here, so no distcc host can be compared with it",
                fix=exc.fix,
            ) from None
        objects[compiler.path] = target.read_bytes()
    return objects


@dataclass(frozen=True)
class DebugProbe:
    """The compile with debug info here: its compiler and flags, and the files it wrote beside the object
    (by suffix: ".dwo" under -gsplit-dwarf)."""

    compiler: Compiler
    flags: tuple[str, ...]
    beside: tuple[str, ...]


def _debug_here(runner: Runner, compiler: Compiler, flags: Sequence[str], folder: Path) -> DebugProbe:
    work = folder / "debug-here"
    work.mkdir()
    writes.replace_text(work / f"probe{compiler.suffix}", SOURCES[compiler.suffix], verbatim=True)
    try:
        runner.capture(
            [compiler.path, *flags, "-c", f"probe{compiler.suffix}", "-o", "probe.o"],
            step=STEP,
            cwd=work,
            timeout=PROBE_TIMEOUT,
            fix="see the log: this machine's compiler failed on it",
        )
    except CommandFailed as exc:
        raise ToolMissing(
            f"{compiler.path} cannot compile a test file with {' '.join(flags)} here", fix=exc.fix
        ) from None
    return DebugProbe(compiler, tuple(flags), _beside(work, compiler.suffix))


def _beside(work: Path, source_suffix: str) -> tuple[str, ...]:
    """What a compile of probe<suffix> to probe.o wrote besides the object: the suffixes of the others."""
    names = (p for p in work.iterdir() if p.stem == "probe")
    return tuple(sorted(p.suffix for p in names if p.suffix not in (".o", source_suffix)))


def debug_difference(probe: DebugProbe, there: bytes, beside: Sequence[str]) -> str | None:
    """None when the host's debug compile brought back what the one here made; else what it lacks."""
    missing = [s for s in probe.beside if s not in beside]
    if missing:
        return (
            f"brings back no {', '.join(missing)} file of a {' '.join(probe.flags)} compile (distcc returns the"
            " object alone), so its debug info would be lost"
        )
    sections = elf_sections(there)
    if sections is None or ".debug_info" not in sections:
        return f"its {probe.compiler.path} compiled {' '.join(probe.flags)} without debug info"
    return None


def _prove_debug(
    runner: Runner, client: str, probe: DebugProbe, folder: Path, n: int, env: dict[str, str | None]
) -> str | None:
    """The host's compile with debug info: None when it is as the one here, else why not."""
    work = folder / f"debug-{n}"
    work.mkdir()
    source = f"probe{probe.compiler.suffix}"
    writes.replace_text(work / source, SOURCES[probe.compiler.suffix], verbatim=True)
    result = runner.capture(
        [client, probe.compiler.path, *probe.flags, "-c", source, "-o", "probe.o"],
        step=STEP,
        cwd=work,
        env=env,
        check=False,
        timeout=PROBE_TIMEOUT,
    )
    target = work / "probe.o"
    if not result.ok or not target.is_file():
        return failure_reason(_read(Path(str(env["DISTCC_LOG"]))), result.stderr, probe.compiler.path)
    return debug_difference(probe, target.read_bytes(), _beside(work, probe.compiler.suffix))


def _prove_one(
    runner: Runner,
    client: str,
    host: HostSpec,
    n: int,
    compilers: Sequence[Compiler],
    reference: dict[str, bytes],
    folder: Path,
    debug: DebugProbe,
) -> HostVerdict:
    started = time.monotonic()
    state = folder / f"distcc-{n}"
    state.mkdir()
    log = folder / f"client-{n}.log"
    env = {
        "DISTCC_HOSTS": host.token,
        "DISTCC_FALLBACK": "0",
        "DISTCC_SKIP_LOCAL_RETRY": "1",
        "DISTCC_DIR": str(state),
        "DISTCC_LOG": str(log),
        "DISTCC_IO_TIMEOUT": IO_TIMEOUT,
        "DISTCC_VERBOSE": None,
    }
    for k, compiler in enumerate(compilers):
        target = folder / f"host{n}-{k}.o"
        log.unlink(missing_ok=True)
        try:
            result = runner.capture(
                [client, compiler.path, "-O2", "-c", f"probe{compiler.suffix}", "-o", target.name],
                step=STEP,
                cwd=folder,
                env=env,
                check=False,
                timeout=PROBE_TIMEOUT,
            )
        except CommandFailed:  # timed out
            return HostVerdict(
                host,
                False,
                f"did not finish compiling a test file in {PROBE_TIMEOUT:.0f} s",
                time.monotonic() - started,
            )
        said = _read(log)
        if not result.ok or not target.is_file():
            why = failure_reason(said, result.stderr, compiler.path)
            return HostVerdict(host, False, why, time.monotonic() - started)
        difference = object_difference(reference[compiler.path], target.read_bytes(), compiler.path)
        if difference:
            return HostVerdict(host, False, difference, time.monotonic() - started)
    log.unlink(missing_ok=True)
    try:
        difference = _prove_debug(runner, client, debug, folder, n, env)
    except CommandFailed:  # timed out
        difference = f"did not finish compiling a test file in {PROBE_TIMEOUT:.0f} s"
    if difference:
        return HostVerdict(host, False, difference, time.monotonic() - started)
    return HostVerdict(host, True, GOOD, time.monotonic() - started)


def _read(log: Path) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def failure_reason(client_log: str, stderr: str, compiler: str) -> str:
    """Why a probe failed, from distcc's client log and its stderr (the remote compiler's errors)."""
    errors = [_PREFIX.sub("", line).strip() for line in client_log.splitlines() if "ERROR" in line]
    first = next((e for e in errors if "fallbacks are disabled" not in e), errors[0] if errors else "")
    lowered = client_log.lower()
    for marker, meaning in _WHY:
        if marker in lowered:
            return (
                f"{meaning.format(compiler=compiler)} (distcc: {first})" if first else meaning.format(compiler=compiler)
            )
    output = " ".join(stderr.split())[:300]
    if output:
        return f"could not compile a test file with {compiler} there: {output}"
    return f"could not compile a test file with {compiler} there" + (f" (distcc: {first})" if first else "")


def object_difference(here: bytes, there: bytes, compiler: str) -> str | None:
    """None when the host's object is this machine's; else what differs, in the compilers' own words."""
    if here == there:
        return None
    ours, theirs = elf_facts(here), elf_facts(there)
    if ours and theirs and ours[0] != theirs[0]:
        return f"its {compiler} compiles for another target (ELF machine {theirs[0]}, here {ours[0]})"
    if ours and theirs and ours[1] != theirs[1]:
        return f"its {compiler} is another compiler: {theirs[1] or 'unnamed'!r}, here {ours[1] or 'unnamed'!r}"
    return f"its {compiler} makes another object of the same file (another version or configuration)"


def _elf(data: bytes) -> tuple[int, dict[bytes, tuple[int, int]]] | None:
    """(e_machine, section name -> (file offset, size)) of an ELF object; None when it is not one."""
    try:
        if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
            return None
        wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
        (machine,) = struct.unpack_from(order + "H", data, 18)
        shoff, shentsize, shnum, shstrndx = (
            struct.unpack_from(order + "Q", data, 40)[0] if wide else struct.unpack_from(order + "I", data, 32)[0],
            *struct.unpack_from(order + "HHH", data, 58 if wide else 46),
        )
        sections = [_section(data, order, wide, shoff + i * shentsize) for i in range(min(shnum, 4096))]
        names_offset = sections[shstrndx][1]
        named: dict[bytes, tuple[int, int]] = {}
        for name, offset, size in sections:
            end = data.index(b"\0", names_offset + name)
            named.setdefault(data[names_offset + name : end], (offset, size))
        return machine, named
    except (struct.error, IndexError, ValueError, OverflowError):  # a damaged object: not one
        return None


def elf_facts(data: bytes) -> tuple[int, str] | None:
    """(e_machine, the text of the .comment section) of an ELF object; None when it is not one."""
    elf = _elf(data)
    if elf is None:
        return None
    machine, sections = elf
    offset, size = sections.get(b".comment", (0, 0))
    parts = data[offset : offset + size].split(b"\0") if size else []
    return machine, "; ".join(p.decode("utf-8", "replace").strip() for p in parts if p.strip())


def elf_sections(data: bytes) -> set[str] | None:
    """The section names of an ELF object; None when it is not one."""
    elf = _elf(data)
    return None if elf is None else {name.decode("utf-8", "replace") for name in elf[1]}


def _section(data: bytes, order: str, wide: bool, at: int) -> tuple[int, int, int]:
    """(name offset, file offset, size) of the section header at `at`."""
    if wide:
        name, _, _, _, offset, size = struct.unpack_from(order + "IIQQQQ", data, at)
    else:
        name, _, _, _, offset, size = struct.unpack_from(order + "IIIIII", data, at)
    return int(name), int(offset), int(size)
