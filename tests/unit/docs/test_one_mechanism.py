"""One mechanism per job (docs/architecture.md): a second way of doing one of these jobs fails here.

Each test reads bootstrap/ with ast and names the one module allowed to do the job; code elsewhere
that does it again by hand (a path joined onto state/, a `shutil.which("ptxas")`, a write of a
child's output to sys.stderr, a job count worked out from memory, a module global changed during a
run) is named with its file and line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.support.source_scan import parsed

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "bootstrap"


def sources() -> Iterator[tuple[str, ast.Module]]:
    """(path relative to the repository, parsed module) of every module of bootstrap/."""
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(REPO).as_posix(), parsed(path.read_text(encoding="utf-8"))


def where(path: str, node: ast.AST) -> str:
    return f"{path}:{getattr(node, 'lineno', '?')}"


# -- the workspace's state files ---------------------------------------------------------------------

STATE_OWNERS = ("bootstrap/core/io/workspace.py", "bootstrap/core/io/state_files.py")


def _state_file_names() -> set[str]:
    from bootstrap.core.io.state_files import StateFiles

    files = StateFiles(Path("/s"))
    names = {getattr(files, name).name for name, value in vars(StateFiles).items() if isinstance(value, property)}
    return names - {"steps"}  # a word of many JSON documents too; the folder is checked by its joins


def state_joins(path: str, tree: ast.Module) -> list[str]:
    """Paths into the state folder made by hand in one module: `x.state / name`, `state_dir / name`,
    `/ "state"`, or a state file's name."""
    names = _state_file_names()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = node.left, node.right
            if (
                (isinstance(left, ast.Attribute) and left.attr == "state")
                or (isinstance(left, ast.Name) and left.id in ("state", "state_dir"))
                or (isinstance(right, ast.Constant) and right.value == "state")
            ):
                found.append(f"{where(path, node)}: a path joined onto the state folder")
        if isinstance(node, ast.Constant) and node.value in names:
            found.append(f"{where(path, node)}: {node.value!r} named outside StateFiles")
    return found


def test_state_files_are_named_only_in_the_workspace_layout() -> None:
    """`<workspace>/state/...` is never joined by hand: every module asks bootstrap/core/io/state_files.py."""
    found = [line for path, tree in sources() if path not in STATE_OWNERS for line in state_joins(path, tree)]
    assert found == [], "use bootstrap.core.io.state_files.StateFiles:\n" + "\n".join(found)


def test_a_state_path_joined_by_hand_is_found() -> None:
    crafted = ast.parse(
        "a = ws.state / 'x.json'\nb = state_dir / NAME\nc = root / 'state' / 'y'\n"
        "d = folder / 'purge-journal.json'\ne = root / 'logs' / 'x.log'\n"
    )
    found = state_joins("m.py", crafted)
    assert [line.split(":")[1] for line in found] == ["1", "2", "3", "4"], found


# -- the purge --------------------------------------------------------------------------------------

PURGE_PLAN = "bootstrap/purge/run.py"
PURGE_STEPS = ("scan_environment", "plan_purge")  # with recorded_package_files: what plan_target does


def calls_of(tree: ast.Module, names: tuple[str, ...]) -> Iterator[tuple[ast.Call, str | None]]:
    """Each call of a function named in `names` (plain or as an attribute), with the function it is in."""

    def visit(node: ast.AST, owner: str | None) -> Iterator[tuple[ast.Call, str | None]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call):
                func = child.func
                called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if called in names:
                    yield child, owner
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else owner
            yield from visit(child, inner)

    yield from visit(tree, None)


def purge_plans(path: str, tree: ast.Module) -> list[str]:
    """Scans and plans of a purge made outside plan_target (bootstrap/purge/run.py)."""
    found = []
    for node, owner in calls_of(tree, PURGE_STEPS):
        if path != PURGE_PLAN or owner != "plan_target":
            found.append(f"{where(path, node)}: {ast.unparse(node.func)}() outside plan_target")
    return found


def test_every_purge_is_planned_by_plan_target() -> None:
    """`tritondev purge`, setup's purge of other distributions and `doctor --fix` plan from the same scan,
    the purge journal's saved files included: none scans or plans a purge of its own."""
    found = sorted({line for path, tree in sources() for line in purge_plans(path, tree)})
    assert found == [], "use bootstrap.purge.run.plan_target:\n" + "\n".join(found)


