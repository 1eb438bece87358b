"""Packages: who owns `triton/`, placeholders, torch <-> triton pairing, shadowing, the import."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from bootstrap.core.target.inside import InstallTarget, install_fix
from bootstrap.doctor import answers as doctor_answers
from bootstrap.doctor.facts import Facts, ProbeFailed, Skip
from bootstrap.doctor.model import CheckOutcome, Fix, error, ok, skipped, warn
from bootstrap.doctor.registry import check
from bootstrap.doctor.versions import TRITON_DISTS, check_pairing

TORCH_COMPILE_TIMEOUT = 600.0


def _dist_versions(facts: Facts, names: tuple[str, ...]) -> dict[str, str]:
    wanted = set(names)
    return {d.name.lower(): d.version for d in facts.distributions() if d.key in wanted}


def _site_packages(facts: Facts) -> list[Path]:
    return [Path(os.path.normpath(p)) for p in facts.target().site_packages]


def shadow_folders(cwd: Path, pythonpath: str, site_packages: list[Path]) -> list[Path]:
    """triton packages in the cwd (first on sys.path for `python -c`/`-m` and the REPL) or on PYTHONPATH
    (before site-packages), outside the environment's own site-packages."""
    folders = [cwd] + [Path(e) if e else cwd for e in pythonpath.split(os.pathsep) if pythonpath]
    inside = {os.path.normpath(p) for p in site_packages}
    found: dict[Path, None] = {}
    for folder in folders:
        folder = Path(os.path.normpath(folder.absolute()))
        if str(folder) in inside:
            continue
        for candidate in (folder / "triton", folder / "triton.py"):
            if candidate.exists():
                found[candidate] = None
    return list(found)


def import_location(facts: Facts) -> tuple[str | None, str | None, bool]:
    """(file or first __path__ entry, import error, namespace package) of `import triton` as the user
    gets it (their cwd and PYTHONPATH), from the Triton probe."""
    probe = facts.triton_probe()
    return probe.location, probe.import_error, probe.namespace


@check("packages.triton-owners", "one distribution owns triton/")
def owners(facts: Facts) -> CheckOutcome:
    found = facts.triton_owners()
    names = [f"{o.name} {o.version}" for o in found]
    if len(found) > 1:
        uninstall = " ".join(shlex.quote(o.name) for o in found)
        return error(
            f"{len(found)} distributions own triton/: {', '.join(names)} (uninstalling one breaks the other)",
            Fix(
                f"tritondev doctor --fix (purges them all, journaled), then install one: tritondev setup"
                f"  (by hand: pip uninstall -y {uninstall})",
                action="purge",
            ),
            *[f"{o.name} {o.version}: {o.owns_triton_files} files in {o.location}" for o in found],
        )
    leftovers = [p / "triton" for p in _site_packages(facts) if (p / "triton").is_dir()] if not found else []
    if leftovers:
        return warn(
            f"{leftovers[0]} exists but no distribution owns it (left over from an uninstall)",
            Fix("tritondev doctor --fix (purge removes leftovers)", action="purge"),
        )
    if not found:
        return ok("no distribution provides triton/ (not installed)")
    owner = found[0]
    extra = " (editable install)" if owner.editable else ""
    if owner.record_missing:
        return warn(
            f"{names[0]} has no RECORD: pip cannot uninstall it cleanly",
            f"pip install --force-reinstall --no-deps '{owner.name}=={owner.version}'",
        )
    return ok(f"{names[0]}{extra}")


@check("packages.placeholder", "no placeholder triton wheel")
def placeholder(facts: Facts) -> CheckOutcome:
    found = facts.triton_owners()
    bad = [o for o in found if o.placeholder]
    if bad:
        owner = bad[0]
        return error(
            f"{owner.name} {owner.version} is PyPI's placeholder (raises 'Should never be installed')",
            Fix(
                f"tritondev doctor --fix (purges it), then install the real one: tritondev setup  (or pip install"
                f" --index-url https://download.pytorch.org/whl/nightly/ {owner.name})",
                action="purge",
            ),
        )
    if not found:
        raise Skip("triton is not installed")
    return ok("no placeholder wheel (pytorch-triton 0.0.1)")


@check("packages.shadowing", "no triton/ folder shadows the installed one")
def shadowing(facts: Facts) -> CheckOutcome:
    shadows = shadow_folders(facts.cwd, facts.environ.get("PYTHONPATH", ""), _site_packages(facts))
    if not shadows:
        return ok("no triton/ in the current directory or on PYTHONPATH")
    first = shadows[0]
    location, _, namespace = import_location(facts)
    wins = namespace or (location is not None and Path(location).resolve().is_relative_to(first.resolve()))
    what = "is what `import triton` loads here" if wins else "sits before site-packages on sys.path"
    in_cwd = first.parent == Path(os.path.normpath(facts.cwd.absolute()))
    fix = f"run from another directory, or rename {first}" if in_cwd else f"remove {first.parent} from PYTHONPATH"
    where = "the current directory" if in_cwd else "PYTHONPATH"
    outcome = error if wins else warn
    return outcome(f"{first} in {where} {what}", fix, *[str(p) for p in shadows])


