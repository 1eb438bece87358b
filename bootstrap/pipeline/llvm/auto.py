"""`--llvm auto` (the default): Triton's own prebuilt LLVM when there is one for the pin and this
machine, else a source build; the choice and its reason in one line, before anything is built.

Which pins and machines have a package is upstream's rule, applied by `package.package_for`:
the suffix `python/build_helpers.py` (`get_llvm_package_info`, setup.py before 3.7) picks for this
machine, and for Triton >= 3.8 a sha256 for that suffix in `cmake/llvm-info.json`. Whether the
package is really on the server (a new pin, a fork's pin, a retired host) only the server knows:
auto asks it once, with one HEAD request, and remembers the answer per package (hence per pin) in
`<workspace>/state/llvm-auto.json`. Once an LLVM step finished for a pin, the choice made for that
pin is kept there too, so a later run builds against the same LLVM instead of switching.

Never worse than `--llvm source`: a package that should exist but cannot be had (no network, a site
with only mirrors, HTTP errors, a failed download, a wrong sha256, tools that do not run here) makes
auto build from source, with one line saying why. A package that failed is remembered as unusable.

`plan_auto` is the pure rule; `observe_auto` reads the memory and asks the server when the rule says so;
setup's execution records the answer (`remember_answer`, never under --dry-run).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bootstrap.core.errors import ExternalError, MismatchError
from bootstrap.core.fsutil import parse_json, read_regular
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.writes import replace_json
from bootstrap.core.redact import redact
from bootstrap.git.rawfiles import describe_network_error, is_name_not_resolved
from bootstrap.pipeline.llvm.download import MISSING_STATUS, session_for

Choice = Literal["prebuilt", "source"]
Answer = Literal["present", "absent", "unusable", "unreachable"]
_MAX_BYTES = 1 << 20
_PROBE_TIMEOUT = (5.0, 15.0)  # connect, read: a site that drops packets costs seconds, not minutes


@dataclass(frozen=True)
class Probe:
    """The server's answer about one package URL."""

    answer: Answer
    detail: str  # "HTTP 404", "cannot connect (...)", ...


@dataclass(frozen=True)
class AutoDecision:
    choice: Choice
    why: str  # one line, shown before anything is built
    ask: bool = False  # the server must be asked first (then decided again with its answer)
    # A source build only because the host could not be reached (DNS, a proxy: perhaps for a minute),
    # unlike a package that does not exist: setup asks before it commits to hours of build.
    unreachable: bool = False

    def line(self) -> str:
        return f"llvm: auto -> {self.choice}: {self.why}"


@dataclass(frozen=True)
class Memory:
    """What earlier runs in this workspace learnt: answers per package URL, choices per LLVM pin."""

    answers: Mapping[str, Probe]
    chosen: Mapping[str, Choice]


class PrebuiltUnavailable(ExternalError):
    """The package auto chose could not be had; setup goes on with a source build."""

    def __init__(self, url: str, why: str) -> None:
        super().__init__(f"the prebuilt LLVM {redact(url)} could not be used: {why}")
        self.url, self.why = url, why


def plan_auto(
    *,
    pin: str,
    url: str | None,
    no_package: str,
    offline: bool,
    url_given: bool,
    memory: Memory,
    probe: Probe | None = None,
    local: Path | None = None,
) -> AutoDecision:
    """The choice for one pin. Pure.

    url: the package Triton publishes for this pin and machine (None: none, `no_package` says why);
    offline: --offline, and the package URL was not given explicitly; probe: the server's answer
    this run (None: not asked yet); local: that package already unpacked on this machine by Triton's
    own setup.py (an earlier `pip install -e .`), which needs no server.
    """
    kept = memory.chosen.get(pin)
    if kept is not None:
        return AutoDecision(
            kept,
            f"kept from an earlier setup of LLVM {pin[:12]} in this workspace"
            f" (--llvm {'source' if kept == 'prebuilt' else 'prebuilt'} switches)",
        )
    if url is None:
        return AutoDecision("source", f"no prebuilt package: {no_package}")
    if local is not None:
        return AutoDecision(
            "prebuilt",
            f"Triton's package for this pin is already on this machine ({local}, left by"
            " an earlier `pip install -e .`): copied, not downloaded",
        )
    if offline and not url_given:
        return AutoDecision(
            "source", "--offline: the package host is not asked (--llvm-prebuilt-url names a mirror to use one)"
        )
    answer = probe if probe is not None else memory.answers.get(url)
    if answer is None:
        return AutoDecision("source", f"{redact(url)} not asked yet", ask=True)
    shown = redact(url)
    if answer.answer == "present":
        return AutoDecision("prebuilt", f"Triton's package for this pin exists ({shown})")
    if answer.answer == "absent":
        return AutoDecision(
            "source", f"Triton publishes no package for this pin ({shown}: {answer.detail}); a new pin or a fork's"
        )
    if answer.answer == "unusable":
        return AutoDecision(
            "source", f"the package could not be used here ({answer.detail}); --llvm prebuilt tries it again"
        )
    return AutoDecision(
        "source", f"the package host cannot be reached ({answer.detail}); --llvm prebuilt insists", unreachable=True
    )


