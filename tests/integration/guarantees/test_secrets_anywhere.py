"""A property over credentials: any URL-shaped string with credentials (a password of any characters but a
line break and `@`, a token as the user part, GitHub's TOKEN:x-oauth-basic form), given in any position
(an option, a TRITONDEV_* variable, tritondev.toml, pip's index variables, a command's arguments), never
appears in any output (stdout, stderr, --json) nor in any file tritondev writes (logs, state, journals).
Real CLI runs in subprocesses; hypothesis draws the secrets and where they go.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.integration.guarantees.conftest import ODD, closed_port
from tests.world.world import World

passwords = st.text(alphabet=st.sampled_from(list("abcXYZ019'\"\\ $%:/?#;&|=-_.~é")), min_size=4, max_size=14).map(
    lambda s: "Qz9" + s + "9zQ"
)
tokens = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEF0123456789", min_size=20, max_size=30).map(
    lambda s: "ghp_" + s
)
forms = st.sampled_from(["password", "token-user", "oauth-basic"])
places = st.sampled_from(["option", "env", "toml", "pip-index", "command"])


def credential_url(form: str, password: str, token: str, port: int) -> tuple[str, str]:
    if form == "password":
        return f"http://user:{password}@127.0.0.1:{port}/pytorch.git", password
    if form == "token-user":
        return f"http://{token}@127.0.0.1:{port}/pytorch.git", token
    return f"http://{token}:x-oauth-basic@127.0.0.1:{port}/pytorch.git", token


def written(ws: Path) -> str:
    """Every file in the workspace but the user's own tritondev.toml (where the test put the secret)."""
    return "\n".join(
        p.read_text(errors="replace")
        for p in ws.rglob("*")
        if p.is_file() and not p.is_symlink() and p.name != "tritondev.toml"
    )


@pytest.mark.slow
@pytest.mark.timeout(1800)
@settings(database=None, deadline=None, max_examples=20, suppress_health_check=list(HealthCheck))
@given(form=forms, password=passwords, token=tokens, place=places)
def test_no_credential_in_any_output_or_file(
    form: str, password: str, token: str, place: str, cli: Cli, world: World, target_venv: Path
) -> None:
    url, secret = credential_url(form, password, token, closed_port())
    with tempfile.TemporaryDirectory(prefix="tritondev-secrets-") as tmp:
        ws = Path(tmp) / ODD / "ws"
        (ws / "state").mkdir(parents=True)
        env: dict[str, str] = {}
        argv = ["pins", "--workspace", str(ws), "--torch-ref", "v2.5.0"]
        if place == "option":
            argv += ["--pytorch-url", url]
        elif place == "env":
            env["TRITONDEV_PYTORCH_URL"] = url
        elif place == "toml":
            (ws / "tritondev.toml").write_text(f"pytorch_url = {json.dumps(url)}\n", encoding="utf-8")
        elif place == "pip-index":
            env["PIP_INDEX_URL"] = url
            env["PIP_EXTRA_INDEX_URL"] = url
            argv = [
                "purge",
                "--workspace",
                str(ws),
                "--python",
                str(target_venv / "bin" / "python"),
                "--dry-run",
                "--json",
                "--restore",
            ]
            (ws / "state" / "purge-journal.json").write_text("[1]")  # an error that quotes the journal
        else:
            # What tritondev itself prints of a command (the command's own output goes to the terminal
            # straight, tritondev does not stand between them: docs/safety.md).
            argv = ["run", "--workspace", str(ws), "--dry-run", "-v", "--", "git", "fetch", url]
        for output in ("--json", None):
            run = [*argv, output] if output and "--json" not in argv and argv[0] != "run" else argv
            proc = cli(*run, env=env, timeout=300)
            shown = proc.stdout + proc.stderr
            assert proc.returncode != 70 and "Traceback" not in shown, shown[-3000:]
            assert url not in shown and secret not in shown, (place, shown[-3000:])
            on_disk = written(ws)
            assert secret not in on_disk and url not in on_disk, place
