"""CMake text of the generated libraries (see sources.py): one CMakeLists.txt per library and tool,
and the lines appended to the mini trees' own CMakeLists.txt files that add them."""

from __future__ import annotations

from tests.perf.scale.sources import LLVM_TOOLS, MLIR_TOOLS, TARGET_LIBRARIES, TRITON_TOOLS, Library, Plan

MARK = "# ---- Generated for the benchmark world (tests/perf/scale) "

TABLEGEN_CMAKE = """\
# llvm_tablegen(<input.td> <output.inc> <backend>): generate a header at build time with llvm-tblgen,
# which this same build compiles first, as LLVM's TableGen.cmake does.
function(llvm_tablegen td out backend)
  get_filename_component(dir ${out} DIRECTORY)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND llvm-tblgen ${backend} ${td} -o ${out}
    DEPENDS llvm-tblgen ${td}
    COMMENT "Building ${out}...")
endfunction()
"""

TBLGEN_CMAKE = """\
llvm_add_executable(llvm-tblgen EXPORT LLVMExports SOURCES llvm-tblgen.cpp)
if(LLVM_OPTIMIZED_TABLEGEN)
  target_compile_options(llvm-tblgen PRIVATE -O2)
endif()
"""


def _sources(lib: Library) -> str:
    files = lib.sources
    return "\n    ".join(" ".join(files[i : i + 6]) for i in range(0, len(files), 6))


def llvm_library(lib: Library) -> str:
    inc = f"${{LLVM_INCLUDE_DIR}}/{lib.include}"
    lines = [f"llvm_tablegen(${{CMAKE_CURRENT_SOURCE_DIR}}/{lib.name}.td {inc}/{lib.name}Ops.inc -gen-enums)"]
    outputs = [f"{inc}/{lib.name}Ops.inc"]
    if lib.heavy:
        for backend, name in (("-gen-dag-isel", "GenDAGISel"), ("-gen-instr-info", "GenInstrInfo")):
            lines.append(
                f"llvm_tablegen(${{CMAKE_CURRENT_SOURCE_DIR}}/{lib.name}.td {inc}/{lib.target}{name}.inc {backend})"
            )
            outputs.append(f"{inc}/{lib.target}{name}.inc")
    lines += [
        f"add_custom_target({lib.name}CommonTableGen DEPENDS {' '.join(outputs)})",
        f"llvm_add_library({lib.name} EXPORT LLVMExports COMPONENT {lib.name}\n  SOURCES {_sources(lib)}\n"
        "  LINK LLVMSupport)",
        f"add_dependencies({lib.name} intrinsics_gen {lib.name}CommonTableGen)",
    ]
    return "\n".join(lines) + "\n"


def mlir_library(lib: Library) -> str:
    out = f"${{MLIR_INCLUDE_DIR}}/{lib.include}/{lib.name}Ops.h.inc"
    return (
        f"add_custom_command(OUTPUT {out}\n"
        f"  COMMAND ${{CMAKE_COMMAND}} -E make_directory ${{MLIR_INCLUDE_DIR}}/{lib.include}\n"
        f"  COMMAND mlir-tblgen -gen-op-decls ${{CMAKE_CURRENT_SOURCE_DIR}}/{lib.name}.td -o {out}\n"
        f"  DEPENDS mlir-tblgen ${{CMAKE_CURRENT_SOURCE_DIR}}/{lib.name}.td)\n"
        f"add_custom_target({lib.name}IncGen DEPENDS {out})\n"
        f"llvm_add_library({lib.name} EXPORT MLIRTargets COMPONENT {lib.name}\n  SOURCES {_sources(lib)}\n"
        f"  LINK MLIRIR)\nadd_dependencies({lib.name} {lib.name}IncGen)\n"
    )


def triton_library(lib: Library) -> str:
    folder = f"${{PROJECT_BINARY_DIR}}/include/{lib.include}"
    out = f"{folder}/{lib.name}Ops.h.inc"
    return (
        f"add_custom_command(OUTPUT {out}\n"
        f"  COMMAND ${{CMAKE_COMMAND}} -E make_directory {folder}\n"
        f"  COMMAND ${{MLIR_TABLEGEN_EXE}} -gen-op-decls ${{CMAKE_CURRENT_SOURCE_DIR}}/{lib.name}.td -o {out}\n"
        f"  DEPENDS ${{CMAKE_CURRENT_SOURCE_DIR}}/{lib.name}.td)\n"
        f"add_custom_target({lib.name}IncGen DEPENDS {out})\n"
        f"add_library({lib.name} STATIC\n    {_sources(lib)})\n"
        f"target_include_directories({lib.name} PUBLIC ${{PROJECT_BINARY_DIR}}/include)\n"
        f"target_link_libraries({lib.name} PUBLIC MLIRIR)\nadd_dependencies({lib.name} {lib.name}IncGen)\n"
    )


