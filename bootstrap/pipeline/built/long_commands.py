"""Long build commands (cmake, ninja, pip) as setup and `build` run them: a progress bar from ninja's
[N/M] lines, the lines that say why one failed, ccache's figures around it, the remote cache's
environment."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bootstrap.core.errors import CommandFailed
from bootstrap.core.process.runner import Result, Runner
from bootstrap.core.progress import NinjaProgress
from bootstrap.pipeline.recipe.inputs import Command

if TYPE_CHECKING:
    from rich.console import Console

NINJA_STOP = re.compile(r"^\s*ninja: build stopped")


def failure_excerpt(lines: Sequence[str], limit: int = 25) -> list[str]:
    """The lines that say why a build failed: ninja's last `FAILED:` block (the compiler's errors),
    else the lines naming an error; then the last few lines. pip's long epilogue alone says nothing."""
    failed = [i for i, line in enumerate(lines) if line.lstrip().startswith("FAILED:")]
    picked: list[str] = []
    if failed:
        start = failed[-1]
        for line in lines[start : start + limit]:
            if picked and (NINJA_STOP.search(line) or line.lstrip().startswith("[")):
                break
            picked.append(line)
    else:
        picked = [line for line in lines if re.search(r"\berror\b|Error:", line)][-limit // 2 :]
    last = [line for line in lines[-5:] if line not in picked]
    return [*picked[:limit], *(["..."] if picked and last else []), *last]


def run_streamed(
    runner: Runner,
    command: Command,
    label: str,
    console: Console | None,
    *,
    show_progress: bool,
    extra_env: Mapping[str, str | None] | None = None,
) -> Result:
    """Run a long command with a progress bar; on failure, the log's telling lines and a fix."""

    fix = f"see the log; fix the cause and run `tritondev setup` again (it resumes at {command.step})"
    with NinjaProgress(label, console, enabled=show_progress) as progress:
        try:
            return runner.stream(
                command.argv,
                step=command.step,
                cwd=command.cwd,
                env=command.runner_env(dict(extra_env or {})),
                on_line=progress.on_line,
                fix=fix,
            )
        except CommandFailed as exc:
            if exc.log_path is None or exc.timed_out:
                raise
            try:
                lines = exc.log_path.read_text(errors="replace").splitlines()
            except OSError:
                raise exc from None
            raise CommandFailed(exc.argv, exc.returncode, exc.log_path, failure_excerpt(lines), fix=fix) from None
