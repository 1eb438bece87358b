"""The shared test world's fixtures, unless the root conftest already provides them."""

from __future__ import annotations

import tests.conftest as _root

if "tests.world.fixtures" not in getattr(_root, "pytest_plugins", ()):
    from tests.world.fixtures import git_daemon, raw_http_server, world  # noqa: F401
