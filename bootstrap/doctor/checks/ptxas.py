"""ptxas and the arch: which ptxas Triton uses for the arch, proved by compiling a tiny kernel.

Instead of a rule such as "arch >= 110 needs the system ptxas" (vLLM's, which swaps a working
ptxas for an older one and misses Triton's per-arch ptxas split), the target environment's own
Triton compiles a kernel for sm_<arch>: that runs Triton's own choice of ptxas, its PTX-version
table and its LLVM's knowledge of the arch. When that fails, every other ptxas on the machine is
tried the same way, and only a fix that was seen to work is proposed.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from bootstrap.core.target.inside_answers import Ptxas, TritonImport
from bootstrap.doctor.answers import CompileCheck
from bootstrap.doctor.arch import first_triton_for
from bootstrap.doctor.facts import Facts, ProbeFailed, Skip
from bootstrap.doctor.model import CheckOutcome, Fix, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.doctor.versions import parse_tool_version
from bootstrap.env.envfile import read_env_file
from bootstrap.kernels.nvidia_tools import toolkit_copies


class Failure(str, Enum):
    PTXAS_UNKNOWN_ARCH = "ptxas does not know the arch"
    PTXAS_TOO_NEW = "ptxas is newer than this Triton's PTX-version table"
    LLVM_UNKNOWN_ARCH = "this Triton's LLVM does not know the arch"
    PTXAS_BROKEN = "ptxas does not run"
    OTHER = "compile failed"


def classify_failure(message: str, stderr: str = "") -> Failure:
    """Why a compile for sm_<arch> failed, from Triton's exception text and the process's stderr."""
    text = f"{message}\n{stderr}"
    if "is not defined for option 'gpu-name'" in text or "Unknown option '-arch" in text:
        if "is not a recognized processor" in text:
            return Failure.LLVM_UNKNOWN_ARCH
        return Failure.PTXAS_UNKNOWN_ARCH
    if "only support CUDA" in text or "Unsupported .version" in text or "Unsupported .target" in text:
        return Failure.PTXAS_TOO_NEW
    if "is not a recognized processor" in text:
        return Failure.LLVM_UNKNOWN_ARCH
    if "Cannot find ptxas" in text or "Permission denied" in text:
        return Failure.PTXAS_BROKEN
    return Failure.OTHER


@dataclass
class Attempt:
    label: str  # "bundled ptxas-blackwell 12.9", "/usr/local/cuda/bin/ptxas 13.0"
    env: dict[str, str]
    ok: bool
    failure: Failure | None = None
    message: str = ""
    release: str | None = None  # CUDA release of the ptxas tried, when known

    def line(self) -> str:
        if self.ok:
            return f"{self.label}: compiles"
        lines = [ln.strip() for ln in self.message.splitlines() if ln.strip()]
        first = next((ln for ln in lines if "fatal" in ln), "") or next(
            (ln for ln in lines if "Error" in ln), lines[0] if lines else ""
        )
        return f"{self.label}: {self.failure.value if self.failure else 'failed'} ({first[:200]})"


class Decision(str, Enum):
    """What the attempts say about the arch."""

    OK = "ok"
    FIXABLE = "fixable"  # another ptxas on this machine works
    UPGRADE_TRITON = "upgrade-triton"
    NO_PTXAS = "no-ptxas"


@dataclass
class Verdict:
    status: Decision
    working: Attempt | None = None
    attempts: list[Attempt] = field(default_factory=list)


def decide(default: Attempt, others: list[Attempt]) -> Verdict:
    """What the attempts say. Pure: the whole decision is testable over recorded attempts."""
    attempts = [default, *others]
    if default.ok:
        return Verdict(Decision.OK, default, attempts)
    working = next((a for a in others if a.ok), None)
    if working is not None:
        return Verdict(Decision.FIXABLE, working, attempts)
    triton_side = {Failure.PTXAS_TOO_NEW, Failure.LLVM_UNKNOWN_ARCH}
    if any(a.failure in triton_side for a in attempts):
        return Verdict(Decision.UPGRADE_TRITON, None, attempts)
    return Verdict(Decision.NO_PTXAS, None, attempts)


def first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0][:200] if lines else "(no message)"


def upgrade_requirement(installed: str, arch: int) -> str:
    """What to `pip install -U` for an arch this Triton cannot target: the release known to, else newer."""
    from packaging.version import InvalidVersion, Version

    first = first_triton_for(arch)
    try:
        newer_needed = first is None or Version(installed).release >= Version(first).release
    except InvalidVersion:
        newer_needed = first is None
    if newer_needed and installed[:1].isdigit():
        return f"'triton>{Version(installed).public}'"
    return f"'triton>={first}'" if first else "triton"


def ptxas_release(facts: Facts, path: str) -> tuple[str | None, str]:
    """(release "13.0", full --version text) of a ptxas; (None, why) when it does not run."""

    def probe() -> tuple[str | None, str]:
        try:
            result = facts.ctx.runner.capture([path, "--version"], step="doctor-ptxas-version", check=False, timeout=20)
        except Exception as exc:
            return None, str(exc)
        text = result.stdout + result.stderr
        import re

        match = re.search(r"release (\d+\.\d+)", text)
        if not result.ok or not match:
            return None, text.strip()[-300:] or f"exit status {result.returncode}"
        return match.group(1), text.strip()

    return facts.memo(f"ptxas-version-{path}", probe)


@dataclass(frozen=True)
class TritonPtxas:
    """The Triton that imports, and the ptxas it chose for the arch (both known)."""

    triton: TritonImport
    info: Ptxas
    path: str
    version: str


def _triton_ptxas(facts: Facts, arch: int) -> TritonPtxas:
    facts.target()
    probe = facts.triton_probe(arch)
    if probe.import_error is not None:
        raise Skip(f"triton does not import ({probe.import_error[:200]})", "see packages.triton-import")
    if probe.ptxas is None or probe.ptxas.chosen is None:
        why = probe.errors.get("ptxas", "the NVIDIA backend is missing")
        raise Skip(f"cannot ask Triton for its ptxas: {why}")
    return TritonPtxas(probe, probe.ptxas, probe.ptxas.chosen.path, probe.ptxas.chosen.version)


def _variables_for(info: Ptxas) -> list[str]:
    """The variables Triton reads for this arch's ptxas (TRITON_PTXAS_PATH, TRITON_PTXAS_BLACKWELL_PATH...)."""
    if info.chosen is not None and info.chosen.env:
        return list(info.chosen.env)
    envs = [t.env for t in info.tools.values()]
    return envs[:1] or ["TRITON_PTXAS_PATH"]


