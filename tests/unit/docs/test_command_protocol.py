"""The command protocol of docs/architecture.md ("A command's outcome") as a structure, not a convention.

A command module (bootstrap/commands/**) parses its options, calls the package that owns the work and
returns an Outcome (bootstrap/core/outcome.py); `@command` shows it once. So a command module never
starts a process, never deletes or writes a file, never decides between text and JSON, never marks an
error as shown, never sets the runner's echo or takes the workspace lock, and reads typed fields, not
dict keys. A report (a class named *Report, *Outcome or *Result, or an Outcome a command returns) has
typed fields to the edge: none typed `dict`, `dict[str, object]` or `Any`.

Each rule is a function of source text, so that a test below shows it catching a hand-written bad
example; the rest read bootstrap/ with ast (and, for what a body returns, the app itself).
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from tests.support.source_scan import parsed

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "bootstrap"
COMMANDS = PACKAGE / "commands"

# Nothing is left off the protocol: every command module and report follows it. An entry here ("path" or
# "path: Class.field") would exempt it; the test below keeps the list to what exists.
NOT_YET_ON_THE_PROTOCOL: tuple[str, ...] = ()

# -- rule 1: a command module parses and returns; it does no work -----------------------------------

RUNNER_METHODS = {"run", "capture", "stream", "run_attached"}
# Modules whose import alone means processes or writes: the runner, the one write helper, and the
# standard library's own ways to start a process or change the disk.
WORK_MODULES = {"subprocess", "shutil", "tempfile", "bootstrap.core.process.runner", "bootstrap.core.io.writes"}
CHANGES_THE_DISK = {
    "unlink",
    "rmdir",
    "rmtree",
    "remove",
    "removedirs",
    "rename",
    "renames",
    "write_text",
    "write_bytes",
    "mkdir",
    "makedirs",
    "touch",
    "symlink_to",
    "hardlink_to",
    "chmod",
    "truncate",
    "system",
    "popen",
    "spawnv",
    "execv",
    "fork",
}
DONE_BY_THE_DECORATOR = {
    "quiet": "sets the runner's echo (declare it: @command(echo=...))",
    "lock": "takes the workspace lock (declare it: @command(lock=...); the package takes it with ctx.locked())",
    "changing": "takes the workspace lock (declare it: @command(lock=...))",
    "reading": "takes the workspace lock (declare it: @command(lock=...))",
    "locked": "takes the workspace lock (the owning package does, with ctx.locked())",
    "emit_json": "prints the JSON document (return an Outcome: the decorator prints its to_json() once)",
    "logging_to": "sets where the runner logs (declare it: @command(writes_logs=...))",
}


def _dotted(node: ast.AST) -> str:
    """`ctx.runner.run` for an attribute chain (calls and subscripts in it read as `()`)."""
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return f"{_dotted(node.func)}()"
    return "?"


def _opens_for_writing(call: ast.Call) -> bool:
    """open(path, "w"...) / path.open("a"...): a mode that writes, given as text."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if name != "open":
        return False
    position = 0 if isinstance(call.func, ast.Attribute) else 1
    modes = [call.args[position]] if len(call.args) > position else []
    modes += [k.value for k in call.keywords if k.arg == "mode"]
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax+") for m in modes)


