# mypy: ignore-errors
"""JAX: which CUDA plugin module provides the Triton kernel call, and the FFI targets it registers.

A feature test, not a version guess: the `_triton` module of the plugin lists its registrations.
Prints one JSON object: `module` (the one that loaded), `registrations` (names) or
`registrations_error`, `import_errors` (per module tried).
"""

import importlib
import json

MODULES = ("jax_cuda13_plugin._triton", "jax_cuda12_plugin._triton", "jaxlib.cuda._triton")


def registration_names(value):
    if isinstance(value, dict):
        return [str(name) for name in value]
    return [str(item[0] if isinstance(item, (tuple, list)) else item) for item in value]


def main():
    facts = {}
    module = None
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except BaseException as exc:
            facts.setdefault("import_errors", {})[name] = (f"{type(exc).__name__}: {exc}")[-300:]
            continue
        facts["module"] = name
        break
    if module is not None:
        registrations = getattr(module, "registrations", None)
        if callable(registrations):
            try:
                facts["registrations"] = registration_names(registrations())
            except BaseException as exc:
                facts["registrations_error"] = f"{type(exc).__name__}: {exc}"
        facts["attributes"] = sorted(a for a in dir(module) if not a.startswith("_"))
    print(json.dumps(facts))


main()
