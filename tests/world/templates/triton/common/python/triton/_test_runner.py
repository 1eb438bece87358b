"""Run Triton test suites and globally coordinated compile warmup.

Test world: a miniature of python/triton/_test_runner.py of triton-lang/triton main after #11098
(df7fa7bd; read at 1d2da15d), which the Makefile's test-unit, test-gluon, test-gsan and test-warmup
run. The same command line (`warmup`, `suite {unit,gluon,gsan}`, `report`, the same options and their
environment defaults) and the same pytest commands in shape: `-p triton._compile_warmup -s --tb=short`,
`-n N --dist=...`, one JUnit XML report per pytest process in --junit-dir / TRITON_TEST_JUNIT_DIR, the
exit status of the first suite step that fails. The miniature counts GPUs without torch and has no
compiler pool."""

import argparse
import glob
import os
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMPORT_PATHS = (ROOT / "python" / "test" / "unit" / "language", )


def _pythonpath(environment):
    entries = [str(path) for path in IMPORT_PATHS]
    if environment.get("PYTHONPATH"):
        entries.append(environment["PYTHONPATH"])
    environment["PYTHONPATH"] = os.pathsep.join(entries)


def _pytest(*arguments, workers=None, import_mode=None, distribution="worksteal"):
    command = [sys.executable, "-m", "pytest", "-p", "triton._compile_warmup", "-s", "--tb=short"]
    if import_mode is not None:
        command.append(f"--import-mode={import_mode}")
    if workers is not None:
        command.extend(("-n", str(workers), f"--dist={distribution}"))
    if directory := os.environ.get("TRITON_TEST_JUNIT_DIR"):
        directory = Path(directory).resolve()
        directory.mkdir(parents=True, exist_ok=True)
        label = "unit"
        for target in arguments:
            if target.startswith("-") or ("/" not in target and not target.endswith(".py")):
                continue
            path = Path(target.rstrip("/"))
            label = path.stem.removeprefix("test_") if path.suffix else "-".join(path.parts[-2:])
            label = label.replace("_", "-")
            break
        command.append(f"--junitxml={directory / f'pytest-{label}-{uuid.uuid4().hex}-results.xml'}")
    command.extend(arguments)
    return command


def _environment(phase=None, num_gpus=None):
    environment = os.environ.copy()
    _pythonpath(environment)
    if phase is not None:
        environment["TRITON_CI_CACHE_PHASE"] = phase
    if num_gpus is not None:
        environment["TRITON_TEST_NUM_GPUS"] = str(num_gpus)
    return environment


def _run(command, *, phase=None, num_gpus=None, cwd=ROOT, environment=None):
    environment = environment or _environment(phase, num_gpus)
    return subprocess.run(command, cwd=cwd, env=environment, check=False).returncode


def _device_count():
    # Upstream asks torch.cuda.device_count(); the miniature counts the device files.
    return len(glob.glob("/dev/nvidia[0-9]*")) or len(glob.glob("/dev/dri/renderD*") if os.path.exists("/dev/kfd") else [])


def _validate_gpus(count):
    available = _device_count()
    if count < 1 or count > available:
        raise SystemExit(f"requested {count} GPU shards, but {available} CUDA devices are visible")


def _warmup(args):
    _validate_gpus(1)
    command = _pytest("--warmup-only", "--warmup-workers", str(args.warmup_procs), workers=args.capture_procs or 2,
                      import_mode="importlib")
    command.extend(args.targets or ("python/test/unit/language", ))
    return _run(command, phase="warmup-unit", num_gpus=1)


def _unit(args):
    _validate_gpus(args.num_gpus)
    status = _run(_pytest("--ignore-glob=plugins/*", workers=args.num_procs), phase="unit", num_gpus=args.num_gpus,
                  cwd=ROOT / "python" / "test" / "unit")
    if status:
        return status
    environment = _environment("instrumentation")
    environment.update({"TRITON_ALWAYS_COMPILE": "1", "TRITON_DISABLE_LINE_INFO": "0"})
    return _run(_pytest("--capture=tee-sys", "-rfs", "-vvv", "python/test/unit/instrumentation/test_gpuhello.py",
                        workers=1), environment=environment)


def _gluon(args):
    _validate_gpus(args.num_gpus)
    general_workers = min(args.num_procs, args.gluon_procs * args.num_gpus)
    status = _run(_pytest("python/test/gluon/", workers=general_workers), phase="gluon", num_gpus=args.num_gpus)
    if status:
        return status
    example_workers = min(args.num_procs, args.example_procs * args.num_gpus)
    return _run(_pytest("python/examples/gluon/", workers=example_workers, import_mode="importlib"),
                phase="gluon-examples", num_gpus=args.num_gpus)


def _gsan(args):
    environment = _environment("gsan")
    environment["TRITON_DISABLE_LINE_INFO"] = "0"
    workers = min(args.num_procs, 8 * args.num_gpus)
    return _run(_pytest("python/test/gsan", workers=workers, distribution="loadgroup"), environment=environment)


def _suite(args):
    if args.junit_dir is not None:
        os.environ["TRITON_TEST_JUNIT_DIR"] = args.junit_dir
    return {"unit": _unit, "gsan": _gsan, "gluon": _gluon}[args.name](args)


def _report(args):
    if args.directory is None:
        raise SystemExit("set TRITON_CI_COMPILE_TRACE_DIR or pass --directory")
    print("TRITON_CI_COMPILE_TRACE {}")
    return 0


def _main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    warmup = commands.add_parser("warmup", help="capture marked tests using one shared compiler pool")
    warmup.add_argument("--warmup-procs", type=int, default=int(os.environ.get("WARMUP_PROCS", "8")))
    warmup.add_argument("--capture-procs", type=int)
    warmup.add_argument("targets", nargs="*", help="optional marked pytest targets for focused warmup")
    warmup.set_defaults(run=_warmup)

    suite = commands.add_parser("suite", help="execute a dynamically scheduled test suite")
    suite.add_argument("name", choices=("unit", "gluon", "gsan"))
    suite.add_argument("--num-gpus", type=int, default=int(os.environ.get("NUM_GPUS", "1")))
    suite.add_argument("--num-procs", type=int, default=int(os.environ.get("NUM_PROCS", "8")))
    suite.add_argument("--gluon-procs", type=int, default=8)
    suite.add_argument("--consan-procs", type=int, default=4)
    suite.add_argument("--example-procs", type=int, default=4)
    suite.add_argument("--debug-procs", type=int, default=4)
    suite.add_argument("--kernel-procs", type=int)
    suite.add_argument("--junit-dir", default=os.environ.get("TRITON_TEST_JUNIT_DIR"),
                       help="write one JUnit XML report per pytest subprocess to this directory")
    suite.set_defaults(run=_suite)

    report = commands.add_parser("report", help="summarize cache coverage and validate completeness")
    report.add_argument("--directory", default=os.environ.get("TRITON_CI_COMPILE_TRACE_DIR"))
    report.add_argument("--require-complete", action="store_true")
    report.set_defaults(run=_report)

    args = parser.parse_args(argv)
    raise SystemExit(args.run(args))


if __name__ == "__main__":
    _main()
