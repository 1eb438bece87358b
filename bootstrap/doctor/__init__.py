"""`tritondev doctor`: named, independent checks of what breaks Triton development.

Public API:
    facts.Facts(ctx, ...).start(None)                begin the target's probes (before the checks are imported)
    run.run_doctor(ctx, DoctorOptions(...), facts) -> Report   run checks (and --fix) and return the results
    catalog.load_checks()                           every check, by name, in report order
    arch.parse_arch("sm_121a") -> 121               the --arch parser
    versions.jax_ffi_support(version)               JAX floors (pure)

This file imports nothing: the probes of the target can begin while the check modules load.
"""
