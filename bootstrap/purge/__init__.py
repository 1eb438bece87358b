"""Find and remove every distribution that provides the `triton` import package; undo it on request.

The scan (`scan_environment`) is shared with `tritondev doctor`; the purge and restore are used by
`tritondev purge` and by `tritondev setup` before it installs a source build.
"""

from __future__ import annotations

from bootstrap.purge.actions import PurgeReport, execute_purge, preflight
from bootstrap.purge.plan import PurgePlan, plan_purge
from bootstrap.purge.restore import RestoreReport, execute_restore, plan_restore
from bootstrap.purge.scan import Owner, TritonScan, scan_environment

__all__ = [
    "Owner",
    "PurgePlan",
    "PurgeReport",
    "RestoreReport",
    "TritonScan",
    "execute_purge",
    "execute_restore",
    "plan_purge",
    "plan_restore",
    "preflight",
    "scan_environment",
]
