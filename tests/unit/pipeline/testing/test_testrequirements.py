"""Reading upstream's test requirements: pip-api is found without being imported (its import starts a
process), and the script's answer is checked like every answer from inside the target."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bootstrap.core.target.inside import BadAnswer
from bootstrap.pipeline.testing.answers import requirements_file
from bootstrap.pipeline.testing.requirements import describe_missing, pip_api_root


def test_pip_api_is_found_without_importing_it() -> None:
    root = pip_api_root()  # the unit tier refuses any process: pip_api's import would start one
    assert (root / "pip_api" / "__init__.py").is_file()
    assert "pip_api" not in sys.modules


def test_the_answer_is_checked_and_what_is_missing_is_said() -> None:
    read = requirements_file(
        {
            "requirements": [
                {
                    "text": "pytest",
                    "name": "pytest",
                    "file": "/c/python/test-requirements.txt",
                    "line": 1,
                    "installed": "8.3.4",
                    "satisfied": True,
                },
                {
                    "text": "pandas<3.0",
                    "name": "pandas",
                    "file": "/c/python/test-requirements.txt",
                    "line": 2,
                    "installed": "3.0.1",
                    "satisfied": False,
                },
                {
                    "text": "scipy>=1.7.1",
                    "name": "scipy",
                    "file": "/c/python/test-requirements.txt",
                    "line": 3,
                    "installed": None,
                    "satisfied": False,
                },
            ],
            "invalid": [],
        }
    )
    assert [r.name for r in read.missing] == ["pandas", "scipy"]
    assert describe_missing(read.missing) == "pandas<3.0 (3.0.1 installed), scipy>=1.7.1"
    assert requirements_file({"error": "pip-api cannot be imported here: ..."}).error is not None


@pytest.mark.parametrize(
    "answer",
    [
        {"requirements": [{"text": "pytest", "name": "pytest", "satisfied": "yes"}]},
        {"requirements": [{"name": "pytest", "satisfied": True}]},
        {"requirements": "pytest"},
        {"requirements": [], "invalid": [{"file": "f", "line": "one", "text": "x", "error": "y"}]},
    ],
)
def test_an_answer_of_another_shape_is_a_bad_answer(answer: dict[str, object]) -> None:
    with pytest.raises(BadAnswer):
        requirements_file(answer)


def test_the_script_is_one_the_runner_can_start() -> None:
    from bootstrap.core.target import inside

    argv = inside.argv(Path("/venv/bin/python"), "tritondev_requirements.py", "/site", "-", isolated=True)
    assert argv[:3] == ["/venv/bin/python", "-I", "-B"]
    assert argv[3].endswith("bootstrap/core/target/scripts/tritondev_requirements.py")
