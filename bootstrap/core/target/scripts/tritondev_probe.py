# mypy: ignore-errors
"""Provenance of the target environment's Triton, and whether torch, numpy and a GPU are there.

Runs in the target interpreter; reports one `env` event (tritondev_protocol). Stdlib + what it probes.
"""

import importlib.metadata
import json
import os
import platform
import re
import sys

from tritondev_protocol import emit, error_tail, import_triton


def distributions_of(package):
    """Every installed distribution that provides the import package (triton, pytorch-triton, ...)."""
    try:
        names = importlib.metadata.packages_distributions().get(package, [])
    except Exception:
        names = []
    found = []
    for name in dict.fromkeys(names):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        entry = {"name": dist.metadata["Name"], "version": dist.version, "editable": False, "url": None}
        try:
            direct = json.loads(dist.read_text("direct_url.json") or "null")
        except ValueError:
            direct = None
        if isinstance(direct, dict):
            entry["url"] = direct.get("url")
            entry["editable"] = bool((direct.get("dir_info") or {}).get("editable"))
        found.append(entry)
    return found


def commit_of(*versions):
    """The '+git<hash>' suffix source builds carry (triton-build-facts 1.7), or None for a release."""
    for version in versions:
        match = re.search(r"\+git([0-9a-f]{7,40})", version or "")
        if match:
            return match.group(1)
    return None


def triton_facts():
    triton = import_triton()
    dists = distributions_of("triton")
    version = getattr(triton, "__version__", "unknown")
    try:
        import triton.backends as backends_module

        backends = sorted(getattr(backends_module, "backends", {}) or {})
    except Exception:
        backends = []
    active, active_error = None, None
    try:
        from triton.runtime import driver

        target = driver.active.get_current_target()
        active = {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size}
    except Exception as exc:
        active_error = (error_tail(exc, 1) or [type(exc).__name__])[0]
    return {
        "version": version,
        "file": os.path.dirname(os.path.abspath(triton.__file__)),
        "distributions": dists,
        "commit": commit_of(*[d["version"] for d in dists], version),
        "source_build": any(d["editable"] for d in dists) or not dists,
        "backends": backends,
        "active": active,
        "active_error": active_error,
    }


def torch_facts():
    try:
        import torch
    except ModuleNotFoundError as exc:
        return None, f"{exc.name} is not installed" if exc.name else str(exc)
    except Exception as exc:
        return None, f"import torch failed: {type(exc).__name__}: {exc}"
    facts = {
        "version": torch.__version__,
        "file": os.path.dirname(os.path.abspath(torch.__file__)),
        "cuda": getattr(torch.version, "cuda", None),
        "hip": getattr(torch.version, "hip", None),
        "gpu": False,
        "device": None,
    }
    try:
        if torch.cuda.is_available():
            facts["gpu"] = True
            facts["device"] = torch.cuda.get_device_name(0)
            facts["capability"] = list(torch.cuda.get_device_capability(0))
    except Exception as exc:
        facts["gpu_error"] = str(exc)
    return facts, None


def numpy_facts():
    try:
        import numpy
    except Exception as exc:
        return None, f"import numpy failed: {exc}"
    return {"version": numpy.__version__}, None


def main():
    triton = triton_facts()
    torch, torch_error = torch_facts()
    numpy, numpy_error = numpy_facts()
    emit(
        "env",
        python={"executable": sys.executable, "version": platform.python_version()},
        triton=triton,
        torch=torch,
        torch_error=torch_error,
        numpy=numpy,
        numpy_error=numpy_error,
    )


if __name__ == "__main__":
    main()