def work_in_command(source: str, path: str) -> list[str]:
    """What a command module does that belongs to a package: processes, writes, deletions."""
    found = []
    for node in ast.walk(parsed(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.module:
                names += [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                if name in WORK_MODULES:
                    found.append(f"{path}:{node.lineno}: imports {name}")
        elif isinstance(node, ast.Call):
            func, dotted = node.func, _dotted(node.func)
            if isinstance(func, ast.Attribute) and func.attr in RUNNER_METHODS and "runner" in dotted:
                found.append(f"{path}:{node.lineno}: starts a process ({dotted})")
            elif isinstance(func, ast.Attribute) and func.attr in CHANGES_THE_DISK:
                found.append(f"{path}:{node.lineno}: changes the disk or starts a process ({dotted})")
            elif dotted.startswith("writes."):
                found.append(f"{path}:{node.lineno}: writes a file ({dotted})")
            elif _opens_for_writing(node):
                found.append(f"{path}:{node.lineno}: opens a file for writing")
    return found


def protocol_breaches(source: str, path: str) -> list[str]:
    """What a command module does that `@command` does once for all: the echo, the lock, the logs, the
    choice between text and JSON, errors marked as shown."""
    found = []
    for node in ast.walk(parsed(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in DONE_BY_THE_DECORATOR
        ):
            found.append(f"{path}:{node.lineno}: {DONE_BY_THE_DECORATOR[node.func.attr]}")
        elif isinstance(node, ast.keyword) and node.arg == "reported":
            found.append(f"{path}:{node.value.lineno}: marks an error as shown (return it as the outcome's failure)")
        elif isinstance(node, ast.Attribute) and node.attr == "reported" and isinstance(node.ctx, ast.Store):
            found.append(f"{path}:{node.lineno}: marks an error as shown (return it as the outcome's failure)")
        elif isinstance(node, ast.Attribute) and node.attr == "json" and _dotted(node.value) == "ctx":
            found.append(f"{path}:{node.lineno}: decides by --json itself (the decorator shows the outcome once)")
    return found


def dict_key_reads(source: str, path: str) -> list[str]:
    """`data["key"]`, `data.get("key")`: a renderer reading a dict instead of a typed field."""
    found = []
    for node in ast.walk(parsed(source)):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            found.append(f"{path}:{node.lineno}: reads the key {node.slice.value!r}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(f"{path}:{node.lineno}: reads the key {node.args[0].value!r}")
    return found


def command_modules() -> Iterator[tuple[str, str]]:
    for path in sorted(COMMANDS.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel not in NOT_YET_ON_THE_PROTOCOL:
            yield rel, path.read_text(encoding="utf-8")


def test_no_command_module_starts_a_process_or_changes_the_disk() -> None:
    found = [line for rel, text in command_modules() for line in work_in_command(text, rel)]
    assert not found, "work that belongs to the owning package:\n" + "\n".join(found)


DECORATOR = "bootstrap/commands/options.py"  # `@command`: the one place that does it


def test_no_command_module_does_what_the_decorator_does() -> None:
    found = [line for rel, text in command_modules() if rel != DECORATOR for line in protocol_breaches(text, rel)]
    assert not found, "\n".join(found)


def test_no_command_module_reads_dict_keys() -> None:
    found = [line for rel, text in command_modules() for line in dict_key_reads(text, rel)]
    assert not found, "renderers read typed fields:\n" + "\n".join(found)


def test_the_work_rule_catches_a_command_that_does_work() -> None:
    bad = """
import shutil
from bootstrap.core.io.writes import replace_text

def clear(ctx, folder):
    ctx.runner.run(["git", "gc"], step="gc")
    runner = ctx.runner.quiet()
    runner.capture(["pip", "list"], step="x")
    folder.unlink()
    (folder / "x").write_text("y")
    shutil.rmtree(folder)
    writes.replace_json(folder / "a.json", {})
    with open(folder / "log", "a") as log:
        pass
    with (folder / "b").open(mode="w"):
        pass
    print(open(folder / "c").read(), "x".replace("x", "y"))  # reading and str.replace are fine
"""
    found = work_in_command(bad, "bad.py")
    said = "\n".join(found)
    assert "imports shutil" in said and "imports bootstrap.core.io.writes" in said
    assert "starts a process (ctx.runner.run)" in said and "starts a process (runner.capture)" in said
    assert "(folder.unlink)" in said and ".write_text)" in said and "(shutil.rmtree)" in said
    assert "writes a file (writes.replace_json)" in said
    assert len([f for f in found if "opens a file for writing" in f]) == 2, said
    assert len(found) == 10, said


def test_the_protocol_rule_catches_a_command_that_shows_and_locks_by_itself() -> None:
    bad = """
def purge(ctx):
    ctx = ctx.with_runner(ctx.runner.quiet(ctx.json))
    with ctx.workspace.lock("purge"):
        result = run_purge(ctx)
    if ctx.json:
        ui.emit_json(result.to_json())
    failure = CheckFailed("no", reported=True)
    failure.reported = True
    raise failure
"""
    said = "\n".join(protocol_breaches(bad, "bad.py"))
    for words in (
        "sets the runner's echo",
        "takes the workspace lock",
        "decides by --json itself",
        "prints the JSON document",
        "marks an error as shown",
    ):
        assert words in said, (words, said)
    assert said.count("marks an error as shown") == 2 and said.count("decides by --json") == 2


def test_the_dict_rule_catches_a_renderer_reading_keys() -> None:
    bad = 'def render(data):\n    print(data["torch_ref"], data.get("notes"), data[0], data.get(key))\n'
    assert [line.split(": ", 1)[1] for line in dict_key_reads(bad, "bad.py")] == [
        "reads the key 'torch_ref'",
        "reads the key 'notes'",
    ]


# -- every command body returns an Outcome ----------------------------------------------------------


def _callbacks(app: typer.Typer) -> Iterator[Any]:
    for info in app.registered_commands:
        yield info.callback
    for group in app.registered_groups:
        if group.typer_instance is not None:
            yield from _callbacks(group.typer_instance)


def test_every_command_body_returns_an_outcome() -> None:
    from bootstrap import cli
    from bootstrap.commands import test as test_command
    from bootstrap.core.outcome import Outcome

    bodies = [c.__wrapped__ for c in _callbacks(cli.build_app())]
    # A Makefile target by its name (`tritondev test golden-samples`), made when asked for.
    bodies.append(test_command._target_command("golden-samples", "a target").__wrapped__)  # type: ignore[attr-defined]
    TARGETS = test_command.TARGETS
    assert len(bodies) > 30 and all(name in {b.__name__ for b in bodies} for name in TARGETS)
    wrong = []
    for body in bodies:
        module = inspect.getsourcefile(body)
        rel = Path(module or "?").resolve().relative_to(REPO).as_posix()
        if rel in NOT_YET_ON_THE_PROTOCOL:
            continue
        # The annotation as written (postponed: a string), named in the body's module or as Outcome.
        written = body.__annotations__.get("return")
        returned = eval(written, {**body.__globals__, "Outcome": Outcome}) if isinstance(written, str) else written
        if not (inspect.isclass(returned) and issubclass(returned, Outcome)):
            wrong.append(f"{rel}: {body.__name__} returns {returned}")
    assert not wrong, "a command body returns an Outcome, which @command shows once:\n" + "\n".join(wrong)


def test_the_legacy_list_names_only_what_exists() -> None:
    """The list the merge empties names real modules and fields, so that it cannot hide a typo."""
    for entry in NOT_YET_ON_THE_PROTOCOL:
        path, _, field = entry.partition(": ")
        assert (REPO / path).is_file(), entry
        if field:
            cls, _, name = field.partition(".")
            assert re.search(rf"class {cls}\b[\s\S]*?\n    {name}: ", (REPO / path).read_text()), entry


# -- rule 2: reports are typed to the edge -----------------------------------------------------------

REPORT_NAME = re.compile(r"(Report|Outcome|Result)$")
UNTYPED = {"Any", "object"}


def _untyped(annotation: ast.expr) -> str | None:
    """Why an annotation is not a type a reader can rely on: Any or object anywhere in it, a bare dict or
    Mapping (no key and value types), or a dict whose values are Any or object."""
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id in UNTYPED:
            return f"{node.id} in it"
        if isinstance(node, ast.Attribute) and node.attr in UNTYPED:
            return f"{node.attr} in it"
        if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted annotation
            inner = _untyped(ast.parse(node.value, mode="eval").body)
            if inner:
                return inner
    bare = [n for n in ast.walk(annotation) if isinstance(n, ast.Name) and n.id in ("dict", "Dict", "Mapping")]
    subscripted = {id(n.value) for n in ast.walk(annotation) if isinstance(n, ast.Subscript)}
    if any(id(n) not in subscripted for n in bare):
        return "a dict of no declared types"
    return None


def _is_report(node: ast.ClassDef) -> bool:
    return bool(REPORT_NAME.search(node.name)) or any(_dotted(b).split(".")[-1] == "Outcome" for b in node.bases)


def untyped_report_fields(source: str, path: str) -> list[str]:
    """Each field of a report class (named *Report/*Outcome/*Result, or an Outcome) typed dict or Any."""
    found = []
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.ClassDef) and _is_report(node):
            for statement in node.body:
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    if _dotted(statement.annotation).startswith("ClassVar"):
                        continue
                    why = _untyped(statement.annotation)
                    if why:
                        found.append(
                            f"{path}: {node.name}.{statement.target.id} ({ast.unparse(statement.annotation)}: {why})"
                        )
    return found


def test_no_report_has_a_field_typed_dict_or_any() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        found += [
            line
            for line in untyped_report_fields(path.read_text(encoding="utf-8"), rel)
            if line.partition(" (")[0] not in NOT_YET_ON_THE_PROTOCOL
        ]
    assert not found, "report fields a reader cannot rely on:\n" + "\n".join(found)


def test_the_report_rule_catches_untyped_fields() -> None:
    bad = """
class PinsReport:
    data: dict[str, object]
    extra: dict
    anything: Any
    rows: list[dict[str, Any]]
    maybe: "Mapping[str, typing.Any] | None"
    sizes: dict[str, int | None]
    name: str

class Shown(Outcome):
    raw: Mapping
    kind: ClassVar[bool] = True

class Helper:
    free: dict[str, Any]
"""
    found = untyped_report_fields(bad, "bad.py")
    fields = [line.split(": ", 1)[1].split(" (")[0] for line in found]
    assert fields == [
        "PinsReport.data",
        "PinsReport.extra",
        "PinsReport.anything",
        "PinsReport.rows",
        "PinsReport.maybe",
        "Shown.raw",
    ], found
