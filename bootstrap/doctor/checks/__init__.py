"""Check modules, one per group; importing them registers their checks."""

from bootstrap.doctor.checks import (
    cache,
    ccache_remote,
    gpu,
    jax,
    packages,
    ptxas,
    python_env,
    resources,
    settings,
    toolchain,
    workspace,
)

ALL_MODULES = (python_env, packages, toolchain, ccache_remote, resources, gpu, ptxas, settings, cache, workspace, jax)
