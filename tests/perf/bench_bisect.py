"""`tritondev bisect` beside a hand `git bisect run` with a rebuild script, on the same ranges of the
test world (real builds of the mini LLVM and Triton), with what a user feels: commits bisected,
builds done, LLVM builds done, wall time, and the commit each names.

1. 16 Triton commits with a constant LLVM pin (one commit does not compile, one is the regression);
2. 8 Triton commits across an LLVM bump (then a regression).

tritondev: `setup` at the good commit, then `tritondev bisect triton --good G --bad B -- python
check_add.py` (each step an incremental build, each LLVM pin built once, the starting build put
back at the end).

By hand, what a careful developer scripts: full clones of Triton and llvm-project, an LLVM build
folder and a Triton build of the good commit made beforehand (not timed, as setup's are not), then
`git bisect start B G; git bisect run ./rebuild.sh` where rebuild.sh, at each commit, rebuilds LLVM in
its one build folder when the commit's pin differs from the LLVM built last (setup's own configure
command), runs `pip install --no-build-isolation -e .` (incremental: the build folder is kept), exits
125 (skip) when a build fails, and runs the test. ccache is warm for both sides (the setup before
them filled it).

Each ratio is the median of ROUNDS rounds, each in a workspace, LLVM build registry, ccache and hand
folders of its own (a second bisect in the same ones would find the bumped LLVM already built), the
two sides paired within a round and taking turns at going first, so that a machine that slows
down in the middle of a run moves both sides of a round alike.

Run: python tests/perf/run.py bisect
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.integration.build.harness import base_env  # noqa: E402
from tests.support.cli import tritondev_argv  # noqa: E402
from tests.world.bisect_world import CHECK_ADD, BisectWorld, Range, build_bisect_world  # noqa: E402

GOAL_RATIO = 1.5  # tritondev's wall time may be at most this many times the hand bisect's
ROUNDS = 3  # independent rounds per figure: one round moved from 1.18 to 1.80 from run to run

REBUILD = """#!/usr/bin/env bash
# One step of a hand bisect: the commit's LLVM when its pin changed, Triton (incremental), the test.
set -u
hand={hand}
pin=$({python} -c 'import json; print(json.load(open("cmake/llvm-info.json"))["llvm_hash"])')
if [ "$pin" != "$(cat "$hand/llvm-built")" ]; then
  git -C "$hand/llvm-project" checkout -q --detach "$pin" || exit 125
  {configure} >>"$hand/llvm.log" 2>&1 || exit 125
  ninja -C "$hand/llvm-build" >>"$hand/llvm.log" 2>&1 || exit 125
  echo "$pin" >"$hand/llvm-built"
  echo "$pin" >>"$hand/llvm-builds"