def _compile(facts: Facts, arch: int, env: dict[str, str], label: str) -> Attempt:
    try:
        answer: CompileCheck = facts.compile_for(arch, dict(env))
    except ProbeFailed as exc:
        return Attempt(label, env, False, Failure.OTHER, str(exc))
    if answer.ok:
        return Attempt(label, env, True)
    return Attempt(label, env, False, classify_failure(answer.error, answer.stderr), answer.error)


def _driver_cuda(facts: Facts) -> tuple[int, ...] | None:
    info = facts.gpu_info()
    if info is None or not info.cuda or facts.asked_arch is not None:
        return None
    return parse_tool_version(info.cuda)


@check("ptxas.arch", "Triton compiles for this arch with its ptxas (proved)", slow=True)
def arch_check(facts: Facts) -> CheckOutcome:
    arch, source = facts.arch()
    if arch is None:
        raise Skip("no GPU here; pass --arch sm_XY to check a target ahead of time")
    found = _triton_ptxas(facts, arch)
    version = found.triton.version
    variables = _variables_for(found.info)
    bundled = {os.path.realpath(t.default) for t in found.info.tools.values() if t.default}
    kind = "bundled" if os.path.realpath(found.path) in bundled else "override"
    tool_name = Path(found.path).name
    used = f"its {kind} {tool_name} {found.version} ({' / '.join(variables)})"
    default = _compile(facts, arch, {}, f"Triton's choice: {kind} {tool_name} {found.version} {found.path}")
    if default.ok:
        return ok(f"Triton {version} compiles for sm_{arch} ({source}) with {used}", default.line())

    # Values in the workspace env file that this shell has not loaded come first: they may be a
    # fix applied earlier (doctor --fix) and only waiting for eval "$(tritondev env)".

    saved = {
        k: v
        for k, v in read_env_file(facts.ctx.workspace.env_file).items()
        if k.startswith("TRITON_PTXAS") and facts.environ.get(k) != v
    }
    others: list[Attempt] = []
    if saved:
        attempt = _compile(facts, arch, saved, f"{facts.ctx.workspace.env_file} values {saved}")
        if attempt.ok:
            return error(
                f"Triton {version} cannot compile for sm_{arch} with {used}; the workspace env file fixes it"
                " but is not loaded in this shell",
                'eval "$(tritondev env)"',
                default.line(),
                attempt.line(),
            )
        others.append(attempt)
    tried, skipped_notes = _try_other_ptxas(facts, arch, variables, bundled | {os.path.realpath(found.path)})
    verdict = decide(default, others + tried)
    details = [a.line() for a in verdict.attempts] + skipped_notes
    return _verdict_outcome(facts, arch, version, used, verdict, details)


