"""repro.py is rendered from a checked record: valid Python whatever a record's text holds, LAUNCH exactly the
record, and a `tritondev compile` line that compile's own parser accepts."""

from __future__ import annotations

import ast
import shlex
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bootstrap.core.target import inside
from bootstrap.kernels.signature import parse_constexprs, parse_signature
from bootstrap.repro.records import parse_record
from bootstrap.repro.render import compile_line, repro_text, runner_body
from tests.unit.repro.records_data import record

RUNNER = inside.script_text(inside.REPRO_RUNNER)
FOLDER = Path("/tmp/my repro")


def _launch_of(text: str) -> object:
    tree = ast.parse(text)
    (assign,) = [n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "LAUNCH"]
    return ast.literal_eval(assign.value)


def test_repro_py_holds_the_record_and_the_runner() -> None:
    parsed = parse_record(record())
    text = repro_text(parsed, FOLDER, "`python model.py`", RUNNER)
    assert _launch_of(text) == parsed.to_launch()
    assert text.endswith(runner_body(RUNNER)) and "def main(launch, argv=None):" in text
    assert "# Bisect:   tritondev bisect triton --good GOOD --bad BAD -- python /tmp/my repro/repro.py" in text


def test_the_compile_line_is_one_compile_accepts() -> None:
    line, why = compile_line(parse_record(record()), FOLDER)
    assert why is None and line is not None
    words = shlex.split(line)
    assert words[:3] == ["tritondev", "compile", "/tmp/my repro/kernel.py::add_kernel"]
    signature = words[words.index("--signature") + 1]
    assert signature == "x_ptr=*fp32:16,out_ptr=*fp16,n=i32:16"
    params = parse_signature(signature)
    assert [(p.name, p.type, p.divisibility) for p in params] == [
        ("x_ptr", "*fp32", 16),
        ("out_ptr", "*fp16", None),
        ("n", "i32", 16),
    ]
    constexprs = [words[i + 1] for i, w in enumerate(words) if w == "--constexpr"]
    assert parse_constexprs(constexprs) == {"BLOCK": 256}
    assert words[words.index("--target") + 1] == "cuda:90" and words[-4:] == ["--num-warps", "4", "--num-stages", "3"]


def test_a_type_compile_does_not_take_gives_the_reason_instead_of_a_line() -> None:
    data = record()
    data["spec"]["signature"]["x_ptr"] = "tensordesc<fp16[64, 64]>"
    line, why = compile_line(parse_record(data), FOLDER)
    assert line is None and why is not None and "tensordesc<fp16[64, 64]>" in why


@given(st.text(max_size=200), st.text(max_size=200))
def test_no_text_of_a_record_becomes_code(origin: str, message: str) -> None:
    data = record(status="crashed", error={"type": "RuntimeError", "message": message})
    data["origin"]["file"] = origin
    parsed = parse_record(data)
    text = repro_text(parsed, FOLDER, f"`{origin}`", RUNNER)
    # Comments make no statements: the file is LAUNCH and the runner's own statements, nothing else.
    assert len(ast.parse(text).body) == 1 + len(ast.parse(runner_body(RUNNER)).body)
    assert _launch_of(text) == parsed.to_launch()
