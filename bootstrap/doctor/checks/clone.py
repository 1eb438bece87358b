"""Your own clone (--triton-src) against the installed torch's pin: how far apart, which LLVM each needs.

torch.compile uses private Triton APIs, so a Triton far from the commit PyTorch pins may break it; and
a clone that pins another LLVM than the pin needs its own LLVM build. The pin is resolved as `tritondev
pins` does (PyTorch's triton.txt at the installed torch's commit or tag), without writing anything:
PyTorch's files are read into a temporary repository. The clone is only read: whether it has the pin
is looked up among its commits (never by asking for the object, which a partial clone would fetch).
"""

from __future__ import annotations

import dataclasses

from bootstrap.core.errors import TritondevError
from bootstrap.doctor.facts import Facts, ProbeFailed, Skip
from bootstrap.doctor.model import CheckOutcome, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.git.adopt import check_clone, inspect_clone, read_git, working_tree_reader
from bootstrap.git.layout import llvm_pin
from bootstrap.git.pins import find_installed_torch, resolve_pins


@check("workspace.clone", "your own clone (--triton-src) against the installed torch's pin", slow=True)
def clone_against_pin(facts: Facts) -> CheckOutcome:
    ctx = facts.ctx
    if ctx.settings.triton_src is None:
        raise Skip("no clone of yours in use (setup --triton-src PATH adopts one)")
    runner = ctx.runner.logging_to(None)
    try:
        root = check_clone(ctx.settings.triton_src, runner)
    except TritondevError as exc:
        return warn(exc.message, exc.fix)
    clone = inspect_clone(root, runner)
    if find_installed_torch(ctx) is None:
        raise Skip(f"no torch in the target environment: nothing to compare {root} with")
    settings = dataclasses.replace(ctx.settings, triton_src=None, triton_commit=None, torch_ref=None)
    try:
        pins = resolve_pins(dataclasses.replace(ctx, settings=settings), use_cache=False)
    except TritondevError as exc:
        raise ProbeFailed(f"the installed torch's pin could not be read: {exc.message}") from None
    mine = llvm_pin(working_tree_reader(root))[1]
    where = f"{pins.triton_commit[:12]} ({pins.triton_commit_source})"
    llvm = (
        f"both need LLVM {mine[:12]}"
        if mine == pins.llvm_commit
        else f"your clone needs LLVM {mine[:12]}, the pin LLVM {pins.llvm_commit[:12]}"
    )
    details = [f"clone: {root}, {clone.describe()}", f"pin: {pins.triton_commit}", llvm]
    if clone.head == pins.triton_commit:
        return ok(f"your clone is at the installed torch's pin {where}; {llvm}", *details)
    known = set(read_git(runner, root, "rev-list", "--all").split())
    if pins.triton_commit not in known:
        return warn(
            f"your clone {root} does not have the installed torch's pin {where}; {llvm}",
            f"git -C {root} fetch origin (then `tritondev doctor` says how far apart they are)",
            *details,
        )
    counts = read_git(runner, root, "rev-list", "--left-right", "--count", f"HEAD...{pins.triton_commit}").split()
    ahead, behind = (int(n) for n in counts) if len(counts) == 2 else (0, 0)
    return warn(
        f"your clone is {ahead} commit(s) ahead of and {behind} behind the installed torch's pin {where}; {llvm}",
        "torch.compile uses private Triton APIs: a Triton far from the pin may break it; `git -C"
        f" {root} log --oneline {pins.triton_commit[:12]}..HEAD` lists what differs",
        *details,
    )
