"""The setup plan for your own clone (--triton-src): nothing runs on the checkout, its uncommitted
files are the build's edits (ninja rebuilds them, pip does not install again), a new HEAD reinstalls,
and the plan says what it builds."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bootstrap.git.checkouts import CheckoutReport
from bootstrap.pipeline.setup.checkout_facts import ADOPTED, CheckoutFacts
from bootstrap.pipeline.setup.facts import SetupFacts
from bootstrap.pipeline.setup.plan import plan_setup, reinstall_reasons
from tests.unit.pipeline.setup.facts_for_tests import TRITON, finished, fresh, in_place

CLONE = Path("/home/me/triton")


def adopted(facts: SetupFacts, head: str = TRITON, changes: tuple[str, ...] = (), edits: str = "") -> SetupFacts:
    report = CheckoutReport(CLONE, head, head, changes, (), ADOPTED)
    summary = f"branch my-feature, {len(changes)} uncommitted file(s)" if changes else "branch my-feature"
    return dataclasses.replace(facts, triton=CheckoutFacts("triton", report, (), edits, summary))


def test_the_clone_is_never_touched_and_the_plan_says_what_it_builds() -> None:
    facts = adopted(fresh("root-json"), changes=("lib/Foo.cpp",), edits="e1")
    plan = plan_setup(facts)
    step = plan.step("checkout-triton")
    assert not step.runs and step.commands == ()
    assert step.reason == "your clone as it stands: branch my-feature, 1 uncommitted file(s)"
    # Said before anything runs (setup.run), not among the warnings at the end.
    assert facts.triton is not None
    assert facts.triton.adopted_line == (
        f"building your clone {CLONE} as it stands (--triton-src): branch my-feature, 1 uncommitted file(s)"
    )
    assert not any("building your clone" in n for n in (*plan.notices, *plan.notes))
    assert plan.step("triton-install").inputs["edits"] == "e1"


def test_an_edit_is_ninjas_business_a_new_head_reinstalls() -> None:
    base = adopted(in_place(fresh("root-json")))
    done = finished(base, plan_setup(base))
    record = done.records["triton-install"]
    edited = plan_setup(adopted(done, changes=("lib/Foo.cpp",), edits="e2")).step("triton-install")
    assert edited.runs  # setup rebuilds (pip runs ninja), and `build` ...
    assert reinstall_reasons(record, edited.inputs, True) == []  # ... needs no new install for it
    moved = plan_setup(adopted(done, head="1" * 40)).step("triton-install")
    assert reinstall_reasons(record, moved.inputs, True)[0].startswith("HEAD moved to 111111111111")
