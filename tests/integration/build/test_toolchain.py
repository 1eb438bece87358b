"""Pure parts of the build: job sizing, LLVM era flags, presets, fingerprints, ninja progress, ccache."""

from __future__ import annotations

from pathlib import Path

from bootstrap.core.process.runner import Runner
from bootstrap.pipeline.host.toolchain import detect_toolchain

# --------------------------------------------------------------------------------------------- jobs


def test_toolchain_found_on_this_machine(tmp_path: Path) -> None:
    runner = Runner()
    chain = detect_toolchain(runner, cache_file=tmp_path / "tools.json")
    assert chain.cmake.version.startswith("3.")
    if chain.compiler == "clang":
        assert chain.linker == "lld" and chain.lld is not None
    probes = len(runner.history)
    assert probes >= 4
    # The versions are remembered: a second detection starts no process.
    again = Runner()
    assert detect_toolchain(again, cache_file=tmp_path / "tools.json") == chain
    assert again.history == []


def test_toolchain_without_lld_falls_back_to_gcc(tmp_path: Path) -> None:
    chain = detect_toolchain(Runner(), use_lld=False)
    assert chain.compiler == "gcc" and chain.linker == "default"
    assert any("--no-lld" in n for n in chain.notices)
