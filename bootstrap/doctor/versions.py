"""Version logic as pure functions: tool versions, torch <-> triton pairing, JAX floors."""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from bootstrap.pipeline.host.toolchain import dotted as dotted
from bootstrap.pipeline.host.toolchain import version_numbers

# Tool versions are read the way setup reads them: one parser for both.
parse_tool_version = version_numbers


# ---- torch <-> triton ---------------------------------------------------------------------------

TRITON_DISTS = ("triton", "pytorch-triton", "pytorch-triton-rocm", "pytorch-triton-xpu", "triton-rocm", "triton-xpu")


@dataclass(frozen=True)
class Pairing:
    requirement: str | None  # e.g. "triton==3.5.0+git7416ffcb", None when torch pins none
    installed: str | None  # e.g. "triton 3.5.0+git1234abcd"
    matches: bool | None  # None: nothing to compare
    note: str


def triton_requirement(torch_requires: list[str]) -> Requirement | None:
    """The Triton requirement among torch's Requires-Dist (any of the names PyTorch has used)."""
    for line in torch_requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if req.name.lower() in TRITON_DISTS and (req.marker is None or _marker_applies(req)):
            return req
    return None


def _marker_applies(req: Requirement) -> bool:
    assert req.marker is not None
    try:
        # `extra` is undefined outside an extra; requirements behind an extra are not torch's pin.
        return bool(req.marker.evaluate({"extra": ""}))
    except Exception:
        return True


def git_hash(version: str) -> str | None:
    """The `+git<hash>` of a Triton version (`3.5.0+git7416ffcb` -> 7416ffcb), if any."""
    match = re.search(r"\+git([0-9a-f]{7,40})", version)
    return match.group(1) if match else None


def check_pairing(torch_requires: list[str], installed: dict[str, str]) -> Pairing:
    """Compare torch's Triton requirement with the installed Triton distribution(s).

    installed: distribution name (lower case) -> version, for every installed Triton distribution.
    """
    req = triton_requirement(torch_requires)
    if req is None:
        return Pairing(None, None, None, "torch names no Triton requirement for this platform")
    shown = ", ".join(f"{name} {version}" for name, version in installed.items()) or None
    version = installed.get(req.name.lower())
    if version is None:
        return Pairing(str(req), shown, False, f"torch requires {req} but {req.name} is not installed")
    try:
        parsed = Version(version)
    except InvalidVersion:
        return Pairing(str(req), shown, False, f"installed {req.name} has an invalid version {version!r}")
    wanted = {str(spec.version) for spec in req.specifier if spec.operator in ("==", "===")}
    want_hash = next((h for h in (git_hash(w) for w in wanted) if h), None)
    have_hash = git_hash(version)
    if want_hash and have_hash:
        same = want_hash.startswith(have_hash) or have_hash.startswith(want_hash)
        base_ok = req.specifier.contains(Version(parsed.public), prereleases=True) or any(
            Version(w).public == parsed.public for w in wanted
        )
        matches = same and base_ok
    else:
        matches = req.specifier.contains(parsed, prereleases=True)
    note = "matches" if matches else f"torch requires {req}, installed {req.name} {version}"
    return Pairing(str(req), shown, matches, note)


# ---- JAX: the Triton kernel-call FFI target ------------------------------------------------------
# jaxlib registers `triton_kernel_call_ffi` from jax commit b5479a17c5 (2026-04-23) and makes it
# CUDA-graph capturable from 248575b135 (jax#37094, 2026-04-27); the first release with both is
# 0.10.1. Nightlies of that cycle are 0.10.1.devYYYYMMDD, so nightlies and releases need separate
# floors: a ".dev0" floor admits nightlies without the target, a stable floor rejects every nightly.
JAX_FFI_NIGHTLY_FLOOR = Version("0.10.1.dev20260423")
JAX_FFI_GRAPH_NIGHTLY_FLOOR = Version("0.10.1.dev20260427")
JAX_FFI_STABLE_FLOOR = Version("0.10.1")


@dataclass(frozen=True)
class JaxFfiSupport:
    ffi_target: bool  # triton_kernel_call_ffi is registered
    cuda_graphs: bool  # ... and capturable in CUDA graphs
    nightly: bool
    reason: str


def jax_ffi_support(version: str) -> JaxFfiSupport:
    """What a jaxlib version offers, by version alone (used only when the feature cannot be tested)."""
    parsed = Version(version)
    public = Version(parsed.public)  # a git build's +local label says nothing about features
    if public.dev is not None:
        ffi = public >= JAX_FFI_NIGHTLY_FLOOR
        graphs = public >= JAX_FFI_GRAPH_NIGHTLY_FLOOR
        floor = JAX_FFI_GRAPH_NIGHTLY_FLOOR if ffi else JAX_FFI_NIGHTLY_FLOOR
        reason = f"nightly {version} {'>=' if ffi and graphs else '<'} {floor} (nightly floor)"
        return JaxFfiSupport(ffi, graphs, True, reason)
    # A release or release candidate: compare the release numbers, so 0.10.1rc1 counts as 0.10.1
    # (it is cut from the release branch that has the feature).
    has = public.release >= JAX_FFI_STABLE_FLOOR.release
    reason = f"release {version} {'>=' if has else '<'} {JAX_FFI_STABLE_FLOOR} (release floor)"
    return JaxFfiSupport(has, has, False, reason)
