"""The environment a test, benchmark or GPU figure starts a process in: this machine's, less what would
make the result depend on who runs the suite and from where.

- tritondev's own settings and Triton's knobs (`TRITONDEV_*`, `TRITON_*`): a developer's
  `TRITON_CACHE_DIR` or `TRITONDEV_WORKSPACE` would change what the command under test does;
- an activated environment (`VIRTUAL_ENV`, `VIRTUAL_ENV_PROMPT`, `CONDA_PREFIX`): it would become the
  target environment;
- the suite's own pytest variables (`PYTEST_*`): a pytest that the process starts (a workspace's
  `tritondev test`) would read options meant for the suite, such as `PYTEST_ADDOPTS="--junitxml=..."`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

DROPPED_PREFIXES = ("TRITONDEV_", "TRITON_", "PYTEST_")
DROPPED_NAMES = ("VIRTUAL_ENV", "VIRTUAL_ENV_PROMPT", "CONDA_PREFIX")


def dropped(name: str, also: tuple[str, ...] = ()) -> bool:
    """Whether `name` is left out of a child's environment (`also`: more prefixes for this caller)."""
    return name.startswith(DROPPED_PREFIXES + also) or name in DROPPED_NAMES


def child_environ(*also: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (os.environ by default) without the variables above, nor those starting with any of `also`."""
    source = os.environ if base is None else base
    return {k: v for k, v in source.items() if not dropped(k, also)}
