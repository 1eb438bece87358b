"""What an editor needs for the Triton build: clangd's configuration and where the compile commands are.

Upstream's setup.py links `compile_commands.json` at the checkout root from 3.5 (#7305, `3043f5e9`; not
in 3.4's setup.py @ 9ef20a16); tritondev links it in a checkout it made, for every era, and replaces
only a link of its own or setup.py's (one into the build folder); clangd finds it there. A `.clangd`
file names the build folder explicitly, as contributors write it by hand, so that clangd keeps working
when the root link is missing or points at another build. tritondev writes it only into a checkout it
made and only where there is none; for your own clone (`--triton-src`) `tritondev env --editor` prints
it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CLANGD = ".clangd"
COMPILE_COMMANDS = "compile_commands.json"
MARK = "# Written by tritondev"


@dataclass(frozen=True)
class EditorConfig:
    checkout: Path
    build_dir: Path  # setup.py's cmake build folder, holding compile_commands.json

    @property
    def compile_commands(self) -> Path:
        return self.build_dir / COMPILE_COMMANDS

    def clangd(self) -> str:
        """The .clangd text. Pure."""
        return (
            f"{MARK} for {self.checkout}: clangd reads the compile commands of the Triton build.\n"
            "CompileFlags:\n"
            f"  CompilationDatabase: {self.build_dir}\n"
        )

    def advice(self) -> str:
        """The .clangd text after what clangd already finds by itself: the compile_commands.json linked
        at the checkout root (setup.py links it from 3.4 on). A .clangd file is not ignored by upstream's
        .gitignore (it ignores a `.clangd/` folder): the exclude line keeps it out of `git status`.
        Reads only whether those files are there."""
        linked, clangd, git_dir = self.checkout / COMPILE_COMMANDS, self.checkout / CLANGD, self.checkout / ".git"
        exclude = (
            f"echo /{CLANGD} >> {git_dir / 'info' / 'exclude'}"
            if git_dir.is_dir()
            else f'echo /{CLANGD} >> "$(git -C {self.checkout} rev-parse --git-path info/exclude)"'
        )
        lines = []
        if linked.exists() and linked.resolve() == self.compile_commands.resolve():
            lines.append(
                f"# clangd already finds the compile commands: {linked} links to {self.compile_commands};"
                " nothing to save for that."
            )
            lines.append(
                f"# To name the build folder yourself (a link that points at another build), save what"
                f" follows as {clangd}, or pass --compile-commands-dir={self.build_dir}."
            )
        else:
            lines.append(f"# Save what follows as {clangd} (clangd), or pass --compile-commands-dir={self.build_dir}.")
            lines.append(f"# The compile commands: {self.compile_commands}.")
        if not clangd.exists():
            lines.append(
                "# upstream's .gitignore ignores a .clangd/ folder, not this file; keep it out of"
                f" `git status`: {exclude}"
            )
        return "\n".join(lines) + "\n" + self.clangd()

    def to_json(self) -> dict[str, object]:
        return {
            "checkout": str(self.checkout),
            "build_dir": str(self.build_dir),
            "compile_commands": str(self.compile_commands),
            "clangd": self.clangd(),
            "clangd_path": str(self.checkout / CLANGD),
        }