def llvm_tool(tool: str, libs: list[Library]) -> str:
    names = "\n    ".join(lib.name for lib in libs if lib.target is None)
    kinds = " ".join(f"LLVM${{t}}{k}" for k in TARGET_LIBRARIES)
    return (
        f"set(_libs\n    {names})\nforeach(t ${{LLVM_TARGETS_TO_BUILD}})\n  list(APPEND _libs {kinds})\n"
        f"endforeach()\nllvm_add_executable({tool} EXPORT LLVMExports SOURCES {tool}.cpp LINK ${{_libs}})\n"
    )


def mlir_tool(tool: str, libs: list[Library]) -> str:
    names = " ".join(lib.name for lib in libs)
    return f"llvm_add_executable({tool} EXPORT MLIRTargets SOURCES {tool}.cpp LINK {names})\n"


def triton_tools(libs: list[Library]) -> str:
    """Appended to the test world's bin/CMakeLists.txt, which the top-level file already adds."""
    names = " ".join(lib.name for lib in libs)
    tools = "".join(f"add_executable({t} {t}.cpp)\ntarget_link_libraries({t} PRIVATE {names})\n" for t in TRITON_TOOLS)
    return f"\n{MARK}--------------------------\n{tools}"


def _library_folder(lib: Library, base: str) -> str:
    return lib.directory.removeprefix(base)


def llvm_lib_appendix(plan: Plan) -> str:
    subdirs = "".join(
        f"add_subdirectory({_library_folder(lib, 'llvm/lib/')})\n" for lib in plan.of("llvm") if lib.target is None
    )
    kinds = "".join(f"  add_subdirectory(Target/${{t}}/{k})\n" for k in TARGET_LIBRARIES[1:])
    return (
        f"\n{MARK}--------------------------\n"
        "# LLVM-sized: a tablegen step, libraries of many translation units, per-target heavy tables, lit tests.\n"
        "include(TableGen)\n"
        "add_subdirectory(${LLVM_MAIN_SRC_DIR}/utils/TableGen ${LLVM_BINARY_DIR}/utils/TableGen)\n"
        "llvm_tablegen(${LLVM_MAIN_INCLUDE_DIR}/llvm/IR/Intrinsics.td ${LLVM_INCLUDE_DIR}/llvm/IR/IntrinsicEnums.inc"
        " -gen-enums)\n"
        "add_custom_target(intrinsics_gen DEPENDS ${LLVM_INCLUDE_DIR}/llvm/IR/IntrinsicEnums.inc)\n"
        f"{subdirs}"
        f"foreach(t ${{LLVM_TARGETS_TO_BUILD}})\n  add_subdirectory(Target/${{t}})\n{kinds}endforeach()\n"
        "add_subdirectory(${LLVM_MAIN_SRC_DIR}/test ${LLVM_BINARY_DIR}/test)\n"
    )


def llvm_tools_appendix() -> str:
    return f"\n{MARK}--------------------------\n" + "".join(f"add_subdirectory({t})\n" for t in LLVM_TOOLS)


def mlir_appendix(plan: Plan) -> str:
    subdirs = "".join(f"add_subdirectory({_library_folder(lib, 'mlir/')})\n" for lib in plan.of("mlir"))
    tools = "".join(f"add_subdirectory(tools/{t})\n" for t in MLIR_TOOLS)
    return f"\n{MARK}--------------------------\n{subdirs}{tools}add_subdirectory(test)\n"


def triton_appendix(plan: Plan) -> str:
    libs = plan.of("triton")
    subdirs = "".join(f"add_subdirectory({lib.directory})\n" for lib in libs)
    names = " ".join(lib.name for lib in libs)
    return (
        f"\n{MARK}--------------------------\n{subdirs}"
        f"if(TARGET triton)\n  target_link_libraries(triton PRIVATE {names})\nendif()\n"
    )
