"""setup.py's build folder parked and put back per LLVM across a bisect's steps (bisect.builds): only
folders it made are removed, the libraries another folder linked since are removed so that ninja links
them again, and a record it cannot read changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from bootstrap.core.io.state_files import StateFiles
from bootstrap.pipeline.bisect.builds import BuildFolders, parked_name

PY = "3.11.7"
OLD, NEW = "a" * 40, "b" * 40  # LLVM pins


def configured(checkout: Path, llvm: Path) -> Path:
    """setup.py's build folder of `checkout`, configured against `llvm`, writing libtriton.so into _C."""
    folder = checkout / "build" / "cmake.linux-x86_64-cpython-3.11"
    folder.mkdir(parents=True)
    out = checkout / "python" / "triton" / "_C"
    out.mkdir(parents=True, exist_ok=True)
    (folder / "CMakeCache.txt").write_text(
        f"CMAKE_CACHEFILE_DIR:INTERNAL={folder}\nLLVM_SYSPATH:PATH={llvm}\n"
        f"CMAKE_LIBRARY_OUTPUT_DIRECTORY:UNINITIALIZED={out}\n"
    )
    (folder / "build.ninja").write_text(f"build {out / 'libtriton.so'}: CXX_SHARED_LIBRARY_LINKER lib.o\n")
    (out / "libtriton.so").write_text(f"linked against {llvm}")
    return folder


def test_a_folder_comes_back_for_its_llvm_and_the_library_another_one_linked_goes(tmp_path: Path) -> None:
    state, checkout = tmp_path / "state", tmp_path / "triton"
    state.mkdir()
    old_llvm, new_llvm = tmp_path / "llvm-old", tmp_path / "llvm-new"
    folder = configured(checkout, old_llvm)
    (folder / "obj.o").write_text("compiled against the old LLVM")
    (checkout / "python" / "triton" / "_C" / "notes.so.txt").write_text("not a library the build names")
    folders = BuildFolders(state)
    folders.begin(OLD, old_llvm)
    folders.prepare(checkout, PY, OLD)
    assert (folder / "obj.o").is_file()  # the right LLVM already: nothing moves
    folders.prepare(checkout, PY, NEW)  # a pin not seen yet, and the folder is the old LLVM's: parked
    parked = checkout / "build" / parked_name(str(old_llvm))
    assert not folder.exists() and (parked / "obj.o").is_file()
    configured(checkout, new_llvm)  # what setup.py makes for the new LLVM
    folders.learn(NEW, new_llvm)
    library = checkout / "python" / "triton" / "_C" / "libtriton.so"
    assert library.read_text() == f"linked against {new_llvm}"
    # The end (or a step back before the bump): the record read afresh, as after a Ctrl-C and `resume`.
    again = BuildFolders(state)
    assert again.start == OLD
    again.prepare(checkout, PY, again.start)
    assert (folder / "obj.o").is_file() and (checkout / "build" / parked_name(str(new_llvm))).is_dir()
    assert not library.exists()  # linked against the new LLVM: ninja links it again
    assert (checkout / "python" / "triton" / "_C" / "notes.so.txt").is_file()
    again.discard()
    assert sorted(p.name for p in (checkout / "build").iterdir()) == [folder.name]
    assert not StateFiles(state).bisect_builds.exists()


def test_only_its_own_parked_folders_are_removed_and_a_damaged_record_is_none(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    mine = tmp_path / "build" / "cmake.linux"  # not a name of ours, named in a crafted record: left alone
    mine.mkdir(parents=True)
    record = {"parked": {"/llvm": str(mine)}, "learnt": {}, "start": {"pin": ""}}
    StateFiles(state).bisect_builds.write_text(json.dumps(record))
    BuildFolders(state).discard()
    assert mine.is_dir()
    for text in ("not json", "[1, 2]", '{"parked": [1], "learnt": {"x": {"y": 1}}}'):
        StateFiles(state).bisect_builds.write_text(text)
        folders = BuildFolders(state)
        assert (folders.parked, folders.start) == ({}, None)
