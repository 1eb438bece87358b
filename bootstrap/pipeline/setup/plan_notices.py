"""What a setup plan says besides its steps: the toolchain's and the LLVM source's notices, local work
built as it stands, a reused LLVM build (a note), variables kept from setup.py, and what an era or a setting
changes in the build (offline tools, a Debug LLVM through distcc, where 3.0/3.1 download). Pure."""

from __future__ import annotations

from bootstrap.pipeline.llvm.builds import LlvmLocation
from bootstrap.pipeline.recipe.era import version_key
from bootstrap.pipeline.setup.facts import LlvmCheckout, LlvmFacts, SetupFacts


def plan_notes(llvm: LlvmFacts, where: LlvmLocation) -> tuple[str, ...]:
    """Good news worth a line (shown as a note, not a warning)."""
    if where.reused_from and isinstance(llvm, LlvmCheckout):
        return (f"LLVM build reused from {where.reused_from} (same commit, flags and toolchain)",)
    return ()


def plan_notices(facts: SetupFacts, where: LlvmLocation) -> tuple[str, ...]:
    """What the plan says before anything runs: what stands in for what was asked, and why."""
    notices = [*facts.toolchain.notices, *facts.llvm.notices]
    for checkout in facts.checkouts:
        report = checkout.report
        if checkout.kept and not checkout.adopted:  # your clone's line is said before anything runs (setup.run)
            notices.append(
                f"{checkout.name} checkout differs from the pin ({len(report.dirty_files)} changed file(s),"
                f" {len(report.local_commits)} local commit(s)); building it as it stands (--allow-dirty)"
            )
    if facts.ignored_env:
        notices.append(
            f"{', '.join(facts.ignored_env)} set in your environment: not passed to setup.py (it keeps"
            " its build folder at build/cmake.* and bundles its own pinned tools); they still apply at"
            " run time"
        )
    if facts.offline is not None:
        notices += facts.offline.notes
    pump = [h.token for h in facts.distcc.given.remote if "cpp" in h.options] if facts.distcc is not None else []
    if pump:
        notices.append(
            f"distcc pump mode (,cpp) of {', '.join(pump)} needs the build wrapped in distcc-pump (its"
            " include server), which tritondev does not do: these hosts get preprocessed files, as"
            " without ,cpp"
        )
    if facts.distcc is not None and isinstance(facts.llvm, LlvmCheckout) and facts.settings.llvm_build_type == "Debug":
        notices.append(
            "Debug LLVM through distcc: without split DWARF (LLVM_USE_SPLIT_DWARF), as distcc brings"
            " back no .dwo files; links need more memory"
        )
    version = facts.pins.layout.version or facts.pins.triton_version
    if version and version_key(version) < (3, 2):  # TRITON_HOME came with #4152, in 3.2
        notices.append(
            f"Triton {version}'s setup.py ignores TRITON_HOME: its downloads (pybind11, nlohmann/json,"
            " the NVIDIA tools) go to $HOME/.triton, not the workspace's triton-home"
        )
    return tuple(notices)
