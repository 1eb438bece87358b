"""`run` and `bisect triton|llvm`: their own options before `--`, the program's command line after it; an
unknown option before it is a usage error with "did you mean", never the start of the command."""

from __future__ import annotations

import pytest

from bootstrap import cli
from bootstrap.commands.options import _split_own_options
from bootstrap.core.errors import UsageError

TAKES = {"--python": True, "--dump-ir": False, "-v": False, "--verbose": False, "--good": True}


@pytest.mark.parametrize(
    ("args", "own", "program"),
    [
        (["--python", "p", "--", "python", "-c", "x"], ["--python", "p"], ["python", "-c", "x"]),
        (["--python=p", "python", "k.py", "-v"], ["--python=p"], ["python", "k.py", "-v"]),
        (["--good", "-1", "--dump-ir", "--", "--weird"], ["--good", "-1", "--dump-ir"], ["--weird"]),
        (["-v"], ["-v"], None),
    ],
)
def test_the_split(args: list[str], own: list[str], program: list[str] | None) -> None:
    assert _split_own_options(args, TAKES, "tritondev run") == (own, program)


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    return int(info.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["bisect", "triton", "--python", "X", "--good", "A", "--bad", "B", "--", "python", "t.py"],
            "error: tritondev bisect triton has no option --python\n",
        ),
        (
            ["bisect", "llvm", "--good", "A", "--bad", "B", "--jsno", "--", "x"],
            "error: tritondev bisect llvm has no option --jsno (did you mean --json?)\n",
        ),
        (
            ["run", "--pyton", "/usr/bin/python3", "--", "python", "-c", "pass"],
            "error: tritondev run has no option --pyton (did you mean --python?)\n",
        ),
    ],
)
def test_an_unknown_option_before_the_command_is_exit_2(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run_main(args, capsys)
    assert code == 2 and err.startswith(says), err
    assert "fix: give only its own options before `--`" in err and "not on PATH" not in err


def test_unknown_option_with_json_is_one_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    with pytest.raises(SystemExit):
        cli.main(["bisect", "triton", "--json", "--python", "X", "--good", "A", "--bad", "B", "--", "t"])
    data = json.loads(capsys.readouterr().out)
    assert data["exit_code"] == 2 and "has no option --python" in data["message"]


def test_an_unknown_option_alone_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        _split_own_options(["--nope"], TAKES, "tritondev run")
