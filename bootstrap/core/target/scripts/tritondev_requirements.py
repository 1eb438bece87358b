# mypy: ignore-errors
"""The requirements of upstream's tests (python/test-requirements.txt) as pip reads them, and which the
target environment lacks.

    python tritondev_requirements.py PIP_API_ROOT FILE|-

pip-api's `parse_requirements` reads the file (comments, options, continuation lines, `-r` includes,
URLs, editables) and evaluates each requirement's marker here, in the target: a requirement for
another Python or platform is not one of this environment's. PIP_API_ROOT is the folder holding the
`pip_api` package tritondev was installed with (the target need not have it); importing it runs
`python -m pip --version` of this interpreter (pip-api reads pip's version at import). `-` instead of
a file: the Makefile's test targets need pytest, and no file says more.

Prints one JSON object: {"requirements": [{"text", "name", "file", "line", "installed", "satisfied"}],
"invalid": [{"file", "line", "text", "error"}]}, or {"error": ...} when pip-api cannot be imported. Stdlib only
at import time.
"""

import json
import sys


def installed_version(name):
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def entry(req):
    version = installed_version(req.name)
    satisfied = version is not None
    if satisfied and req.specifier and not getattr(req, "url", None):
        satisfied = req.specifier.contains(version, prereleases=True)
    return {
        "text": str(req),
        "name": req.name,
        "file": getattr(req, "filename", None),
        "line": getattr(req, "lineno", None),
        "installed": version,
        "satisfied": satisfied,
    }


def main():
    root, path = sys.argv[1], sys.argv[2]
    if path == "-":
        version = installed_version("pytest")
        print(
            json.dumps(
                {
                    "requirements": [
                        {
                            "text": "pytest",
                            "name": "pytest",
                            "file": None,
                            "line": None,
                            "installed": version,
                            "satisfied": version is not None,
                        }
                    ],
                    "invalid": [],
                }
            )
        )
        return
    sys.path.insert(0, root)
    try:
        import pip_api
    except Exception as exc:  # any failure of its import (pip missing here) is the answer
        print(json.dumps({"error": f"pip-api cannot be imported here: {type(exc).__name__}: {exc}"}))
        return
    finally:
        # tritondev's folder lent pip-api only: what is installed is asked of the target's own folders.
        sys.path.remove(root)
    try:
        parsed = pip_api.parse_requirements(path, include_invalid=True)
    except Exception as exc:  # pip-api's PipError (a double requirement, a bad --hash), an OSError
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
        return
    requirements, invalid = [], []
    for req in parsed.values():
        if isinstance(req, pip_api.UnparsedRequirement):
            said = str(req.msg).strip().splitlines() or [""]
            invalid.append({"file": req.filename, "line": req.lineno, "text": req.name, "error": said[-1]})
        else:
            requirements.append(entry(req))
    print(json.dumps({"requirements": requirements, "invalid": invalid}))


if __name__ == "__main__":
    main()