def _try_other_ptxas(
    facts: Facts, arch: int, variables: list[str], exclude: set[str]
) -> tuple[list[Attempt], list[str]]:
    """Compile with every other ptxas on the machine (not newer than the driver) until one works.

    Returns the attempts and notes on the candidates not tried (does not run, too new, a duplicate).
    """
    site = [str(p) for p in facts.target().site_packages]
    driver = _driver_cuda(facts)
    attempts: list[Attempt] = []
    notes: list[str] = []
    seen_versions: set[str] = set()
    for path in toolkit_copies("ptxas", facts.environ, site_packages=site):
        if os.path.realpath(path) in exclude:
            continue
        release, text = ptxas_release(facts, path)
        if release is None:
            notes.append(f"{path}: does not run ({text[:120]})")
            continue
        if text in seen_versions:
            continue  # the same ptxas build under another path
        seen_versions.add(text)
        rel = parse_tool_version(release)
        if driver is not None and rel is not None and rel[:2] > driver[:2]:
            notes.append(f"{path} ({release}): newer than the driver's CUDA {'.'.join(map(str, driver))}")
            continue
        attempt = _compile(facts, arch, dict.fromkeys(variables, path), f"{path} (CUDA {release})")
        attempt.release = release
        attempts.append(attempt)
        if attempt.ok:
            break
    return attempts, notes


def variable_fix(env: dict[str, str], env_file: Path, arch: int) -> Fix:
    """How to set `env` for the installed Triton: 3.3 and 3.6 read TRITON_PTXAS-BLACKWELL_PATH (3.7 on: #8945's
    TRITON_PTXAS_BLACKWELL_PATH), which no shell exports, so `env` goes before the command."""
    if all(name.isidentifier() for name in env):
        return Fix(
            f"export {' '.join(f'{k}={v}' for k, v in env.items())}  (tritondev doctor --fix writes it to"
            f' {env_file}; then eval "$(tritondev env)")',
            action="env",
            args={"variables": env, "reason": f"ptxas for sm_{arch}"},
        )
    quoted = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    return Fix(
        f"run your program as: env {quoted} python3 your_script.py  (this Triton reads a name with a"
        " hyphen, which `export` cannot set; Triton 3.7 on reads TRITON_PTXAS_BLACKWELL_PATH)"
    )


