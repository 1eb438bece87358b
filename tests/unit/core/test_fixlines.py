"""Fix lines that name a tritondev command repeat the user's --workspace/--python (bootstrap.core.fixlines)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bootstrap import cli
from bootstrap.commands import options
from bootstrap.core import fixlines, run_state
from bootstrap.core.errors import UsageError
from bootstrap.doctor.model import Fix
from tests.support.source_scan import parsed

REPO = Path(__file__).resolve().parents[3]
WS = "/home/me/my ws"
PY = "/opt/env/bin/python3"


@pytest.fixture
def given() -> Iterator[None]:
    fixlines.know_commands(lambda: options.accepted_options(cli.build_app()))
    fixlines.remember_given({"--workspace": WS, "--python": PY})
    yield
    run_state.start()


def test_the_options_go_right_after_the_command_it_takes_them(given: None) -> None:
    shown = fixlines.repeat_options("tritondev doctor --fix (purges them), then: tritondev setup")
    assert shown == (
        f"tritondev doctor --workspace '{WS}' --python {PY} --fix (purges them), then: "
        f"tritondev setup --workspace '{WS}' --python {PY}"
    )
    # bisect resume takes no --python: only the workspace is repeated.
    resume = fixlines.repeat_options("`tritondev bisect resume` goes on")
    assert resume == f"`tritondev bisect resume --workspace '{WS}'` goes on"
    shown = fixlines.repeat_options('eval "$(tritondev env)"')
    assert shown == f"eval \"$(tritondev env --workspace '{WS}' --python {PY})\""


def test_an_option_the_fix_spells_out_is_not_repeated(given: None) -> None:
    text = "run `tritondev purge --restore --python /other/python` (or without --python)"
    shown = fixlines.repeat_options(text)
    assert shown == f"run `tritondev purge --workspace '{WS}' --restore --python /other/python` (or without --python)"


def test_words_that_are_no_command_are_left_alone(given: None) -> None:
    text = "run tritondev as the user who owns that environment; see tritondev's docs"
    assert fixlines.repeat_options(text) == text


def test_nothing_given_changes_nothing() -> None:
    fixlines.know_commands(lambda: options.accepted_options(cli.build_app()))
    assert fixlines.repeat_options("tritondev doctor --fix") == "tritondev doctor --fix"


def test_doctor_repeats_its_own_check_and_arch_in_its_own_fix(given: None) -> None:
    fixlines.narrow("doctor", ["--check", "packages"])
    assert fixlines.repeat_options("tritondev doctor --fix") == (
        f"tritondev doctor --workspace '{WS}' --python {PY} --check packages --fix"
    )
    assert "--check packages" not in (fixlines.repeat_options("tritondev setup") or "")
    assert fixlines.repeat_options("tritondev doctor --check ptxas.arch -v") == (
        f"tritondev doctor --workspace '{WS}' --python {PY} --check ptxas.arch -v"
    )


def test_a_fix_naming_setup_repeats_the_clone_setup_was_asked_to_build(given: None) -> None:
    """After `setup --triton-src` (even one that failed), `tritondev setup` pasted from a fix must build the
    clone, not PyTorch's pin; a fix that chooses the commit itself is left as written."""
    fixlines.setup_asked_for("/home/me/my triton")
    error = UsageError("no Triton build in the workspace", fix="run `tritondev setup` first")
    assert error.shown_fix == (
        f"run `tritondev setup --workspace '{WS}' --python {PY} --triton-src '/home/me/my triton'` first"
    )
    assert fixlines.repeat_options("tritondev setup --triton-commit abc") == (
        f"tritondev setup --workspace '{WS}' --python {PY} --triton-commit abc"
    )
    assert "--triton-src" not in (fixlines.repeat_options("tritondev env --editor") or "")
    run_state.start()  # a new run: nothing given on its command line
    fixlines.know_commands(lambda: options.accepted_options(cli.build_app()))
    fixlines.setup_asked_for("/home/me/triton")
    assert fixlines.repeat_options("run `tritondev setup`") == "run `tritondev setup --triton-src /home/me/triton`"


def test_errors_and_doctor_findings_show_it_in_text_and_json(given: None) -> None:
    error = UsageError("no setup", fix="run `tritondev setup` first")
    assert error.shown_fix == f"run `tritondev setup --workspace '{WS}' --python {PY}` first"
    assert error.to_json()["fix"] == error.shown_fix
    assert Fix("tritondev doctor --fix").to_json()["text"] == f"tritondev doctor --workspace '{WS}' --python {PY} --fix"


COMMAND_WORDS = re.compile(r"(?<![\w/.-])tritondev ([a-z][a-z-]*)(?! \{\})")
FIX_ARGUMENT = {"Fix": 0, "warn": 1, "error": 1, "Skip": 1}


def _fix_texts() -> Iterator[tuple[str, str]]:
    """Every string constant in a fix of bootstrap/: `fix=` arguments, Fix(...), and the fix of warn/error/Skip."""
    for path in sorted((REPO / "bootstrap").rglob("*.py")):
        for node in ast.walk(parsed(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            values = [kw.value for kw in node.keywords if kw.arg == "fix"]
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name in FIX_ARGUMENT and len(node.args) > FIX_ARGUMENT[name]:
                values.append(node.args[FIX_ARGUMENT[name]])
            for value in values:
                for text in _strings(value):
                    yield f"{path.relative_to(REPO)}:{value.lineno}", text


def _strings(node: ast.AST) -> Iterator[str]:
    """The strings an expression is built of; an f-string whole, its values as {}."""
    if isinstance(node, ast.JoinedStr):
        yield "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    else:
        for child in ast.iter_child_nodes(node):
            yield from _strings(child)


def test_every_fix_that_names_a_command_gets_the_options(given: None) -> None:
    """Each fix in the code that names a tritondev command (72 when this was written) names one the CLI has,
    and shown to a user who gave --workspace, it carries it right after the command."""
    commands = {path.split()[0] for path in fixlines.accepted()}
    seen = 0
    for where, text in _fix_texts():
        for match in COMMAND_WORDS.finditer(text):
            if match.group(1) not in commands:
                continue
            seen += 1
            shown = fixlines.repeat_options(text) or ""
            assert f"--workspace '{WS}'" in shown, (where, text, shown)
    assert seen >= 60
