"""distcc (the distcc setting): the client and ccache in front of it, and each host proven the way setup
proves it before a build (bootstrap.pipeline.distcc.proof): a test file compiled there with the build's
own compilers must give this machine's object, byte for byte."""

from __future__ import annotations

from bootstrap.core.errors import TritondevError
from bootstrap.core.settings.distcc_hosts import is_off
from bootstrap.core.settings.settings_table import BY_NAME

# Imported first so that its checks are registered first: this one then follows toolchain.ccache.
from bootstrap.doctor.checks import toolchain as _toolchain  # noqa: F401
from bootstrap.doctor.facts import Facts, Skip
from bootstrap.doctor.model import CheckOutcome, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.pipeline.distcc.client import DistccSetup, observe
from bootstrap.pipeline.distcc.proof import check_hosts, compilers_of
from bootstrap.pipeline.host.toolchain import Toolchain, detect_toolchain


@check("toolchain.distcc", "distcc hosts (distributed compiles)", slow=True)
def distcc(facts: Facts) -> CheckOutcome:
    settings = facts.ctx.settings
    if is_off(settings.distcc):
        raise Skip(
            "no distcc hosts configured",
            f"set distcc in tritondev.toml, {BY_NAME['distcc'].env_var}, or pass "
            "setup --distcc HOSTS (docs/distributed-builds.md)",
        )
    chain = _toolchain_of(facts)
    try:
        setup = observe(settings, chain.ccache is not None)
    except TritondevError as exc:
        return error(f"{exc.message}: setup refuses to build with distcc", exc.fix)
    assert setup is not None
    proven = check_hosts(facts.ctx.runner, setup, compilers_of(chain.cc.path, chain.cxx.path))
    return _verdict(proven, f"{chain.cxx.name} {chain.cxx.version}")


def _toolchain_of(facts: Facts) -> Toolchain:
    """The compilers a build would use (setup's own choice), found once per doctor run."""
    s = facts.ctx.settings

    def detect() -> Toolchain:
        return detect_toolchain(facts.ctx.runner, use_lld=s.lld, use_ccache=s.ccache)

    try:
        return facts.memo("toolchain-detected", detect)
    except TritondevError as exc:
        raise Skip(
            "needs the build's compilers (see the other toolchain checks)",
            exc.fix,
            f"no toolchain to prove the hosts with: {exc.message}",
        ) from None


def _verdict(proven: DistccSetup, compiler: str) -> CheckOutcome:
    verdicts = proven.verdicts or ()
    good = [v for v in verdicts if v.ok]
    details = [v.describe() for v in verdicts]
    if not good:
        return error(
            f"no distcc host compiles as this machine does ({compiler}): setup would stop (exit 3)",
            "start distccd on the hosts with this machine's compilers (docs/distributed-builds.md), or "
            "change the distcc setting",
            *details,
            figures=proven,
        )
    used = f"{len(good)} of {len(verdicts)} host(s) compile as this machine does ({compiler}; "
    used += f"{proven.hosts.slots} slot(s))"
    if len(good) < len(verdicts):
        left = ", ".join(f"{v.host.token} {v.reason}" for v in verdicts if not v.ok)
        return warn(
            f"{used}; left out of builds: {left}",
            "start distccd there with the same compiler, or drop the host from the distcc setting",
            *details,
            figures=proven,
        )
    return ok(used, *details, figures=proven)