def _verdict_outcome(
    facts: Facts, arch: int, version: str | None, used: str, verdict: Verdict, details: list[str]
) -> CheckOutcome:
    """The report of a failed default compile: the working variable, a newer Triton, or a newer CUDA."""
    default, triton = verdict.attempts[0], f"Triton {version}"
    if verdict.status is Decision.FIXABLE and verdict.working is not None:
        env, release = verdict.working.env, verdict.working.release
        working = " ".join(f"{k}={v}" for k, v in env.items())
        summary = f"{triton} cannot compile for sm_{arch} with {used}; {working} (CUDA {release}) works"
        return error(summary, variable_fix(env, facts.ctx.workspace.env_file, arch), *details)
    wanted = upgrade_requirement(str(version or ""), arch)
    if verdict.status is Decision.UPGRADE_TRITON:
        return error(
            f"{triton} cannot target sm_{arch} with any ptxas on this machine: it is too old for this arch",
            f"upgrade Triton: pip install -U {wanted}  (with a torch that pins it, or build it: tritondev setup"
            " --triton-commit ...)",
            *details,
        )
    if (default.failure or Failure.OTHER) is not Failure.PTXAS_UNKNOWN_ARCH:
        return error(
            f"{triton} fails to compile for sm_{arch}: {first_line(default.message)}",
            "tritondev doctor --check ptxas.arch -v for the full error",
            *details,
        )
    return error(
        f"no ptxas on this machine knows sm_{arch} (tried {len(verdict.attempts)})",
        f"upgrade Triton: pip install -U {wanted}, or install a CUDA toolkit whose ptxas knows sm_{arch}"
        " and run doctor again",
        *details,
    )


@check("ptxas.overrides", "TRITON_PTXAS*_PATH overrides run and are read")
def overrides(facts: Facts) -> CheckOutcome:
    names = sorted(k for k in facts.environ if k.startswith("TRITON_PTXAS") and k.endswith("_PATH"))
    if not names:
        return ok("none set: Triton uses the ptxas it bundles")
    problems: list[str] = []
    details: list[str] = []
    for name in names:
        path = facts.environ[name]
        release, text = ptxas_release(facts, path) if os.path.isfile(path) else (None, "no such file")
        if release is None:
            problems.append(
                f"{name}={path} does not run ({text[:100]}): Triton silently falls back to its bundled ptxas"
            )
        else:
            details.append(f"{name}={path} (CUDA {release})")
    arch, _ = facts.arch()
    if not problems and arch is not None:
        try:
            probe = _triton_ptxas(facts, arch)
        except Skip:
            probe = None
        if probe is not None:
            read = set(_variables_for(probe.info))
            unread = [n for n in names if n not in read]
            if unread and not (set(names) & read):
                # Harmless but misleading: the old recipe's TRITON_PTXAS_PATH is a no-op where
                # Triton uses ptxas-blackwell for the arch (triton#10331).
                target = facts.environ[unread[0]]
                return warn(
                    f"{', '.join(unread)} has no effect for sm_{arch} on Triton {probe.triton.version}:"
                    f" it reads {' / '.join(sorted(read))}",
                    f"unset {' '.join(unread)}; to use that ptxas for sm_{arch}: export {sorted(read)[0]}={target}"
                    " (only if ptxas.arch needs it)",
                    *details,
                )
    if problems:
        return error(
            problems[0],
            "unset the variable, or point it at a ptxas that runs (see ptxas.arch for one that works)",
            *problems[1:],
            *details,
        )
    return ok(", ".join(details))


@check("ptxas.driver", "ptxas is not newer than the driver")
def driver(facts: Facts) -> CheckOutcome:
    info = facts.gpu_info()
    if info is None or not info.gpus:
        raise Skip("no NVIDIA driver here")
    arch = info.gpus[0].arch
    if arch is None or not info.cuda:
        raise Skip("nvidia-smi reports no arch or CUDA version")
    probe = _triton_ptxas(facts, arch)
    chosen = probe.version
    ptxas = parse_tool_version(chosen)
    cuda = parse_tool_version(info.cuda)
    if ptxas and cuda and ptxas[:2] > cuda[:2]:
        return warn(
            f"Triton's ptxas for sm_{arch} is CUDA {chosen}, newer than the driver's CUDA {info.cuda}:"
            " kernels may fail to load ('device kernel image is invalid')",
            f"upgrade the NVIDIA driver to one for CUDA >= {chosen}",
        )
    return ok(f"ptxas CUDA {chosen} <= driver CUDA {info.cuda}")
