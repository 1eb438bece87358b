# mypy: ignore-errors
"""triton.__version__ read from the package's source, without importing triton (slow, maybe broken).

The same string Triton writes into each kernel's cache metadata. Prints one JSON object:
{"version": "3.9.0"}, or {"version": null} when triton is not installed or names no version.
"""

import importlib.util
import json
import re


def version():
    spec = importlib.util.find_spec("triton")
    if spec is None or not spec.origin:
        return None
    with open(spec.origin, encoding="utf-8", errors="replace") as fh:
        match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", fh.read(), re.M)
    return match.group(1) if match else None


print(json.dumps({"version": version()}))
