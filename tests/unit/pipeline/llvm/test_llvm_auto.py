"""`--llvm auto`: the pure rule, every branch; the memory file as outside input (any bytes read or
ignored, never a crash); answers and choices written and read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bootstrap.core.errors import MismatchError
from bootstrap.core.io.state_files import StateFiles
from bootstrap.pipeline.llvm.auto import (
    AutoDecision,
    Memory,
    Probe,
    forget_choice,
    no_package_reason,
    plan_auto,
    read_memory,
    remember_answer,
    remember_choice,
)
from bootstrap.pipeline.llvm.package import Package, local_package

PIN = "62b7cf9623fc310525f39ed69aaecc318a909731"
URL = "https://oaitriton.blob.core.windows.net/public/llvm-builds/llvm-62b7cf96-ubuntu-x64-2.tar.gz"
EMPTY = Memory({}, {})


def decide(
    url: str | None = URL,
    *,
    no_package: str = "",
    offline: bool = False,
    url_given: bool = False,
    memory: Memory = EMPTY,
    probe: Probe | None = None,
) -> AutoDecision:
    return plan_auto(
        pin=PIN, url=url, no_package=no_package, offline=offline, url_given=url_given, memory=memory, probe=probe
    )


def test_no_package_for_this_machine_or_pin_is_a_source_build_without_a_request() -> None:
    decision = decide(None, no_package="Triton publishes no LLVM package for Linux riscv64")
    assert (decision.choice, decision.ask) == ("source", False)
    assert (
        decision.line() == "llvm: auto -> source: no prebuilt package: Triton publishes no LLVM package for"
        " Linux riscv64"
    )


def test_a_package_not_asked_about_yet_is_asked_once() -> None:
    assert decide().ask
    assert not decide(probe=Probe("present", "HTTP 200")).ask


@pytest.mark.parametrize(
    ("answer", "choice", "words"),
    [
        ("present", "prebuilt", "exists"),
        ("absent", "source", "publishes no package for this pin"),
        ("unusable", "source", "could not be used here"),
        ("unreachable", "source", "cannot be reached"),
    ],
)
def test_each_answer_of_the_server(answer: str, choice: str, words: str) -> None:
    decision = decide(probe=Probe(answer, "detail"))  # type: ignore[arg-type]
    assert decision.choice == choice and words in decision.why and not decision.ask


def test_a_remembered_answer_needs_no_request() -> None:
    memory = Memory({URL: Probe("absent", "HTTP 404")}, {})
    decision = decide(memory=memory)
    assert (decision.choice, decision.ask) == ("source", False) and "HTTP 404" in decision.why


def test_the_choice_kept_for_a_pin_wins_over_everything() -> None:
    memory = Memory({URL: Probe("present", "HTTP 200")}, {PIN: "source"})
    decision = decide(memory=memory)
    assert decision.choice == "source" and "--llvm prebuilt switches" in decision.why
    other = Memory({}, {"0" * 40: "source"})
    assert decide(memory=other).ask  # another pin's choice says nothing about this one


def test_only_an_unreachable_host_makes_the_source_build_a_question() -> None:
    """A host that did not answer (DNS, a proxy) may answer in a minute; a 404 will not."""
    assert decide(probe=Probe("unreachable", "cannot resolve x")).unreachable
    assert not any(decide(probe=Probe(a, "d")).unreachable for a in ("present", "absent", "unusable"))
    assert not decide(None, no_package="none for riscv64").unreachable and not decide(offline=True).unreachable


def test_the_package_already_unpacked_here_needs_no_server(tmp_path: Path) -> None:
    """An earlier `pip install -e .` left Triton's own unpacking of it in ~/.triton/llvm: taken offline, or
    with the host out of reach, without a request; a choice kept for the pin still wins."""
    local = tmp_path / ".triton" / "llvm" / "llvm-62b7cf96-ubuntu-x64-2"
    for decision in (
        plan_auto(pin=PIN, url=URL, no_package="", offline=True, url_given=False, memory=EMPTY, local=local),
        plan_auto(pin=PIN, url=URL, no_package="", offline=False, url_given=False, memory=EMPTY, local=local),
    ):
        assert (decision.choice, decision.ask) == ("prebuilt", False) and str(local) in decision.why
    kept = plan_auto(
        pin=PIN, url=URL, no_package="", offline=False, url_given=False, memory=Memory({}, {PIN: "source"}), local=local
    )
    assert kept.choice == "source"


def test_offline_asks_nobody_unless_a_mirror_url_was_given() -> None:
    assert (decide(offline=True).choice, decide(offline=True).ask) == ("source", False)
    assert decide(offline=True, url_given=True).ask


def test_credentials_in_the_package_url_never_reach_the_line() -> None:
    secret = "https://user:hunter2@mirror.example/llvm-62b7cf96-ubuntu-x64-2.tar.gz"
    decision = plan_auto(
        pin=PIN,
        url=secret,
        no_package="",
        offline=False,
        url_given=True,
        memory=EMPTY,
        probe=Probe("present", "HTTP 200"),
    )
    assert "hunter2" not in decision.line()


def test_no_package_reason_drops_the_prefix() -> None:
    exc = MismatchError("no prebuilt LLVM for this machine: Triton publishes no LLVM package for Linux s390x")
    assert no_package_reason(exc) == "Triton publishes no LLVM package for Linux s390x"


def test_answers_and_choices_round_trip(tmp_path: Path) -> None:
    remember_answer(tmp_path, URL, Probe("present", "HTTP 200"))
    remember_answer(tmp_path, URL + ".other", Probe("unreachable", "timed out"))  # not kept: it may pass
    remember_choice(tmp_path, PIN, "prebuilt")
    memory = read_memory(tmp_path)
    assert memory.answers == {URL: Probe("present", "HTTP 200")} and memory.chosen == {PIN: "prebuilt"}
    forget_choice(tmp_path, PIN)
    assert read_memory(tmp_path).chosen == {}


def test_nothing_is_written_where_there_is_no_state_folder(tmp_path: Path) -> None:
    remember_answer(tmp_path / "missing", URL, Probe("present", "HTTP 200"))
    remember_choice(tmp_path / "missing", PIN, "source")
    assert not (tmp_path / "missing").exists()


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=300),
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20)),
            lambda inner: st.one_of(
                st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
            ),
            max_leaves=20,
        ).map(lambda value: json.dumps({"answers": value, "chosen": value}).encode()),
    )
)
def test_any_memory_file_is_read_or_ignored(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        StateFiles(Path(folder)).llvm_auto.write_bytes(data)
        memory = read_memory(Path(folder))
    assert all(p.answer in ("present", "absent", "unusable") for p in memory.answers.values())
    assert set(memory.chosen.values()) <= {"prebuilt", "source"}


def test_a_fifo_as_the_memory_file_is_ignored_not_a_hang(tmp_path: Path) -> None:
    import os

    os.mkfifo(StateFiles(tmp_path).llvm_auto)
    assert read_memory(tmp_path) == Memory({}, {})


def test_a_package_left_in_triton_home_is_used_only_when_it_is_that_package(tmp_path: Path) -> None:
    package = Package("llvm-62b7cf96-ubuntu-x64-2", URL, None, "ubuntu-x64", PIN, 2)
    env = {"HOME": str(tmp_path / "home")}
    folder = tmp_path / "home" / ".triton" / "llvm" / package.name
    assert local_package(package, env) is None
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "llvm-config").write_text("")
    assert local_package(package, env) is None  # nothing says which LLVM it is
    (folder / "version.txt").write_text(URL.replace("-2.tar.gz", "-1.tar.gz"))
    assert local_package(package, env) is None  # another build of the pin
    (folder / "version.txt").write_text("https://mirror.example/llvm-builds/" + package.archive)
    assert local_package(package, env) == folder  # upstream's own mark: the same archive
    header = folder / "include" / "llvm" / "Support" / "VCSRevision.h"
    header.parent.mkdir(parents=True)
    header.write_text(f'#define LLVM_REVISION "{"0" * 40}"\n')
    assert local_package(package, env) is None  # the build says another commit: never taken
    header.write_text(f'#define LLVM_REVISION "{PIN}"\n')
    assert local_package(package, env) == folder
    assert local_package(package, {**env, "TRITON_HOME": str(tmp_path / "elsewhere")}) is None  # where setup.py looks
    link = tmp_path / "linked" / ".triton" / "llvm" / package.name
    link.parent.mkdir(parents=True)
    link.symlink_to(folder)
    assert local_package(package, {"HOME": str(tmp_path / "linked")}) is None