def test_a_purge_planned_elsewhere_is_found() -> None:
    crafted = ast.parse("def fix(t, r):\n    return plan_purge(purge.scan_environment(t, r))\n")
    assert len(purge_plans("bootstrap/doctor/fixers.py", crafted)) == 2
    planned = ast.parse("def plan_target(t, r):\n    return plan_purge(scan_environment(t, r))\n")
    assert purge_plans(PURGE_PLAN, planned) == []


# -- the kernel cache -------------------------------------------------------------------------------

CACHE_PACKAGE = "bootstrap/kernels/cache/"
# The cache's own reading and judging: the rest of tritondev asks for a judged report (inspect_cache,
# judge_cache) and plans and removes from it.
CACHE_INSIDE = ("scan", "read_entry", "stale_reasons", "with_staleness")


def cache_readings(path: str, tree: ast.Module) -> list[str]:
    """The kernel cache read or judged by hand: its scan or stale rule used directly, or a cache
    folder's files walked for the `tmp.pid_*` folders of Triton's unfinished writes."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bootstrap.kernels.cache"):
            found += [f"{where(path, node)}: imports {a.name}" for a in node.names if a.name in CACHE_INSIDE]
        if (
            isinstance(node, ast.Attribute)
            and node.attr in CACHE_INSIDE
            and isinstance(node.value, ast.Name)
            and node.value.id in ("kc", "cache", "kernel_cache")
        ):
            found.append(f"{where(path, node)}: {node.value.id}.{node.attr}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("tmp."):
            found.append(f"{where(path, node)}: {node.value!r} (a cache write's leftovers)")
    return found


def test_the_kernel_cache_is_read_and_judged_only_by_its_package() -> None:
    """`cache ls/prune`, doctor's cache checks and `doctor --fix` see one judged report of the cache:
    no other module scans it or decides what is stale."""
    found = [
        line for path, tree in sources() if not path.startswith(CACHE_PACKAGE) for line in cache_readings(path, tree)
    ]
    assert found == [], "use bootstrap.kernels.cache.judge_cache / inspect_cache:\n" + "\n".join(found)


def test_a_cache_read_by_hand_is_found() -> None:
    crafted = ast.parse(
        "from bootstrap.kernels.cache import scan, with_staleness\n"
        "half = [n for n in names if n.startswith('tmp.')]\nentries = kc.stale_reasons(e)\n"
    )
    assert len(cache_readings("bootstrap/doctor/checks/cache.py", crafted)) == 4


# -- NVIDIA's tools ---------------------------------------------------------------------------------

NVIDIA_LOOKUP = "bootstrap/kernels/nvidia_tools.py"
NVIDIA_TOOLS = ("ptxas", "ptxas-blackwell", "nvdisasm", "cuobjdump", "nvcc")
TOOLKIT_NAMES = ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")


def nvidia_lookups(path: str, tree: ast.Module) -> list[str]:
    """An NVIDIA tool or the CUDA toolkit looked for by hand: `which("ptxas")`, a toolkit variable read,
    a toolkit folder named."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            first = node.args[0] if node.args else None
            if called == "which" and isinstance(first, ast.Constant) and first.value in NVIDIA_TOOLS:
                found.append(f"{where(path, node)}: which({first.value!r})")
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and (node.value in TOOLKIT_NAMES or node.value.startswith(("/usr/local/cuda", "/opt/cuda")))
        ):
            found.append(f"{where(path, node)}: {node.value!r}")
    return found


def test_nvidia_tools_are_found_only_by_the_one_lookup() -> None:
    """compile, its ptxas retry, `cache show`, doctor's ptxas check and an offline build find ptxas,
    nvdisasm and the CUDA toolkit through bootstrap/kernels/nvidia_tools.py. The scripts that run in the
    target ask Triton for its own choice and are not a lookup of ours."""
    found = [
        line
        for path, tree in sources()
        if path != NVIDIA_LOOKUP and not path.startswith("bootstrap/core/target/scripts/")
        for line in nvidia_lookups(path, tree)
    ]
    assert found == [], "use bootstrap.kernels.nvidia_tools:\n" + "\n".join(found)


