# mypy: ignore-errors
"""triton.__version__ read from the package's source, without importing triton (slow, maybe broken), and
when the files Triton's kernel-cache key hashes last changed.

The version is the string Triton writes into each kernel's cache metadata. Every kernel's cache key
starts with `triton_key()` (python/triton/runtime/cache.py; compiler/compiler.py before): a hash of
runtime/cache.py, the compiler/, backends/ and language/ sources and _C/libtriton. The newest mtime of
those files is when that key last changed: an entry written before it can never be hit again.
Prints one JSON object: {"version": "3.9.0", "changed_at": 1760000000.0}; null for what is not there.
"""

import importlib.util
import json
import os
import re

KEY_FOLDERS = ("compiler", "backends", "language")


def version(spec):
    if spec is None or not spec.origin:
        return None
    with open(spec.origin, encoding="utf-8", errors="replace") as fh:
        match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", fh.read(), re.M)
    return match.group(1) if match else None


def _mtime(path):
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def key_files(root):
    """The files triton_key() hashes under the package folder `root` (links followed, as pkgutil does)."""
    yield os.path.join(root, "runtime", "cache.py")
    yield os.path.join(root, "compiler", "compiler.py")
    library = os.path.join(root, "_C")
    try:
        yield from (os.path.join(library, n) for n in os.listdir(library) if n.startswith("libtriton."))
    except OSError:
        pass
    seen = set()
    for sub in KEY_FOLDERS:
        for folder, dirs, files in os.walk(os.path.join(root, sub), followlinks=True):
            real = os.path.realpath(folder)
            if real in seen:
                dirs[:] = []
                continue
            seen.add(real)
            yield from (os.path.join(folder, n) for n in files if n.endswith(".py"))


def changed_at(spec):
    if spec is None:
        return None
    roots = spec.submodule_search_locations or []
    times = [t for root in roots for t in map(_mtime, key_files(root)) if t is not None]
    return max(times) if times else None


SPEC = importlib.util.find_spec("triton")
print(json.dumps({"version": version(SPEC), "changed_at": changed_at(SPEC)}))