# -- the server -------------------------------------------------------------------------------------------


def probe(url: str, timeout: tuple[float, float] = _PROBE_TIMEOUT) -> Probe:
    """One HEAD request (redirects followed): is the package there?"""
    import requests

    session = session_for(url)
    try:
        with session.head(url, timeout=timeout, allow_redirects=True) as response:
            status = response.status_code
    except (requests.RequestException, OSError) as exc:
        if is_name_not_resolved(exc):
            from urllib.parse import urlsplit

            return Probe("unreachable", f"cannot resolve {urlsplit(url).hostname or url}")
        return Probe("unreachable", describe_network_error(exc))
    finally:
        session.close()
    if status in (200, 206):
        return Probe("present", f"HTTP {status}")
    if status in MISSING_STATUS:
        return Probe("absent", f"HTTP {status}")
    return Probe("unreachable", f"HTTP {status}")


# -- the memory ---------------------------------------------------------------------------------------------


def read_memory(state: Path) -> Memory:
    """The file, or an empty memory when it is missing or not one we wrote (it is only a cache)."""
    try:
        data = parse_json(read_regular(StateFiles(state).llvm_auto, limit=_MAX_BYTES).decode("utf-8"))
    except (OSError, ValueError, RecursionError, UnicodeDecodeError):
        return Memory({}, {})
    if not isinstance(data, dict):
        return Memory({}, {})
    answers: dict[str, Probe] = {}
    for url, item in (data.get("answers") or {}).items() if isinstance(data.get("answers"), dict) else ():
        if isinstance(item, dict) and item.get("answer") in ("present", "absent", "unusable"):
            answers[str(url)] = Probe(item["answer"], str(item.get("detail", "")))
    chosen: dict[str, Choice] = {}
    for pin, choice in (data.get("chosen") or {}).items() if isinstance(data.get("chosen"), dict) else ():
        if choice in ("prebuilt", "source"):
            chosen[str(pin)] = choice
    return Memory(answers, chosen)


def _write(state: Path, memory: Memory) -> None:
    replace_json(
        StateFiles(state).llvm_auto,
        {
            "written_by": "tritondev setup (--llvm auto): the package host's answers, and the LLVM chosen per pin",
            "answers": {
                url: {"answer": p.answer, "detail": p.detail, "at": int(time.time())}
                for url, p in sorted(memory.answers.items())
            },
            "chosen": dict(sorted(memory.chosen.items())),
        },
    )


def remember_answer(state: Path, url: str, answer: Probe) -> None:
    """Keep a server's answer (not a network failure: that may pass)."""
    if answer.answer == "unreachable" or not state.is_dir():
        return
    memory = read_memory(state)
    _write(state, Memory({**memory.answers, url: answer}, memory.chosen))


def remember_choice(state: Path, pin: str, choice: Choice) -> None:
    """The LLVM of this pin is in place: later runs keep it."""
    memory = read_memory(state)
    if memory.chosen.get(pin) == choice or not state.is_dir():
        return
    _write(state, Memory(memory.answers, {**memory.chosen, pin: choice}))


def forget_choice(state: Path, pin: str) -> None:
    memory = read_memory(state)
    if pin in memory.chosen:
        _write(state, Memory(memory.answers, {k: v for k, v in memory.chosen.items() if k != pin}))


# -- the decision for setup's facts -------------------------------------------------------------------------


@dataclass(frozen=True)
class Learnt:
    """A server's answer about a package, asked this run: setup records it once the plan executes."""

    url: str
    answer: Probe


@dataclass(frozen=True)
class AutoOutcome:
    decision: AutoDecision
    url: str | None
    learnt: Learnt | None  # the answer of the request made this run (None: none was made)


def observe_auto(
    state: Path,
    pin: str,
    package_url: str | None,
    no_package: str,
    *,
    offline: bool,
    url_given: bool,
    local: Path | None = None,
) -> AutoOutcome:
    """Decide, asking the server at most once. Only reads: the answer comes back to be recorded by the
    caller that changes the workspace (setup's execution), never here."""
    memory = read_memory(state)
    decision = plan_auto(
        pin=pin,
        url=package_url,
        no_package=no_package,
        offline=offline,
        url_given=url_given,
        memory=memory,
        local=local,
    )
    if not decision.ask or package_url is None:
        return AutoOutcome(decision, package_url, None)
    answer = probe(package_url)
    decision = plan_auto(
        pin=pin,
        url=package_url,
        no_package=no_package,
        offline=offline,
        url_given=url_given,
        memory=memory,
        probe=answer,
    )
    return AutoOutcome(decision, package_url, Learnt(package_url, answer))


def no_package_reason(exc: MismatchError) -> str:
    return exc.message.removeprefix("no prebuilt LLVM for this machine: ")
