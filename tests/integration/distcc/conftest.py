"""Fixtures for the distcc tests: real distccd daemons on 127.0.0.1, started for this package and
stopped after it. Tests that stop a daemon on purpose start their own."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.integration.distcc.daemons import DistccDaemon, free_port

if shutil.which("distccd") is None or shutil.which("distcc") is None:  # ./shell/test installs it
    pytest.skip("distcc is not installed (apt-get install distcc)", allow_module_level=True)


@pytest.fixture(scope="package")
def good_hosts() -> Iterator[tuple[DistccDaemon, DistccDaemon]]:
    """Two daemons with this machine's compilers, 2 and 3 slots."""
    first, second = DistccDaemon(slots=2).start(), DistccDaemon(slots=3).start()
    yield first, second
    first.remove()
    second.remove()


@pytest.fixture(scope="package")
def other_compiler() -> Iterator[DistccDaemon]:
    """A host whose clang and clang++ are gcc and g++ (as another machine's could be)."""
    daemon = DistccDaemon(
        slots=4,
        other_compilers={
            "clang": "/usr/bin/gcc",
            "clang++": "/usr/bin/g++",
            "gcc": "/usr/bin/clang",
            "g++": "/usr/bin/clang++",
        },
    ).start()
    yield daemon
    daemon.remove()


@pytest.fixture(scope="package")
def down_host() -> str:
    """A host token whose port nothing listens on."""
    return f"127.0.0.1:{free_port()}/4"
