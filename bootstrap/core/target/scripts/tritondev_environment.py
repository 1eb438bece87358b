# mypy: ignore-errors
"""The target environment's distributions, without importing triton, torch or jax (stdlib only).

For every distribution: its version, how many files it installed under triton/ (from RECORD or
installed-files.txt as text, far faster than dist.files for one as large as torch), editable or
not, placeholder or not, and when it was installed; and torch's requirements. Every fact is
guarded: one broken distribution must not hide the others. Prints one JSON object.
"""

import json
import os
import stat

facts = {"errors": {}}


def regular(path):
    """Is `path` a regular file? A FIFO named like a metadata file must never block the probe."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_meta(dist, name):
    """dist.read_text(name), for regular files only."""
    folder = getattr(dist, "_path", None)
    if folder is not None and not regular(os.path.join(str(folder), name)):
        return None
    return dist.read_text(name)


def guard(name, fn):
    try:
        facts[name] = fn()
    except Exception as exc:
        facts["errors"][name] = f"{type(exc).__name__}: {exc}"


def triton_files(dist):
    """(files under triton/, no file list at all)."""
    text = read_meta(dist, "RECORD")
    if text is not None:
        return sum(1 for line in text.splitlines() if line.startswith("triton/")), False
    text = read_meta(dist, "installed-files.txt")
    if text is not None:
        count = 0
        for line in text.splitlines():
            rel = os.path.normpath(os.path.join(str(getattr(dist, "_path", "")), line.strip()))
            if os.sep + "triton" + os.sep in rel and "site-packages" in rel:
                count += 1
        return count, False
    return 0, True


def read_direct_url(dist):
    try:
        text = read_meta(dist, "direct_url.json")
        return json.loads(text) if text else None
    except Exception:
        return None


def is_placeholder(location):
    """PyPI's placeholder package raises 'Should never be installed' from triton/__init__.py."""
    path = os.path.join(location, "triton", "__init__.py")
    if not regular(path):
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return "Should never be installed" in fh.read(20000)
    except OSError:
        return False


def describe(dist, name, key):
    owns, record_missing = triton_files(dist)
    direct_url = read_direct_url(dist)
    editable = bool(isinstance(direct_url, dict) and (direct_url.get("dir_info") or {}).get("editable"))
    top_level = (read_meta(dist, "top_level.txt") or "").split()
    tritonish = "triton" in top_level or key == "triton" or key.startswith(("triton-", "pytorch-triton"))
    if tritonish and (editable or record_missing):
        owns = max(owns, 1)  # an editable install provides triton/ through a .pth or a finder
    location = ""
    try:
        location = str(dist.locate_file(""))
    except Exception:
        pass
    installed_at = None
    try:
        installed_at = os.path.getmtime(str(dist._path))
    except Exception:
        pass
    placeholder = bool(owns and location and is_placeholder(location))
    return {
        "name": name,
        "version": dist.version,
        "owns_triton_files": owns,
        "editable": editable,
        "record_missing": record_missing,
        "direct_url": direct_url,
        "location": location,
        "installed_at": installed_at,
        "placeholder": placeholder or (key == "pytorch-triton" and dist.version == "0.0.1"),
    }


def distributions():
    import importlib.metadata as md

    out = []
    seen = set()
    for dist in md.distributions():
        try:
            name = dist.metadata["Name"] or ""
        except Exception:
            name = ""
        key = name.lower().replace("_", "-")
        if key and key not in seen:
            seen.add(key)
            out.append(describe(dist, name, key))
    return out


def torch_requires():
    import importlib.metadata as md

    try:
        return md.requires("torch") or []
    except md.PackageNotFoundError:
        return None


guard("distributions", distributions)
guard("torch_requires", torch_requires)
print(json.dumps(facts))