fi
git rev-parse HEAD >>"$hand/builds"
{install} >>"$hand/pip.log" 2>&1 || exit 125
cd {cwd} && {python} check_add.py
"""


@dataclass(frozen=True)
class Bisected:
    """What one bisect did, as a user sees it."""

    commits: int  # commits in the range
    builds: int  # Triton builds tried (a commit that does not build counts)
    llvm_builds: int
    seconds: float
    first_bad: str

    def describe(self) -> str:
        return (
            f"{self.builds} builds, {self.llvm_builds} LLVM builds, {self.seconds:.1f} s, "
            f"first bad {self.first_bad[:8]}"
        )


def _run(
    argv: list[str], env: dict[str, str], cwd: Path | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


def _tritondev(args: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    proc = _run(tritondev_argv(*args), env, cwd)
    result: dict[str, Any] = json.loads(proc.stdout) if "--json" in args else {}
    return result


def tritondev_bisect(common: list[str], rng: Range, env: dict[str, str], cwd: Path) -> Bisected:
    started = time.perf_counter()
    report = _tritondev(
        ["bisect", "triton", *common, "--good", rng.good, "--bad", rng.bad, "--json", "--", "python", "check_add.py"],
        env,
        cwd,
    )
    seconds = time.perf_counter() - started
    return Bisected(
        report["range"], len(report["steps"]), report["llvm_builds"], seconds, report["first_bad"]["commit"]
    )


class Hand:
    """A hand bisect's clones, build folders and rebuild script, made before anything is timed."""

    def __init__(self, root: Path, ws: Path, env: dict[str, str], cwd: Path, urls: dict[str, str]) -> None:
        state = json.loads((ws / "state" / "setup.json").read_text())
        self.root, self.env, self.python = root, env, state["python"]
        self.start = ""  # the commit the hand's Triton starts at (prepare)
        self.triton, self.llvm, self.build = root / "triton", root / "llvm-project", root / "llvm-build"
        for name, path in (("triton", self.triton), ("llvm-project", self.llvm)):
            _run(["git", "clone", "-q", urls[name], str(path)], env)
        build_env = {
            **env,
            **dict(state["install"]["env"]),
            "LLVM_SYSPATH": str(self.build),
            "LLVM_INCLUDE_DIRS": str(self.build / "include"),
            "LLVM_LIBRARY_DIR": str(self.build / "lib"),
        }
        configure = self._configure_command(ws)
        install = [self.python, "-m", "pip", "install", "--no-build-isolation", "-e", "."]
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(build_env.items()) if env.get(k) != v)
        self.script = root / "rebuild.sh"
        self.script.write_text(
            REBUILD.format(
                hand=shlex.quote(str(root)),
                python=shlex.quote(self.python),
                configure=shlex.join(configure),
                cwd=shlex.quote(str(cwd)),
                install=f"env {exports} {shlex.join(install)}",
            )
        )
        self.script.chmod(0o755)

    def _configure_command(self, ws: Path) -> list[str]:
        """setup's own LLVM configure command (state/triton-dev.sh), for the hand's clone and folder."""
        script = f'source "{ws}/state/triton-dev.sh"; printf "%s\\0" "${{TRITON_DEV_LLVM_CONFIGURE[@]}}"'
        argv = [a for a in _run(["bash", "-c", script], self.env).stdout.split("\0") if a]
        argv[argv.index("-S") + 1] = str(self.llvm / "llvm")
        argv[argv.index("-B") + 1] = str(self.build)
        return argv

    def prepare(self, good: str) -> None:
        """The starting point a developer has: LLVM and Triton built at the good commit (not timed)."""
        _run(["git", "-C", str(self.triton), "checkout", "-q", "--detach", good], self.env)
        self.start = _run(["git", "-C", str(self.triton), "rev-parse", "HEAD"], self.env).stdout.strip()
        (self.root / "llvm-built").write_text("none\n")
        if _run([str(self.script)], self.env, self.triton, check=False).returncode not in (0, 1):
            raise RuntimeError(f"the hand build of {good[:12]} failed: {(self.root / 'pip.log').read_text()[-2000:]}")

    def put_back(self) -> float:
        """Seconds to rebuild the commit `git bisect reset` returned to, as a developer must to use it again:
        the script at that commit (LLVM rebuilt in place when the last step's pin was another)."""
        head = _run(["git", "-C", str(self.triton), "rev-parse", "HEAD"], self.env).stdout.strip()
        if head != self.start:
            raise RuntimeError(f"git bisect reset left the hand's Triton at {head[:12]}, not {self.start[:12]}")
        started = time.perf_counter()
        if _run([str(self.script)], self.env, self.triton, check=False).returncode not in (0, 1):
            raise RuntimeError(
                f"the hand rebuild after the bisect failed: {(self.root / 'pip.log').read_text()[-2000:]}"
            )
        seconds = time.perf_counter() - started
        # What was put back: the LLVM built last is the starting commit's pin, and pip sees Triton installed.
        pin = json.loads((self.triton / "cmake" / "llvm-info.json").read_text())["llvm_hash"]
        if (self.root / "llvm-built").read_text().strip() != pin:
            raise RuntimeError(f"the hand rebuild left another LLVM than the starting commit's pin {pin[:12]}")
        _run([self.python, "-m", "pip", "show", "triton"], self.env)
        return seconds

    def bisect(self, rng: Range) -> Bisected:
        for name in ("builds", "llvm-builds"):
            (self.root / name).write_text("")
        started = time.perf_counter()
        _run(["git", "-C", str(self.triton), "bisect", "start", rng.bad, rng.good], self.env)
        out = _run(["git", "-C", str(self.triton), "bisect", "run", str(self.script)], self.env).stdout
        seconds = time.perf_counter() - started
        _run(["git", "-C", str(self.triton), "bisect", "reset"], self.env)
        first = next(line.split()[0] for line in out.splitlines() if line.endswith("is the first bad commit"))
        count = [len((self.root / n).read_text().split()) for n in ("builds", "llvm-builds")]
        return Bisected(len(rng.commits), count[0], count[1], seconds, first)


@dataclass(frozen=True)
class Round:
    """One round: both bisects by tritondev and by hand, in folders of its own."""

    constant: Bisected
    bump: Bisected
    hand_constant: Bisected
    hand_bump: Bisected
    hand_put_back: float  # seconds for the hand to rebuild the starting commit after the bump's bisect


