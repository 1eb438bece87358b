# mypy: ignore-errors
"""Which triton the target interpreter installs and imports (stdlib only at import time).

Prints one JSON object: the installed distribution's version, the file `import triton` loads, and
the error when the import fails. Any failure is reported in the answer, never as a traceback.
"""

import json

out = {"version": None, "file": None}
try:
    import importlib.metadata as metadata

    out["version"] = metadata.version("triton")
except Exception:  # not installed, or broken metadata: the version stays None
    pass
try:
    import triton

    out["file"] = triton.__file__
except BaseException as exc:  # a broken build can fail in any way, SystemExit included
    out["error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