@check("packages.triton-import", "where `import triton` really comes from", slow=True)
def triton_import(facts: Facts) -> CheckOutcome:
    location, failure, namespace = import_location(facts)
    found = facts.triton_owners()
    if location is None:
        if not found:
            return skipped("triton is not installed", fix="tritondev setup")
        # Purging is the safe fix only when the cause is one purge removes: a placeholder or
        # several owners overwriting each other. Otherwise reinstalling the one owner is.
        if len(found) > 1 or any(o.placeholder for o in found):
            fix: Fix | str = Fix("tritondev doctor --fix (purges them), then: tritondev setup", action="purge")
        else:
            owner = found[0]
            pinned = f"{owner.name}=={owner.version}"
            fix = f"pip install --force-reinstall --no-deps '{pinned}'  (or: tritondev setup)"
        return error(f"import triton fails: {(failure or '')[:300]}", fix)
    if namespace:
        return error(
            f"triton imports as an empty namespace package from {location} (a triton/ folder without __init__.py)",
            "remove or rename that folder (see packages.shadowing)",
        )
    version = facts.triton_probe().version
    shown = f"triton {version} from {location}"
    sites = [str(p) for p in _site_packages(facts)]
    editable = [o for o in found if o.editable]
    if not any(location.startswith(s + os.sep) for s in sites) and not editable:
        return warn(
            f"{shown}, which no installed distribution provides",
            "check PYTHONPATH and the current directory (see packages.shadowing)",
        )
    owned = {o.version for o in found}
    if version and owned and not any(v.split("+")[0] == str(version).split("+")[0] for v in owned):
        return warn(
            f"{shown}, but the installed distribution says {', '.join(sorted(owned))}: a half-overwritten install",
            "tritondev doctor --fix, then reinstall: tritondev setup",
        )
    return ok(shown)


@check("packages.torch-triton", "the installed Triton matches torch's pin", slow=True)
def torch_triton(facts: Facts) -> CheckOutcome:
    facts.target()
    requires = facts.environment().torch_requires
    if requires is None:
        raise Skip("torch is not installed in the target environment")
    installed = _dist_versions(facts, TRITON_DISTS)
    pairing = check_pairing(list(requires), installed)
    torch_version = _dist_versions(facts, ("torch",)).get("torch", "?")
    if pairing.matches is None and not facts.deep:
        return skipped(f"torch {torch_version}: {pairing.note}")
    details = [
        f"torch {torch_version} requires {pairing.requirement or 'no Triton here'}",
        f"installed: {pairing.installed or 'none'}",
    ]
    if pairing.matches is False:
        return error(
            f"torch {torch_version} requires {pairing.requirement}; installed: {pairing.installed or 'none'}",
            "tritondev setup (builds and installs torch's pinned Triton commit)",
            *details,
        )
    if facts.deep:
        # Fresh caches: a read-only doctor leaves the user's Triton and Inductor caches alone.
        scratch = facts.tempdir("torch-compile")
        deep = facts.probe(
            doctor_answers.torch_compile,
            "tritondev_torch_compile.py",
            step="doctor-torch-compile",
            timeout=TORCH_COMPILE_TIMEOUT,
            env={"TRITON_CACHE_DIR": str(scratch / "triton"), "TORCHINDUCTOR_CACHE_DIR": str(scratch / "inductor")},
        )
        if not deep.ok:
            return error(
                f"pinned Triton matches, but a tiny torch.compile fails: {deep.error}",
                "tritondev doctor -v for details; reinstall with tritondev setup",
                *details,
            )
        details.append(f"torch.compile on {deep.device}: ok")
        paired = pairing.installed if pairing.matches else f"({pairing.note})"
        return ok(f"torch {torch_version} <-> {paired}; torch.compile works on {deep.device}", *details)
    return ok(f"torch {torch_version} <-> {pairing.installed} (matches; --deep runs torch.compile)", *details)


@check("packages.verify-needs", "what `tritondev verify` needs: torch, and numpy where there is no GPU")
def verify_needs(facts: Facts) -> CheckOutcome:
    """verify checks the kernels' results with torch, and without a GPU runs them under Triton's interpreter,
    which computes with numpy: doctor must not say "No errors" where verify then stops (exit 3)."""

    target = facts.target()
    installed = {d.key: d.version for d in facts.distributions()}
    triton = next((installed[name] for name in TRITON_DISTS if name in installed), None)
    if triton is None:
        raise Skip("triton is not installed (see packages.triton-import)")
    try:
        gpu = facts.gpu_info() is not None
    except ProbeFailed:
        gpu = False
    needed = ("torch",) if gpu else ("torch", "numpy")
    missing = [name for name in needed if name not in installed]
    where = "on the GPU" if gpu else "under Triton's interpreter (no NVIDIA GPU here), which needs numpy"
    if not missing:
        return ok(f"{' and '.join(f'{n} {installed[n]}' for n in needed)}: verify runs its kernels {where}")
    into = InstallTarget(target.executable, target.is_venv, triton, facts.ctx.workspace.venv)
    fixes = list(dict.fromkeys(install_fix(name, into) for name in missing))
    summary = (
        f"{' and '.join(missing)} not installed in {target.executable}: `tritondev verify` would stop there "
        f"(it checks the kernels' results with torch and runs them {where})"
    )
    # Without torch the environment is for Triton alone (compile, lit tests): worth a warning. With torch,
    # kernels are meant to run here, and a missing numpy is what stops them: an error.
    judge = warn if "torch" in missing else error
    return judge(summary, "; then ".join(fixes))
