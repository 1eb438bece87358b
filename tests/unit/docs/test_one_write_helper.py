"""Every file tritondev writes is written through bootstrap/core/io/writes.py, the one write helper (no link
followed, regular files only, never blocking on a FIFO, whole files renamed into place, text masked).

The code is read with `ast`: a call that would open a file for writing, or copy or dump into one, anywhere
else in bootstrap/ is a finding. The scripts bootstrap/core/target/scripts/tritondev_*.py are left out: they run inside
the target interpreter, stdlib only, and cannot import tritondev (docs/safety.md says what they write).
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HELPER = REPO / "bootstrap" / "core" / "io" / "writes.py"

WRITING_METHODS = {"write_text", "write_bytes", "touch"}  # pathlib
COPIES = {
    ("shutil", "copy"),
    ("shutil", "copy2"),
    ("shutil", "copyfile"),
    ("shutil", "copyfileobj"),
    ("shutil", "move"),
    ("json", "dump"),
    ("os", "mkfifo"),
}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
# Not files of tritondev's, each for a reason.
ALLOWED = {
    ("bootstrap/cli.py", "os.open"): "stdout is pointed at /dev/null once its reader went away",
}


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def _mode(call: ast.Call, position: int) -> str | None:
    values = [k.value for k in call.keywords if k.arg == "mode"]
    if len(call.args) > position:
        values.append(call.args[position])
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None


def _writes(call: ast.Call) -> str | None:
    """What the call writes with, when it opens or fills a file for writing."""
    name = _dotted(call.func)
    if isinstance(call.func, ast.Attribute) and call.func.attr in WRITING_METHODS:
        return name
    if tuple(name.rsplit(".", 1)) in COPIES:
        return name
    mode = None
    if (
        name == "os.fdopen"
        and call.args
        and isinstance(call.args[0], ast.Call)
        and _dotted(call.args[0].func) in ("writes.open_file", "open_file")
    ):
        return None  # an fd the helper opened
    if name in ("open", "io.open", "os.fdopen", "tarfile.open", "gzip.open", "bz2.open", "lzma.open"):
        mode = _mode(call, 1)
    elif isinstance(call.func, ast.Attribute) and call.func.attr == "open" and name != "os.open":
        mode = _mode(call, 0)  # pathlib: Path.open(mode)
    if mode is not None and set(mode) & set("wax+"):
        return f"{name}(mode {mode!r})"
    if name == "os.open":
        flags = {n.attr for n in ast.walk(call) if isinstance(n, ast.Attribute) and n.attr.startswith("O_")}
        if flags & WRITE_FLAGS:
            return name
    return None


def findings() -> list[str]:
    found = []
    for path in sorted((REPO / "bootstrap").rglob("*.py")):
        relative = str(path.relative_to(REPO))
        if path == HELPER or (path.parent.name == "scripts" and path.name.startswith("tritondev_")):
            continue
        for node in ast.walk(ast.parse(path.read_text(), relative)):
            if isinstance(node, ast.Call):
                how = _writes(node)
                if how is not None and (relative, how.split("(")[0]) not in ALLOWED:
                    found.append(f"{relative}:{node.lineno}: {how}")
    return found


def test_every_file_is_written_through_the_one_helper() -> None:
    assert findings() == []


def test_the_finder_sees_each_way_of_writing(tmp_path: Path) -> None:
    """The check itself can fail: each way of writing a file is found in a module that uses it."""
    samples = {
        "path.write_text('x')": "path.write_text",
        "log.touch()": "log.touch",
        "os.fdopen(os.open(p, os.O_WRONLY), 'w')": "os.fdopen(mode 'w')",
        "open(p, 'w')": "open(mode 'w')",
        "open(p, mode='ab')": "open(mode 'ab')",
        "path.open('x', encoding='utf-8')": "path.open(mode 'x')",
        "shutil.copyfile(a, b)": "shutil.copyfile",
        "json.dump(data, fh)": "json.dump",
        "os.open(p, os.O_WRONLY | os.O_CREAT)": "os.open",
    }
    for source, expected in samples.items():
        call = ast.parse(source).body[0]
        assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
        assert _writes(call.value) == expected, source
    for reading in (
        "os.fdopen(writes.open_file(p, writes.Mode.APPEND), 'ab')",
        "open(p)",
        "open(p, 'rb')",
        "path.open('r')",
        "os.open(p, os.O_RDONLY)",
        "json.dumps(x)",
        "tarfile.open(p, 'r:*')",
    ):
        call = ast.parse(reading).body[0]
        assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
        assert _writes(call.value) is None, reading
