"""Files setup writes into the checkouts and the workspace, rendered from the presets.

CMakeUserPresets.json in each checkout (for `cmake --preset tritondev` by hand), compile_commands.json
links for clangd, and <workspace>/state/triton-dev.sh (the values shell/triton-dev.sh runs). The
files in a checkout are listed in its .git/info/exclude (never in .gitignore) before they are
written, with the temporary names of their atomic writes: a run killed in between must not leave the
checkout looking changed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from bootstrap.core.fsutil import read_regular
from bootstrap.core.io import writes
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.workspace import Workspace
from bootstrap.core.io.writes import replace_text
from bootstrap.core.process.runner import Runner
from bootstrap.git import local_changes
from bootstrap.pipeline.llvm.builds import LlvmLocation
from bootstrap.pipeline.recipe.editor import CLANGD, EditorConfig
from bootstrap.pipeline.recipe.files import PRESETS_MARK, render_cmake_user_presets, render_shell_values
from bootstrap.pipeline.recipe.inputs import Paths
from bootstrap.pipeline.recipe.presets import Presets

LOCAL_FILES = ("CMakeUserPresets.json", "compile_commands.json")
TEMP_PATTERNS = (".CMakeUserPresets.json.*.tmp", ".compile_commands.json.tritondev")


def exclude_locally(checkout: Path, names: Sequence[str], touched: set[Path] | None = None) -> None:
    """List files tritondev writes into a checkout in its .git/info/exclude (never in .gitignore);
    a checkout whose exclude file changed is added to `touched`."""
    exclude = checkout / ".git" / "info" / "exclude"
    if not (checkout / ".git").is_dir():
        return
    try:
        text = read_regular(exclude).decode("utf-8", errors="replace") if os.path.lexists(exclude) else ""
    except OSError:
        return
    lines = text.splitlines()
    missing = [f"/{n}" for n in names if f"/{n}" not in lines]
    if missing:
        header = (
            []
            if any(line.startswith("# tritondev") for line in lines)
            else ["# tritondev: files it writes into this checkout"]
        )
        replace_text(
            exclude, text + ("" if not text or text.endswith("\n") else "\n") + "\n".join([*header, *missing]) + "\n"
        )
        if touched is not None:
            touched.add(checkout)


def prime_status(runner: Runner, checkouts: Iterable[Path]) -> None:
    """Write git's untracked cache into the checkouts this run changed (moved, or whose exclude file it
    wrote), once everything is written: the checks of the next runs then read only what changed."""
    for checkout in sorted(checkouts):
        if (checkout / ".git").is_dir():
            local_changes.prime(checkout, runner, f"checkout-{checkout.name}")


def remove_stale_temporaries(folder: Path) -> None:
    """Temporaries of our own writes left by a killed run: a name we create, and content that proves it ours
    (a link, which alone goes; presets holding setup's mark). Anything else of that name stays."""
    for pattern in TEMP_PATTERNS:
        for path in folder.glob(pattern):
            if path.is_symlink() or (writes.describe(path) is None and _is_ours(path)):
                path.unlink(missing_ok=True)


def write_if_changed(path: Path, text: str) -> None:
    try:
        if read_regular(path).decode("utf-8", errors="replace") == text:
            return
    except OSError:
        pass
    replace_text(path, text)


def _is_ours(path: Path) -> bool:
    """Is the CMakeUserPresets.json at `path` one setup wrote (or absent)? A user's own presets file
    (kept out of git by a global ignore) is their work: never replaced."""
    if not os.path.lexists(path):
        return True
    try:
        return PRESETS_MARK in read_regular(path, limit=1 << 20).decode("utf-8", errors="replace")
    except OSError:
        return False


def write_presets(path: Path, text: str) -> str | None:
    """Write a CMakeUserPresets.json of ours; a notice instead when a file of the user's is there."""
    if not _is_ours(path):
        return f"{path} is not one tritondev wrote: left as it is (no `cmake --preset tritondev` there)"
    write_if_changed(path, text)
    return None


def link_compile_commands(build_dir: Path, checkout: Path, builds: Path) -> bool:
    """<checkout>/compile_commands.json -> the build's, for clangd. Only a link into `builds` (the folder
    the builds of that checkout are made in: setup.py's build/ or the workspace's LLVM builds) is replaced:
    a file, or a link of the user's pointing anywhere else, stays. True when the link is the build's."""
    source = build_dir / "compile_commands.json"
    link = checkout / "compile_commands.json"
    if not source.is_file() or not checkout.is_dir():
        return False
    if link.is_symlink():
        target = os.readlink(link)
        if target == str(source):
            return True
        if not _inside(Path(checkout, target), builds):
            return False
        link.unlink()
    elif link.exists():
        return False
    tmp = checkout / ".compile_commands.json.tritondev"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(source)
    os.replace(tmp, link)
    return True


def _inside(path: Path, folder: Path) -> bool:
    """Whether `path` names something inside `folder`, both as written (`..` resolved lexically: a link's
    own target is judged, not where further links lead)."""
    there, root = os.path.normpath(path), os.path.normpath(folder)
    return there != root and os.path.commonpath([there, root]) == root


def write_clangd(checkout: Path, build_dir: Path) -> bool:
    """A .clangd pointing clangd at the build, in a checkout tritondev made, only where there is none
    (a file, link or anything else of that name stays as it is). True when written."""

    path = checkout / CLANGD
    if os.path.lexists(path) or not checkout.is_dir() or not (build_dir / "compile_commands.json").is_file():
        return False
    exclude_locally(checkout, [CLANGD])  # listed first: a kill in between leaves no untracked file
    return writes.create_text(path, EditorConfig(checkout, build_dir).clangd())  # never replaces what appeared


def write_local_files(
    ws: Workspace,
    triton_src: Path,
    presets: Presets,
    llvm: LlvmLocation,
    jobs: int,
    touched: set[Path],
    *,
    adopted: bool = False,
    llvm_elsewhere: str = "",
) -> list[str]:
    """CMakeUserPresets.json in each checkout and the values the shell functions run; returns notices.

    `llvm_elsewhere`: why the workspace builds no LLVM of its own ("" when it does: its LLVM checkout gets
    a presets file too). A reused LLVM build's source belongs to another workspace, a prebuilt package or
    --llvm PATH has none: nothing is written there. A presets file of the user's own is never replaced (a
    notice says so). Your own clone (adopted) gets no file at all.
    """
    notices: list[str | None] = []
    if not llvm_elsewhere and (llvm.source / "llvm").is_dir() and llvm.reused_from is None:
        exclude_locally(
            llvm.source,
            [
                "llvm/CMakeUserPresets.json",
                "compile_commands.json",
                *TEMP_PATTERNS,
                *[f"llvm/{t}" for t in TEMP_PATTERNS],
            ],
            touched,
        )
        remove_stale_temporaries(llvm.source / "llvm")
        remove_stale_temporaries(llvm.source)
        notices.append(
            write_presets(
                llvm.source / "llvm" / "CMakeUserPresets.json",
                render_cmake_user_presets(presets.llvm_cache, llvm.build, jobs, display="LLVM/MLIR for Triton"),
            )
        )
    if triton_src.is_dir() and not adopted:
        exclude_locally(triton_src, [*LOCAL_FILES, *TEMP_PATTERNS], touched)
        remove_stale_temporaries(triton_src)
        notices.append(
            write_presets(
                triton_src / "CMakeUserPresets.json",
                render_cmake_user_presets(
                    presets.triton_cache, presets.triton_cmake_build_dir, jobs, display="Triton (hand-configured build)"
                ),
            )
        )
    paths = Paths(ws.root, triton_src, llvm.source, llvm.build, Path(presets.pip_install.argv[0]), ws.triton_home)
    write_if_changed(StateFiles(ws.state).shell_values, render_shell_values(presets, paths, llvm_elsewhere))
    return [n for n in notices if n]
