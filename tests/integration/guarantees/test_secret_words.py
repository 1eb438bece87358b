"""A password that is a common word (`triton`, a word of every key, path and step name tritondev writes)
is masked where it is, in the value that carries it, and nowhere else: end to end, a setup of your own
clone given `--ccache-remote redis://:triton@HOST` writes state that `config show`, `build` and the
next `setup` read back, and prints its report with tritondev's own words intact.

(The password once was masked wherever its text appeared: state/setup.json got `"***_src"` and
`"kind": "***dev-setup-state"`, and build then exited 2.)"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.integration.build.harness import base_env, tritondev
from tests.integration.guarantees.conftest import closed_port
from tests.world.build import LLVMBuild
from tests.world.world import World

pytestmark = pytest.mark.timeout(900)
WORD = "triton"


@pytest.mark.slow
def test_a_common_word_as_password_leaves_tritondevs_own_files_readable(
    world: World, mini_llvm: LLVMBuild, tmp_path: Path
) -> None:
    clone = tmp_path / "triton"
    subprocess.run(["git", "clone", "-q", str(world.bare["triton"]), str(clone)], check=True)
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    ws = tmp_path / "triton-ws"
    remote = f"redis://:{WORD}@127.0.0.1:{closed_port()}"
    common = ["--workspace", str(ws)]
    setup = tritondev(
        "setup",
        *common,
        "--triton-src",
        str(clone),
        "--mirror",
        str(world.git_root),
        "--llvm",
        str(mini_llvm.build),
        "--ccache-remote",
        remote,
        "--skip-verify",
        "--jobs",
        "2",
        "--json",
        env=env,
    )
    assert setup.returncode == 0, setup.stderr[-3000:]
    report = json.loads(setup.stdout)
    assert "triton-install" in [s["step"] for s in report["steps"]]
    # Only the password is masked (ccache is handed the Redis form without the empty user: redis://PASSWORD@).
    text = re.sub(r"redis://\*\*\*(:\*\*\*)?@", "redis://MASKED@", json.dumps(report))
    assert "***" not in text, [text[max(0, m.start() - 80) : m.start() + 40] for m in re.finditer(r"\*\*\*", text)]
    state = json.loads((ws / "state" / "setup.json").read_text())
    assert state["kind"] == "tritondev-setup-state" and state["triton_src"] == str(clone)
    assert all("***" not in json.dumps(v) for k, v in state.items() if k != "install")
    assert WORD in (ws / "state" / "setup.json").read_text()  # tritondev's own words stay
    saved = json.loads((ws / "state" / "settings.json").read_text())["settings"]
    assert saved["triton_src"] == str(clone)
    shown = json.loads(tritondev("config", "show", *common, "--json", env=env).stdout)
    assert shown["settings"]["triton_src"]["value"] == str(clone)
    assert shown["settings"]["ccache_remote"]["value"] is None  # the remote (with its password) is not remembered
    build = tritondev("build", *common, env=env)
    assert build.returncode == 0, build.stderr[-3000:]
    assert f":{WORD}@" not in setup.stdout + setup.stderr + build.stdout + build.stderr
    for path in ws.rglob("*"):
        if path.is_file() and not path.is_symlink() and "build" not in path.relative_to(ws).parts[:1]:
            assert f":{WORD}@" not in path.read_text(errors="replace"), path
