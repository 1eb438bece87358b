"""JAX: versions, and whether jaxlib's Triton kernel-call FFI target (CUDA-graph capable) exists."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from bootstrap.doctor import answers as doctor_answers
from bootstrap.doctor.facts import Facts, ProbeFailed, Skip
from bootstrap.doctor.model import CheckOutcome, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.doctor.versions import JAX_FFI_STABLE_FLOOR, jax_ffi_support

PLUGINS = ("jax-cuda13-plugin", "jax-cuda12-plugin", "jax-rocm7-plugin", "jax-rocm60-plugin")
FFI_TARGET = "triton_kernel_call_ffi"


def _jax_dists(facts: Facts) -> dict[str, str]:
    facts.target()
    names = {"jax", "jaxlib", *PLUGINS, "jax-cuda12-pjrt", "jax-cuda13-pjrt", "jax-triton"}
    found = {d.key: d.version for d in facts.distributions()}
    dists = {k: v for k, v in found.items() if k in names}
    if "jax" not in dists and "jaxlib" not in dists:
        raise Skip("JAX is not installed in the target environment")
    return dists


def _public(version: str) -> str:
    try:
        return Version(version).public
    except InvalidVersion:
        return version


@check("jax.versions", "jax, jaxlib and the GPU plugin agree")
def versions(facts: Facts) -> CheckOutcome:
    dists = _jax_dists(facts)
    shown = ", ".join(f"{k} {v}" for k, v in sorted(dists.items()))
    jaxlib = dists.get("jaxlib")
    if jaxlib is None:
        return warn(f"{shown}: jaxlib missing", "pip install -U jax jaxlib")
    plugin = next((p for p in PLUGINS if p in dists), None)
    if plugin and _public(dists[plugin]) != _public(jaxlib):
        return warn(
            f"{plugin} {dists[plugin]} does not match jaxlib {jaxlib}: the plugin may fail to load",
            f"pip install -U 'jax[{plugin.split('-')[1]}]=={_public(jaxlib)}'",
            shown,
        )
    if "jax" in dists and _public(dists["jax"]).split(".")[:2] != _public(jaxlib).split(".")[:2]:
        return warn(f"jax {dists['jax']} and jaxlib {jaxlib} differ", f"pip install -U 'jax=={_public(jaxlib)}'", shown)
    return ok(shown)


@check("jax.triton-ffi", "jaxlib's Triton kernel-call FFI target with CUDA-graph support", slow=True)
def triton_ffi(facts: Facts) -> CheckOutcome:
    dists = _jax_dists(facts)
    plugin = next((p for p in PLUGINS if p in dists and "cuda" in p), None)
    version = dists.get(plugin or "", dists.get("jaxlib", dists.get("jax", "")))
    details: list[str] = []
    feature: bool | None = None
    try:
        probe = facts.probe(doctor_answers.jax_triton, "tritondev_jax.py", step="doctor-jax-probe", timeout=120)
    except ProbeFailed as exc:
        probe = doctor_answers.JaxTriton(None, None)
        details.append(f"feature probe failed: {exc}")
    if probe.registrations is not None:
        feature = FFI_TARGET in probe.registrations
        details.append(f"{probe.module}.registrations(): {', '.join(probe.registrations)}")
    elif probe.module:
        details.append(f"{probe.module} has no registrations(); judging by version")
    else:
        if plugin is None:
            raise Skip(f"no JAX CUDA plugin installed (jax runs on CPU): {', '.join(sorted(dists))}")
        details.append("the plugin's _triton module does not load here; judging by version")
    try:
        support = jax_ffi_support(version)
    except InvalidVersion:
        raise Skip(f"unparsable JAX version {version!r}") from None
    details.append(support.reason)
    has_ffi = support.ffi_target if feature is None else feature
    graphs = has_ffi and support.cuda_graphs
    how = "registered" if feature is not None else "by version"
    upgrade = f"pip install -U 'jax[cuda12]>={JAX_FFI_STABLE_FLOOR}'"
    if not has_ffi:
        return warn(
            f"{FFI_TARGET} not available in {plugin or 'jaxlib'} {version} ({how}): Triton kernels use the legacy"
            " target, without CUDA-graph capture",
            upgrade,
            *details,
        )
    if not graphs:
        return warn(
            f"{FFI_TARGET} {how} in {version}, but this build predates its CUDA-graph support (jax#37094)",
            upgrade,
            *details,
        )
    return ok(f"{FFI_TARGET} {how} in {plugin or 'jaxlib'} {version}, CUDA-graph capable", *details)
