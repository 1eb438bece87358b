# mypy: ignore-errors
"""How the in-target scripts talk to tritondev: one line per event on stdout, `@@tritondev <json>`.

Kernels and Triton may print anything; only lines with the marker are read. Stdlib only.
"""

import json
import sys
import traceback

MARKER = "@@tritondev "

# Exit statuses the scripts use; tritondev maps them to its own errors.
EXIT_USAGE = 2
EXIT_MISSING = 3
EXIT_FAILED = 4


def emit(event, **data):
    data["event"] = event
    sys.stdout.write(MARKER + json.dumps(data, default=str) + "\n")
    sys.stdout.flush()


def error_tail(exc, limit=25):
    """The last lines of an exception's text: where compiler output (ptxas, MLIR diagnostics) ends up."""
    text = "".join(traceback.format_exception_only(type(exc), exc)).rstrip()
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-limit:]


def fail(kind, message, status, **data):
    emit("error", kind=kind, message=message, **data)
    sys.exit(status)


def import_triton():
    """Import triton or exit with a 'missing' event naming it (exit 3), or 'broken' (exit 4)."""
    try:
        import triton
    except ModuleNotFoundError as exc:
        if exc.name == "triton":
            fail("missing", "triton is not installed in this environment", EXIT_MISSING, module="triton")
        fail("broken", f"import triton failed: {exc}", EXIT_FAILED, module="triton", tail=error_tail(exc))
    except Exception as exc:
        fail(
            "broken",
            f"import triton failed: {type(exc).__name__}: {exc}",
            EXIT_FAILED,
            module="triton",
            tail=error_tail(exc),
        )
    import triton

    return triton