def test_an_nvidia_tool_looked_for_by_hand_is_found() -> None:
    crafted = ast.parse(
        "a = shutil.which('ptxas', path=p)\nb = environ.get('CUDA_HOME')\n"
        "c = Path('/usr/local/cuda') / 'bin'\nd = runner.which('nvdisasm')\ne = which(name)\n"
    )
    assert len(nvidia_lookups("bootstrap/doctor/checks/ptxas.py", crafted)) == 4


# -- a child's output on the terminal -----------------------------------------------------------------

# core/ui.py owns the terminal; cli.py's last-resort lines (an error before or without rich, a crash),
# the runner's default echo of a command line, and the scripts run inside the target interpreter
# (whose stdout is their answer) write to the streams themselves.
STREAM_WRITERS = ("bootstrap/core/ui.py", "bootstrap/cli.py", "bootstrap/core/process/runner_setup.py")


def _is_std_stream(node: ast.AST) -> bool:
    """`sys.stdout`, `sys.stderr`, or either's `.buffer`."""
    if isinstance(node, ast.Attribute) and node.attr == "buffer":
        return True
    return (
        isinstance(node, ast.Attribute)
        and node.attr in ("stdout", "stderr")
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def stream_writes(path: str, tree: ast.Module) -> list[str]:
    """Writes to the process's stdout or stderr made by hand: `sys.stderr.write(...)`,
    `sys.stdout.buffer.write(...)`, `print(..., file=sys.stderr)`."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("write", "writelines") and _is_std_stream(func.value):
            found.append(f"{where(path, node)}: {ast.unparse(func)}()")
        if isinstance(func, ast.Name) and func.id == "print":
            found += [
                f"{where(path, node)}: print(file=...)"
                for k in node.keywords
                if k.arg == "file" and _is_std_stream(k.value)
            ]
    return found


def test_a_childs_output_is_echoed_only_through_core_ui() -> None:
    """What a build, a test run, a bisect's command, docker or `tritondev run` prints reaches the
    terminal through bootstrap.core.ui.ChildOutput (masked, escaped, a closed reader ending the echo
    only), not through a write of a module's own."""
    found = [
        line
        for path, tree in sources()
        if path not in STREAM_WRITERS and not path.startswith("bootstrap/core/target/scripts/")
        for line in stream_writes(path, tree)
    ]
    assert found == [], "use bootstrap.core.ui.ChildOutput (or ui's other writers):\n" + "\n".join(found)


def test_an_echo_by_hand_is_found() -> None:
    crafted = ast.parse(
        "def show(line):\n    sys.stderr.write(line + '\\n')\n"
        "sys.stdout.buffer.write(b'x')\nprint(line, file=sys.stderr)\nlog.write(line)\n"
    )
    assert len(stream_writes("bootstrap/pipeline/bisect/steps.py", crafted)) == 3


# -- how many jobs a build runs ----------------------------------------------------------------------

JOBS_OWNER = "bootstrap/pipeline/host/jobs.py"
# What sizing is made of: the memory of a job, the CPU count, and the sizing steps below the entries
# (size_for_settings, size_for_build_types, memory_allows) that every caller uses.
JOB_PARTS = (
    "COMPILE_MEMORY",
    "LINK_MEMORY",
    "PREPROCESS_MEMORY",
    "cpu_count",
    "sched_getaffinity",
    "process_cpu_count",
    "size_jobs",
    "size_distributed",
)


def job_sizings(path: str, tree: ast.Module) -> list[str]:
    """A job count worked out by hand: a job's memory, the CPU count, or a sizing step used directly."""
    found = []
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if name in JOB_PARTS:
            found.append(f"{where(path, node)}: {name}")
        if isinstance(node, ast.ImportFrom) and node.module == "bootstrap.pipeline.host.jobs":
            found += [f"{where(path, node)}: imports {a.name}" for a in node.names if a.name in JOB_PARTS]
    return found


def test_job_counts_come_from_the_one_sizing() -> None:
    """setup, build, `config show` and doctor's memory checks size jobs through
    bootstrap/pipeline/host/jobs.py (size_for_settings, size_for_build_types, memory_allows)."""
    found = sorted({line for path, tree in sources() if path != JOBS_OWNER for line in job_sizings(path, tree)})
    assert found == [], "use bootstrap.pipeline.host.jobs:\n" + "\n".join(found)


def test_a_job_count_by_hand_is_found() -> None:
    crafted = ast.parse(
        "from bootstrap.pipeline.host.jobs import COMPILE_MEMORY\n"
        "safe = mem // COMPILE_MEMORY['Debug']\nn = os.cpu_count()\nj = jobs.size_jobs(r, 'Debug')\n"
    )
    assert len(job_sizings("bootstrap/doctor/checks/settings.py", crafted)) == 4


# -- state of a run -------------------------------------------------------------------------------------

MUTATORS = {
    "append",
    "appendleft",
    "extend",
    "insert",
    "pop",
    "popleft",
    "remove",
    "clear",
    "add",
    "discard",
    "update",
    "setdefault",
    "popitem",
    "sort",
    "reverse",
}
# Module globals that do change, each for a reason that is not a run's.
ALLOWED_GLOBALS = {
    ("bootstrap/core/run_state.py", "_RUN"): "the run in progress itself, replaced whole by start()",
    ("bootstrap/doctor/registry.py", "REGISTRY"): "filled while the check modules are imported: the same for every run",
}


def _module_names(tree: ast.Module) -> set[str]:
    """Names bound at module level to a value that could change: a list, dict or set, or any object made
    by a call (an instance whose attributes could be set)."""
    names = set()
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign) and node.value is not None
            else []
        )
        value = getattr(node, "value", None)
        if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.Call)):
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def _imported_names(tree: ast.Module, owners: dict[str, set[str]]) -> dict[str, str]:
    """local name -> `module:NAME` for each changeable module global another module imports by name."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bootstrap"):
            path = "bootstrap/" + "/".join(node.module.split(".")[1:]) + ".py"
            found |= {a.asname or a.name: f"{path}:{a.name}" for a in node.names if a.name in owners.get(path, ())}
    return found


def changed_globals(path: str, tree: ast.Module, owners: dict[str, set[str]]) -> list[str]:
    """Module globals changed in this module: `global` rebinding, a container's mutating method, an item
    or attribute set on it (its own globals, and those it imports by name)."""
    watched = {name: f"{path}:{name}" for name in owners.get(path, ())} | _imported_names(tree, owners)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found += [f"{where(path, node)}: global {name}" for name in node.names]
        changed: ast.AST | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            changed = node.func.value
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            changed = next((t.value for t in targets if isinstance(t, (ast.Subscript, ast.Attribute))), None)
        if isinstance(changed, ast.Name) and changed.id in watched:
            owner, _, name = watched[changed.id].partition(".py:")
            if (owner + ".py", name) not in ALLOWED_GLOBALS:
                found.append(f"{where(path, node)}: changes {watched[changed.id]}")
    return found


def test_no_module_global_changes_during_a_run() -> None:
    """What a run keeps is a part of the run (bootstrap/core/run_state.py), so a second run in one process
    starts clean (tests/unit/core/test_run_state.py): no module keeps a global it changes. The scripts
    run inside the target are programs of their own, one process per question."""
    trees = {path: tree for path, tree in sources() if not path.startswith("bootstrap/core/target/scripts/")}
    owners = {path: _module_names(tree) for path, tree in trees.items()}
    found = [line for path, tree in trees.items() for line in changed_globals(path, tree, owners)]
    assert found == [], "keep it in a part of the run (bootstrap.core.run_state.part):\n" + "\n".join(found)


def test_a_changed_global_is_found() -> None:
    crafted = ast.parse(
        "SEEN = []\nCURRENT = Invocation()\nFIXED = ('a',)\n"
        "def f(x):\n    global COUNT\n    SEEN.append(x)\n    CURRENT.json = True\n"
        "    FIXED[0]\n    local = []\n    local.append(x)\n"
    )
    owners = {"bootstrap/m.py": _module_names(crafted)}
    assert owners["bootstrap/m.py"] == {"SEEN", "CURRENT"}
    assert len(changed_globals("bootstrap/m.py", crafted, owners)) == 3
    other = ast.parse("from bootstrap.m import CURRENT\ndef g():\n    CURRENT.workspace = None\n")
    assert len(changed_globals("bootstrap/n.py", other, owners)) == 1
