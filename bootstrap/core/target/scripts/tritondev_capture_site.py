# mypy: ignore-errors
"""The sitecustomize.py of `tritondev repro capture`: starts the capture hook, then the user's own sitecustomize.

tritondev copies this file as `sitecustomize.py` (with tritondev_capture*.py beside it) into a private
temporary folder and puts that folder first on PYTHONPATH for the captured command only: nothing is
written into the user's environment. Python's `site` imports the first `sitecustomize` on sys.path, so
this one then imports the one it shadows (a distribution's or the environment's), as if it were not
here. A failure here never stops the user's program. Stdlib only.
"""

import importlib.machinery
import importlib.util
import os
import sys


def _start_capture():
    try:
        import tritondev_capture

        tritondev_capture.install()
    except Exception as exc:  # the program runs on; the capture says why it recorded nothing
        sys.stderr.write(f"tritondev repro capture: the capture hook did not start: {type(exc).__name__}: {exc}\n")


def _chain_shadowed_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_start_capture()
_chain_shadowed_sitecustomize()
