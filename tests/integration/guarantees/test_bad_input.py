"""Bad input, for every command: a clear message with a fix, the documented exit code, no traceback,
and nothing changed on disk.

Each case is one row: the command line, what to prepare (a file, an environment variable, a full or
read-only filesystem, a PATH without a tool, a held lock, a server that drops the connection), the exit
code the README's table documents, and a piece of the message. The real CLI runs in a subprocess.
Before and after, the workspace, the user's target environment (a real venv with a Triton and an
unrelated distribution installed) and every other folder the case names are snapshotted (file
contents, modes, links); the snapshots must be equal. The one exception is a new file under
`<workspace>/logs/`: a failing command may leave the log its message points at.

All scratch paths contain spaces and non-ASCII letters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.integration.guarantees.conftest import ODD, TruncatingServer, can_mount
from tests.integration.guarantees.scene import (
    EXTERNAL,
    LOCKED,
    MISMATCH,
    TOOL,
    USAGE,
    Case,
    Scene,
    bad_journal,
    both,
    cache_dir,
    dirty_checkout,
    dump_dir_in_use,
    env,
    full_disk_out,
    full_disk_workspace,
    hold_lock,
    ir_dump,
    kernel_file,
    new_workspace,
    not_python,
    path_without,
    pyproject,
    read_only_workspace,
    real_triton,
    run_case,
    stale_cache_in_env,
    toml,
)
from tests.support.snapshot import diff, snapshot

# -- the table ----------------------------------------------------------------------------------------

SETUP = ("setup", "--workspace", "{ws}", "--python", "{py}", "--mirror", "{mirror}", "--jobs", "2")
SETUP_T = (*SETUP, "--triton-commit", "{T}")
PINS = ("pins", "--workspace", "{ws}", "--python", "{py}", "--mirror", "{mirror}")
BISECT = ("bisect", "triton", "--workspace", "{ws}", "--mirror", "{mirror}")

CASES: list[Case] = [
    # settings: the file, the environment, option values
    Case(
        "config-toml-syntax",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "is not valid TOML",
        toml('build_type = "Debug"\njobs = [\n'),
    ),
    Case(
        "config-toml-unknown-key",
        ("config", "show", "--workspace", "{ws}", "--json"),
        USAGE,
        "did you mean 'build_type'",
        toml('buildtype = "Debug"\n'),
        json=True,
    ),
    Case(
        "config-toml-wrong-type",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "invalid value 'many' for 'jobs'",
        toml('jobs = "many"\n'),
    ),
    Case(
        "config-toml-workspace-key",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "unknown key 'workspace'",
        toml('workspace = "/elsewhere"\n'),
    ),
    Case(
        "pyproject-bad-backend",
        ("pins", "--workspace", "{ws}"),
        USAGE,
        "expected one of nvidia, amd",
        pyproject('[project]\nname = "x"\n[tool.tritondev]\nbackend = "cuda"\n'),
    ),
    Case(
        "env-unknown-variable",
        ("doctor", "--workspace", "{ws}"),
        USAGE,
        "did you mean 'TRITONDEV_JOBS'",
        env(TRITONDEV_JOBZ="3"),
    ),
    Case(
        "env-bad-bool",
        ("setup", "--workspace", "{ws}", "--python", "{py}", "--dry-run"),
        USAGE,
        "expected true or false",
        env(TRITONDEV_CCACHE="maybe"),
    ),
    Case(
        "setup-build-type",
        (*SETUP, "--build-type", "Fast"),
        USAGE,
        "expected one of TritonRelBuildWithAsserts, Debug, RelWithDebInfo, Release",
    ),
    Case(
        "setup-llvm-build-type",
        (*SETUP, "--llvm-build-type", "MinSizeRel", "--json"),
        USAGE,
        "invalid value 'MinSizeRel'",
        json=True,
    ),
    Case("setup-backend", (*SETUP, "--backend", "cuda"), USAGE, "expected one of nvidia, amd"),
    Case("setup-jobs-zero", (*SETUP, "--jobs", "0"), USAGE, "must be 1 or more"),
    Case("setup-jobs-not-a-number", (*SETUP, "--jobs", "lots"), USAGE, "Invalid value for '--jobs'"),
    Case("setup-unknown-option", (*SETUP, "--buildtype", "Debug"), USAGE, "No such option"),
    Case(
        "setup-ccache-remote-url",
        (*SETUP_T, "--ccache-remote", "ftp://cache.example/x"),
        USAGE,
        "unsupported ccache remote URL",
    ),
    Case("setup-both-refs", (*SETUP_T, "--torch-ref", "v2.5.0"), USAGE, "exclude each other"),
    # pins, refs and URLs
    Case("setup-short-commit", (*SETUP, "--triton-commit", "abc123"), USAGE, "has 6 hex digits"),
    Case("setup-ref-like-option", (*SETUP, "--torch-ref", "--upload-pack=touch /tmp/x"), USAGE, "starts with '-'"),
    Case(
        "setup-ext-transport",
        (*SETUP_T, "--triton-url", "ext::sh -c touch% /tmp/pwned"),
        USAGE,
        "remote-helper transports",
    ),
    Case(
        "pins-bad-url-scheme",
        ("pins", "--workspace", "{ws}", "--pytorch-url", "ftp://example.com/pytorch.git", "--torch-ref", "v2.5.0"),
        USAGE,
        "ftp",
    ),
    Case(
        "setup-mirror-missing",
        ("setup", "--workspace", "{ws}", "--python", "{py}", "--mirror", "{tmp}/no mirror"),
        USAGE,
        "has no triton.git",
    ),
    Case("pins-malformed-pin", (*PINS, "--torch-ref", "v9.9.9-badpin", "--json"), MISMATCH, "39 hex digits", json=True),
    Case("setup-malformed-pin", (*SETUP, "--torch-ref", "v9.9.9-badpin"), MISMATCH, "39 hex digits"),
    Case("setup-empty-pin", (*SETUP, "--torch-ref", "v9.9.8-emptypin"), MISMATCH, "empty"),
    Case("pins-pin-with-trailing-text", (*PINS, "--torch-ref", "v9.9.7-garbage"), MISMATCH, "triton.txt"),
    Case("setup-unknown-pinned-commit", (*SETUP, "--torch-ref", "v9.9.4-unknownpin"), MISMATCH, "not in"),
    Case("pins-unknown-ref", (*PINS, "--torch-ref", "v7.7.7"), USAGE, "v7.7.7"),
    # the target environment
    Case(
        "setup-python-not-interpreter",
        (*SETUP_T[:3], "--python", "{notpy}", *SETUP_T[5:]),
        USAGE,
        "is not a working Python interpreter",
        not_python,
    ),
    Case(
        "setup-python-missing-new-workspace",
        (
            "setup",
            "--workspace",
            "{newws}",
            "--python",
            "{tmp}/no such python",
            "--mirror",
            "{mirror}",
            "--triton-commit",
            "{T}",
        ),
        USAGE,
        "does not exist",
        new_workspace,
    ),
    Case(
        "purge-python-not-interpreter-new-workspace",
        ("purge", "--workspace", "{newws}", "--python", "{notpy}"),
        USAGE,
        "is not a working Python interpreter",
        both(new_workspace, not_python),
    ),
    Case(
        "build-without-setup-new-workspace",
        ("build", "--workspace", "{newws}"),
        USAGE,
        "no finished `tritondev setup`",
        new_workspace,
    ),
    Case(
        "doctor-unknown-check-new-workspace",
        ("doctor", "--workspace", "{newws}", "--check", "gpu.drivr"),
        USAGE,
        "did you mean",
        new_workspace,
    ),
    Case(
        "pins-malformed-pin-new-workspace",
        ("pins", "--workspace", "{newws}", "--mirror", "{mirror}", "--torch-ref", "v9.9.8-emptypin"),
        MISMATCH,
        "empty",
        new_workspace,
    ),
    Case(
        "purge-python-not-interpreter",
        ("purge", "--workspace", "{ws}", "--python", "{notpy}", "--json"),
        USAGE,
        "is not a working Python interpreter",
        not_python,
        json=True,
    ),
    Case("purge-system-python", ("purge", "--workspace", "{ws}", "--python", "/usr/bin/python3"), USAGE, "--system"),
    Case(
        "verify-python-missing",
        ("verify", "--workspace", "{ws}", "--python", "{tmp}/nowhere/python"),
        USAGE,
        "does not exist",
    ),
    Case(
        "cache-python-not-interpreter",
        ("cache", "ls", "--dir", "{cache}", "--workspace", "{ws}", "--python", "{notpy}"),
        USAGE,
        "not a working Python",
        both(not_python, cache_dir),
    ),
    # the workspace: read-only, full, locked, someone's work in a checkout, a broken journal
    Case(
        "setup-read-only-workspace",
        ("setup", "--workspace", "{ro}", "--python", "{py}", "--mirror", "{mirror}", "--triton-commit", "{T}"),
        USAGE,
        "not writable",
        read_only_workspace,
        needs_mount=True,
    ),
    Case(
        "purge-read-only-workspace",
        ("purge", "--workspace", "{ro}", "--python", "{py}"),
        USAGE,
        "not writable",
        read_only_workspace,
        needs_mount=True,
    ),
    Case(
        "setup-full-disk",
        ("setup", "--workspace", "{full}", "--python", "{py}", "--mirror", "{mirror}", "--triton-commit", "{T}"),
        EXTERNAL,
        "No space left on device",
        full_disk_workspace,
        needs_mount=True,
    ),
    Case(
        "doctor-fix-full-disk",
        ("doctor", "--workspace", "{full}", "--python", "{py}", "--fix", "--check", "cache"),
        EXTERNAL,
        "No space left on device",
        both(full_disk_workspace, stale_cache_in_env),
        needs_mount=True,
    ),
    Case(
        "compile-out-on-full-disk",
        (
            "compile",
            "{kernel}::add_kernel",
            "--signature",
            "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32",
            "--constexpr",
            "BLOCK=64",
            "--target",
            "cuda:90",
            "--out",
            "{fullout}",
            "--workspace",
            "{ws}",
            "--python",
            "{tpy}",
        ),
        EXTERNAL,
        "No space left on device",
        both(kernel_file, full_disk_out, real_triton),
        needs_mount=True,
    ),
    Case("purge-locked", ("purge", "--workspace", "{ws}", "--python", "{py}"), LOCKED, "is locked", hold_lock),
    Case("setup-locked", (*SETUP_T, "--json"), LOCKED, "is locked", hold_lock, json=True),
    Case("build-locked", ("build", "--workspace", "{ws}"), LOCKED, "is locked", hold_lock),
    Case(
        "doctor-fix-locked",
        ("doctor", "--workspace", "{ws}", "--python", "{py}", "--fix"),
        LOCKED,
        "is locked",
        both(hold_lock, stale_cache_in_env),
    ),
    Case("setup-dirty-checkout", (*SETUP_T,), LOCKED, "setup.py", dirty_checkout),
    Case("build-without-setup", ("build", "--workspace", "{ws}"), USAGE, "no finished `tritondev setup`"),
    Case(
        "purge-restore-bad-journal",
        ("purge", "--workspace", "{ws}", "--python", "{py}", "--restore"),
        USAGE,
        "journal",
        bad_journal,
    ),
    # no network, an interrupted download, missing tools
    Case(
        "pins-no-network-git",
        (
            "pins",
            "--workspace",
            "{ws}",
            "--pytorch-url",
            "git://127.0.0.1:{closed}/pytorch.git",
            "--torch-ref",
            "v2.5.0",
        ),
        EXTERNAL,
        "127.0.0.1",
    ),
    Case(
        "pins-no-network-raw",
        (
            "pins",
            "--workspace",
            "{ws}",
            "--pytorch-url",
            "raw+http://127.0.0.1:{closed}",
            "--torch-ref",
            "v2.5.0",
            "--json",
        ),
        EXTERNAL,
        "127.0.0.1",
        json=True,
    ),
    Case(
        "setup-no-network",
        (
            "setup",
            "--workspace",
            "{ws}",
            "--python",
            "{py}",
            "--pytorch-url",
            "git://127.0.0.1:{closed}/pytorch.git",
            "--triton-url",
            "git://127.0.0.1:{closed}/triton.git",
            "--llvm-url",
            "git://127.0.0.1:{closed}/llvm-project.git",
        ),
        EXTERNAL,
        "127.0.0.1",
    ),
    Case(
        "pins-interrupted-download",
        ("pins", "--workspace", "{ws}", "--pytorch-url", "raw+{trunc}", "--torch-ref", "v2.5.0"),
        EXTERNAL,
        "127.0.0.1",
    ),
    Case("setup-without-cmake", (*SETUP_T,), TOOL, "cmake", path_without("cmake")),
    Case("pins-without-git", (*PINS, "--torch-ref", "v2.5.0"), TOOL, "git", path_without("git")),
    Case(
        "run-missing-command",
        ("run", "--workspace", "{ws}", "--", "no-such-program-xyz", "--flag"),
        TOOL,
        "no-such-program-xyz",
    ),
    Case(
        "docker-missing-engine",
        ("docker", "build", "--workspace", "{ws}", "--engine", "podman"),
        TOOL,
        "podman",
        path_without("podman", "docker", "buildah"),
    ),
    # the other commands' own inputs
    Case("doctor-unknown-check", ("doctor", "--workspace", "{ws}", "--check", "ptxas.arc"), USAGE, "did you mean"),
    Case(
        "doctor-bad-arch",
        ("doctor", "--workspace", "{ws}", "--arch", "sm_banana", "--json"),
        USAGE,
        "sm_banana",
        json=True,
    ),
    Case(
        "verify-bad-target",
        ("verify", "--workspace", "{ws}", "--python", "{py}", "--target", "cuda:abc"),
        USAGE,
        "cuda:abc",
    ),
    Case(
        "compile-bad-signature",
        (
            "compile",
            "{kernel}::add_kernel",
            "--signature",
            "x_ptr=*float99",
            "--target",
            "cuda:90",
            "--workspace",
            "{ws}",
            "--python",
            "{tpy}",
        ),
        USAGE,
        "float99",
        both(kernel_file, real_triton),
    ),
    Case(
        "compile-missing-file",
        (
            "compile",
            "{tmp}/nothing here.py::k",
            "--signature",
            "n=i32",
            "--target",
            "cuda:90",
            "--workspace",
            "{ws}",
            "--python",
            "{tpy}",
        ),
        USAGE,
        "does not exist",
        real_triton,
    ),
    Case(
        "compile-bad-target",
        (
            "compile",
            "{kernel}::add_kernel",
            "--signature",
            "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32",
            "--target",
            "cuda:banana",
            "--workspace",
            "{ws}",
            "--python",
            "{tpy}",
            "--json",
        ),
        USAGE,
        "cuda:banana",
        both(kernel_file, real_triton),
        json=True,
    ),
    Case(
        "compile-incomplete-triton",
        (
            "compile",
            "{kernel}::add_kernel",
            "--signature",
            "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32",
            "--constexpr",
            "BLOCK=64",
            "--target",
            "cuda:90",
            "--out",
            "{out}",
            "--workspace",
            "{ws}",
            "--python",
            "{py}",
        ),
        EXTERNAL,
        "is incomplete",
        kernel_file,
    ),
    Case("verify-without-torch", ("verify", "--workspace", "{ws}", "--python", "{py}"), TOOL, "torch"),
    Case(
        "cache-prune-no-rule", ("cache", "prune", "--dir", "{cache}", "--workspace", "{ws}"), USAGE, "rule", cache_dir
    ),
    Case(
        "cache-prune-bare-number",
        ("cache", "prune", "--older-than", "7", "--dir", "{cache}", "--workspace", "{ws}"),
        USAGE,
        "7",
        cache_dir,
    ),
    Case(
        "cache-show-unknown-entry",
        ("cache", "show", "nosuchkernel", "--dir", "{cache}", "--workspace", "{ws}"),
        USAGE,
        "nosuchkernel",
        cache_dir,
    ),
    Case("env-bad-shell", ("env", "--workspace", "{ws}", "--shell", "tcsh"), USAGE, "tcsh"),
    Case("env-bad-backend", ("env", "--workspace", "{ws}", "--dump-ir", "--backend", "cuda"), USAGE, "cuda"),
    Case("run-no-command", ("run", "--workspace", "{ws}"), USAGE, "command"),
    Case(
        "run-dump-dir-not-empty",
        ("run", "--workspace", "{ws}", "--dump-ir", "--dump-dir", "{dumps}", "--", "true"),
        USAGE,
        "not empty",
        dump_dir_in_use,
    ),
    Case("docker-bad-engine", ("docker", "build", "--workspace", "{ws}", "--engine", "lxc"), USAGE, "lxc"),
    # where LLVM comes from: --llvm, --llvm-prebuilt-url, TRITONDEV_LLVM
    Case("setup-llvm-typo", (*SETUP_T, "--llvm", "prebuild"), USAGE, "did you mean 'prebuilt'"),
    Case(
        "setup-llvm-typo-json", (*SETUP_T, "--llvm", "prebuild", "--json"), USAGE, "did you mean 'prebuilt'", json=True
    ),
    Case("setup-llvm-path-missing", (*SETUP_T, "--llvm", "{tmp}/no llvm build"), USAGE, "no such folder"),
    Case(
        "setup-llvm-path-missing-json",
        (*SETUP_T, "--llvm", "/nonexistent", "--json"),
        USAGE,
        "--llvm /nonexistent: no such folder",
        json=True,
    ),
    Case(
        "setup-llvm-prebuilt-url-ftp",
        (*SETUP_T, "--llvm-prebuilt-url", "ftp://x"),
        USAGE,
        "expected an http:// or https:// base URL",
    ),
    Case(
        "env-llvm-bogus",
        (*SETUP_T, "--json"),
        USAGE,
        "'bogus' for 'llvm' in TRITONDEV_LLVM",
        env(TRITONDEV_LLVM="bogus"),
        json=True,
    ),
    Case(
        "env-llvm-bogus-config",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "TRITONDEV_LLVM",
        env(TRITONDEV_LLVM="bogus"),
    ),
    # bisect
    Case("bisect-missing-good", (*BISECT, "--bad", "main", "--", "true"), USAGE, "Missing option '--good'"),
    Case(
        "bisect-bad-ref",
        (*BISECT, "--good", "v3..4", "--bad", "main", "--", "true"),
        USAGE,
        "--good 'v3..4' is rejected",
    ),
    Case(
        "bisect-ref-like-option-json",
        (*BISECT, "--good", "main", "--bad", "--upload-pack=x", "--json", "--", "true"),
        USAGE,
        "starts with '-'",
        json=True,
    ),
    Case("bisect-no-command", (*BISECT, "--good", "v3.4.0", "--bad", "main"), USAGE, "no command"),
    Case(
        "bisect-never-set-up",
        (*BISECT, "--good", "v3.4.0", "--bad", "main", "--json", "--", "true"),
        USAGE,
        "no finished `tritondev setup`",
        json=True,
    ),
    Case(
        "bisect-never-set-up-new-workspace",
        ("bisect", "llvm", "--workspace", "{newws}", "--good", "a", "--bad", "b", "--", "true"),
        USAGE,
        "no finished `tritondev setup`",
        new_workspace,
    ),
    # opt, ir diff, test lit
    Case(
        "opt-unknown-pass",
        ("opt", "tritongpu-colesce", "--dump", "{dump}", "--workspace", "{ws}"),
        USAGE,
        "did you mean 'tritongpu-coalesce'",
        ir_dump,
    ),
    Case(
        "opt-unknown-pass-json",
        ("opt", "tritongpu-colesce", "--dump", "{dump}", "--workspace", "{ws}", "--json"),
        USAGE,
        "unknown pass 'tritongpu-colesce'",
        ir_dump,
        json=True,
    ),
    Case(
        "opt-dump-missing",
        ("opt", "tritongpu-coalesce", "--dump", "{tmp}/no dump here", "--workspace", "{ws}", "--json"),
        USAGE,
        "does not exist",
        json=True,
    ),
    Case("opt-no-dump-in-workspace", ("opt", "tritongpu-coalesce", "--workspace", "{ws}"), USAGE, "no IR dump in"),
    Case(
        "ir-diff-dumps-missing",
        ("ir", "diff", "{tmp}/no dump a", "{tmp}/no dump b", "--workspace", "{ws}"),
        USAGE,
        "does not exist",
    ),
    Case(
        "ir-diff-dumps-missing-json",
        ("ir", "diff", "{dump}", "{tmp}/no dump b", "--workspace", "{ws}", "--json"),
        USAGE,
        "does not exist",
        ir_dump,
        json=True,
    ),
    Case("test-lit-without-build", ("test", "lit", "--workspace", "{ws}"), USAGE, "no Triton build in workspace"),
    Case(
        "test-interpret-without-build-json",
        ("test", "interpret", "--workspace", "{ws}", "--json"),
        USAGE,
        "no Triton build in workspace",
        json=True,
    ),
    Case(
        "test-lit-update-without-build",
        ("test", "lit", "--update", "{tmp}/x.mlir", "--workspace", "{ws}"),
        USAGE,
        "no Triton build in workspace",
    ),
    # your own clone: --triton-src
    Case("setup-triton-src-missing", (*SETUP, "--triton-src", "{tmp}/no clone here"), USAGE, "no such folder"),
    Case(
        "setup-triton-src-not-a-checkout-new-workspace",
        ("setup", "--workspace", "{newws}", "--python", "{py}", "--triton-src", "{tmp}", "--json"),
        USAGE,
        "is not a git checkout",
        new_workspace,
        json=True,
    ),
    Case(
        "setup-triton-src-with-a-commit",
        (*SETUP_T, "--triton-src", "{tmp}"),
        USAGE,
        "--triton-src builds your clone at its own HEAD",
    ),
    Case(
        "test-lit-without-build-json",
        ("test", "lit", "TritonGPU/coalesce.mlir", "--workspace", "{newws}", "--json"),
        USAGE,
        "no Triton build in workspace",
        new_workspace,
        json=True,
    ),
]


def test_at_least_thirty_cases_and_every_command() -> None:
    assert len(CASES) >= 30
    commands = {c.argv[0] for c in CASES}
    assert commands >= {
        "config",
        "pins",
        "purge",
        "setup",
        "build",
        "doctor",
        "verify",
        "compile",
        "cache",
        "env",
        "run",
        "docker",
        "bisect",
        "opt",
        "ir",
        "test",
    }
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, scene: Scene, cli: Cli, truncating_server: TruncatingServer) -> None:
    run_case(case, scene, cli, truncating_server.base_url)


READ_ONLY = [
    ("config", "show", "--workspace", "{newws}"),
    ("pins", "--workspace", "{newws}", "--mirror", "{mirror}", "--torch-ref", "v2.12.1", "--json"),
    ("doctor", "--workspace", "{newws}", "--python", "{py}", "--json"),
    ("doctor", "--workspace", "{newws}", "--python", "{py}", "--fix", "--dry-run", "--check", "packages"),
    ("verify", "--workspace", "{newws}", "--python", "{py}"),
    ("cache", "ls", "--workspace", "{newws}", "--python", "{py}"),
    ("env", "--workspace", "{newws}", "--dump-ir"),
    (
        "setup",
        "--workspace",
        "{newws}",
        "--python",
        "{py}",
        "--mirror",
        "{mirror}",
        "--triton-commit",
        "{T}",
        "--dry-run",
    ),
    ("purge", "--workspace", "{newws}", "--python", "{py}", "--dry-run"),
    ("docker", "build", "--workspace", "{newws}", "--engine", "podman", "--dry-run"),
    ("ir", "diff", "{dump}", "{dump}", "--workspace", "{newws}", "--json"),
    ("opt", "tritongpu-coalesce", "--dump", "{dump}", "--workspace", "{newws}", "--dry-run"),
]
# The one exception, and all of it: `opt --dry-run` writes the replay's input (input.mlir) and the dump's own
# diff across the pass (pass.diff) into the replay folder, so that the printed triton-opt command can be run.
OPT_REPLAY = "{dump}/opt/0010-tritongpu-coalesce"
WRITES = {
    "opt": (
        "added " + OPT_REPLAY[: -len("/0010-tritongpu-coalesce")],
        "added " + OPT_REPLAY,
        f"added {OPT_REPLAY}/input.mlir",
        f"added {OPT_REPLAY}/pass.diff",
    )
}


@pytest.mark.parametrize(
    "argv", READ_ONLY, ids=[" ".join(a[:2]) + (" --dry-run" if "--dry-run" in a else "") for a in READ_ONLY]
)
def test_reading_and_dry_runs_change_nothing(argv: tuple[str, ...], scene: Scene, cli: Cli) -> None:
    """Commands that only read, and every --dry-run, leave the disk as it was: not even the workspace
    folder is created; the target environment and HOME are untouched (whatever their exit code). The
    one exception is `opt --dry-run`: exactly the two files of its replay folder (WRITES)."""
    new_workspace(scene)
    ir_dump(scene)
    home = scene.tmp.parent / "home"  # the cli fixture's HOME: ~/.cache, ~/.triton must stay as they were
    roots = [scene.venv, scene.tmp, home]
    before = snapshot(*roots)
    proc = cli(*[part.format(**scene.fields) for part in argv], cwd=scene.tmp, timeout=300)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-3000:]
    assert proc.returncode in (0, 1, 3), proc.stderr[-3000:]  # 1: doctor's findings, 3: verify without torch
    expected = [change.format(**scene.fields) for change in WRITES.get(argv[0], ())]
    assert diff(before, snapshot(*roots)) == sorted(expected)
    assert not Path(scene.fields["newws"]).exists(), f"{argv[0]} created the workspace"


def test_a_disk_that_fills_while_the_venv_is_made_is_a_full_disk(scene: Scene, cli: Cli) -> None:
    """setup's `python3 -m venv` on a disk with room for the workspace but not for a venv: exit 4 naming
    the full disk and how to go on, never "install the venv module" (a command's own output that says
    the disk is full decides the diagnosis, whatever else the caller expected to go wrong)."""
    if not can_mount():
        pytest.skip("needs root and mount(8) for a real full filesystem")
    where = scene.mount(f"small {ODD}", size="2m")
    ws = where / "ws"
    proc = cli(
        "setup",
        "--workspace",
        str(ws),
        "--mirror",
        scene.fields["mirror"],
        "--triton-commit",
        scene.fields["T"],
        "--llvm",
        "source",
        cwd=scene.tmp,
        timeout=300,
    )
    assert proc.returncode == EXTERNAL, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    error = next(line for line in proc.stderr.splitlines() if line.startswith("error:"))
    assert "-m venv" in error and "the disk is full (0 KiB free on the filesystem of" in error, proc.stderr
    assert "python3-venv" not in proc.stderr
    assert "fix: free disk space" in proc.stderr
