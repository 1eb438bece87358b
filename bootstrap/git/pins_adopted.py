"""The pins of an adopted clone (`--triton-src PATH`): its HEAD, and the LLVM its own files pin.

The pin file, setup.py and the layout are read from the working tree as it stands, so a local edit
of cmake/llvm-hash.txt (an LLVM bump in progress) is what the build uses. PyTorch is not asked: the
Triton commit is the clone's HEAD, whatever torch is installed (`tritondev doctor` says how far it
is from the installed torch's pin).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.git.adopt import check_clone, inspect_clone, triton_checkout_around, working_tree_reader
from bootstrap.git.layout import detect_layout
from bootstrap.git.pinned import Pins, llvm_url_for

if TYPE_CHECKING:
    from bootstrap.core.process.runner import Runner
    from bootstrap.core.settings.settings_table import Settings


def adopted_pins(settings: Settings, runner: Runner, path: Path) -> Pins:
    runner = runner.logging_to(None)
    root = check_clone(path, runner)
    clone = inspect_clone(root, runner)
    layout = detect_layout(working_tree_reader(root))
    llvm_url, llvm_url_source = llvm_url_for(settings, layout)
    where = f"your clone {root}"
    notes = [f"{where}: {clone.describe()}"]
    if layout.llvm_pin_note:
        notes.append(layout.llvm_pin_note)
    return Pins(
        torch_ref=None,
        torch_ref_source="not used: your own clone (--triton-src) is built at its HEAD",
        triton_commit=clone.head,
        triton_commit_source=f"HEAD of {where} ({clone.branch or 'detached'})",
        triton_version=layout.version,
        llvm_commit=layout.llvm_commit,
        llvm_url=llvm_url,
        layout=layout,
        triton_version_source=f"setup.py in {where}" if layout.version else "",
        llvm_commit_source=f"{layout.llvm_pin_file} in {where}, as it stands",
        llvm_url_source=llvm_url_source,
        triton_url=str(root),
        backend=settings.backend,
        notes=tuple(notes),
    )


def clone_around(settings: Settings, runner: Runner, workspace_checkout: Path) -> Path | None:
    """The Triton checkout the command runs inside, when nothing chose which Triton (no --triton-src,
    --triton-commit or --torch-ref, given or remembered) and it is not the workspace's own checkout."""
    s = settings
    if s.triton_src is not None or any(s.source_of(n).given for n in ("triton_commit", "torch_ref")):
        return None
    around = triton_checkout_around(Path.cwd(), runner.logging_to(None))
    if around is None or around.resolve() == workspace_checkout.resolve():
        return None
    return around
