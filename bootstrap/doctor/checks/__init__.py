"""Check modules, one per group; importing them registers their checks."""

from bootstrap.doctor.checks import (
    cache,
    ccache_remote,
    clone,
    distcc,
    gpu,
    jax,
    machine,
    packages,
    ptxas,
    python_env,
    settings,
    toolchain,
    workspace,
)

ALL_MODULES = (
    python_env,
    packages,
    toolchain,
    ccache_remote,
    distcc,
    machine,
    gpu,
    ptxas,
    settings,
    cache,
    workspace,
    clone,
    jax,
)