def _row(what: str, pairs: list[tuple[Bisected, Bisected]], llvm_goal: str, llvm_ok: bool) -> dict[str, object]:
    """The median of the rounds' ratios (tritondev / hand, paired within a round), and the round it came from."""
    ratios = [tool.seconds / hand.seconds for tool, hand in pairs]
    ratio = statistics.median(ratios)
    tool, hand = pairs[min(range(len(ratios)), key=lambda i: abs(ratios[i] - ratio))]
    same = all(t.first_bad == h.first_bad for t, h in pairs)
    rounds = ", ".join(f"{r:.2f}" for r in ratios)
    return {
        "metric": f"bisect of {tool.commits} commits {what}: tritondev bisect / hand `git bisect run` with "
        f"a rebuild script, wall time, median of {len(pairs)} rounds",
        "measured": f"{ratio:.2f} ({rounds}); its round: tritondev {tool.describe()}; hand {hand.describe()}",
        "goal": f"<= {GOAL_RATIO}, same commit, LLVM builds {llvm_goal}",
        "pass": ratio <= GOAL_RATIO and same and llvm_ok,
    }


def one_round(root: Path, bw: BisectWorld, cwd: Path, hand_first: bool) -> Round:
    """Setup at the good commit and a hand build of it (neither timed), then both bisects of each side;
    the hand's first when `hand_first`. The round's own ccache is warmed by its setup, as in a single
    round: a cache shared by rounds would hold the later rounds' LLVM build of the bump for setup's
    workspace (it gives LLVM's build the workspace as ccache's base folder) and not for the hand's."""
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=root / "ccache")
    ws = root / "ws"
    common = ["--workspace", str(ws), "--mirror", str(bw.world.git_root), "--jobs", "2", "--link-jobs", "2"]
    _tritondev(["setup", *common, "--llvm", "source", "--triton-commit", bw.triton.good], env, cwd)
    hand = Hand(root / "hand", ws, env, cwd, {n: bw.world.url(n) for n in ("triton", "llvm-project")})
    hand.prepare(bw.triton.good)

    def by_tritondev() -> tuple[Bisected, Bisected]:
        return tritondev_bisect(common, bw.triton, env, cwd), tritondev_bisect(common, bw.bump, env, cwd)

    def by_hand() -> tuple[Bisected, Bisected, float]:
        return hand.bisect(bw.triton), hand.bisect(bw.bump), hand.put_back()

    if hand_first:
        hand_constant, hand_bump, hand_put_back = by_hand()
        constant, bump = by_tritondev()
    else:
        constant, bump = by_tritondev()
        hand_constant, hand_bump, hand_put_back = by_hand()
    for found, rng in ((constant, bw.triton), (bump, bw.bump)):
        if found.first_bad != rng.labels["regression"]:
            raise RuntimeError(f"tritondev bisect named {found.first_bad}, not {rng.labels['regression']}")
    return Round(constant, bump, hand_constant, hand_bump, hand_put_back)


def measure(root: Path) -> list[dict[str, object]]:
    bw = build_bisect_world(root / "world")
    cwd = root / "cwd"
    cwd.mkdir()
    (cwd / "check_add.py").write_text(CHECK_ADD)
    rounds = [one_round(root / f"round-{i}", bw, cwd, hand_first=i % 2 == 1) for i in range(ROUNDS)]
    return [
        _row(
            "(constant LLVM pin, one commit that does not build)",
            [(r.constant, r.hand_constant) for r in rounds],
            "0",
            all(r.constant.llvm_builds == 0 for r in rounds),
        ),
        _row(
            "across an LLVM bump",
            [(r.bump, r.hand_bump) for r in rounds],
            "1 (each pin once), <= hand's",
            all(r.bump.llvm_builds == 1 and r.bump.llvm_builds <= r.hand_bump.llvm_builds for r in rounds),
        ),
        _put_back_row(rounds),
    ]


def _put_back_row(rounds: list[Round]) -> dict[str, object]:
    """For reference: tritondev's bisect ends with the starting build installed again, the hand's with the last
    step's; the hand's time here includes rebuilding the starting commit (LLVM at its pin, then Triton)."""
    ratios = [r.bump.seconds / (r.hand_bump.seconds + r.hand_put_back) for r in rounds]
    ratio = statistics.median(ratios)
    put_back = statistics.median(r.hand_put_back for r in rounds)
    return {
        "metric": "  the same, the starting build put back on both sides (the hand: its script again at the commit"
        " `git bisect reset` returns to), median of rounds",
        "measured": f"{ratio:.2f} ({', '.join(f'{x:.2f}' for x in ratios)}); the hand's rebuild {put_back:.1f} s",
        "goal": "- (reference)",
        "pass": True,
    }


def run() -> list[dict[str, object]]:
    root = Path(tempfile.mkdtemp(prefix="tritondev-bench-bisect-"))
    try:
        return measure(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for row in run():
        print(row)
