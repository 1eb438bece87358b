"""What every generated library shares: chains of small headers, and lit test folders.

Headers: llvm/ADT (48), llvm/IR (26) and mlir/IR (20) headers, each including the one before it,
so a translation unit that includes the last one depends on the whole chain (~75 headers for LLVM,
~70 for MLIR and Triton): real LLVM translation units include hundreds, and ninja's no-op and
ccache's direct-mode hits have to check every one.

Lit tests: TESTS_PER_UNIT files per translation unit under llvm/test and mlir/test, in a folder per
library, and LLVM's add_lit_testsuites (LitSuites.cmake), which globs the whole test tree at every
configure and makes a check-* target per folder. LLVM_INCLUDE_TESTS is on in Triton's recipe, so a
real re-configure walks llvm/test and mlir/test (tens of thousands of files) every time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.perf.scale.sources import Library

TESTS_PER_UNIT = 10

ADT = (
    "bit",
    "Hashing",
    "STLForwardCompat",
    "STLExtras",
    "iterator",
    "iterator_range",
    "ArrayRef",
    "StringRef",
    "Twine",
    "SmallVector",
    "SmallString",
    "SmallPtrSet",
    "SmallSet",
    "SmallBitVector",
    "BitVector",
    "DenseMapInfo",
    "DenseMap",
    "DenseSet",
    "StringMap",
    "StringSet",
    "StringSwitch",
    "StringExtras",
    "APInt",
    "APSInt",
    "APFloat",
    "FoldingSet",
    "GraphTraits",
    "PointerIntPair",
    "PointerUnion",
    "MapVector",
    "SetVector",
    "SparseBitVector",
    "SparseSet",
    "UniqueVector",
    "TinyPtrVector",
    "EquivalenceClasses",
    "ImmutableMap",
    "IntervalMap",
    "PostOrderIterator",
    "SCCIterator",
    "PriorityQueue",
    "ScopeExit",
    "Statistic",
    "ilist_node",
    "simple_ilist",
    "ilist",
    "edit_distance",
    "Triple",
)
LLVM_IR = (
    "Use",
    "Value",
    "User",
    "Constant",
    "Constants",
    "Argument",
    "BasicBlock",
    "Attributes",
    "CallingConv",
    "DataLayout",
    "DebugLoc",
    "Metadata",
    "DerivedTypes",
    "GlobalValue",
    "GlobalVariable",
    "Instruction",
    "InstrTypes",
    "Instructions",
    "IntrinsicInst",
    "Operator",
    "LLVMContext",
    "ValueHandle",
    "Dominators",
    "PatternMatch",
    "IRBuilder",
    "PassManager",
)
MLIR_IR = (
    "Types",
    "Attributes",
    "AffineExpr",
    "AffineMap",
    "BuiltinTypes",
    "BuiltinAttributes",
    "Value",
    "Region",
    "BlockSupport",
    "OperationSupport",
    "OpDefinition",
    "OpImplementation",
    "Diagnostics",
    "Dialect",
    "DialectImplementation",
    "SymbolTable",
    "TypeUtilities",
    "Matchers",
    "PatternMatch",
    "Visitors",
)

_ADT_TOP = f"llvm/ADT/{ADT[-1]}.h"
_CHAINS = (  # folder under include/, names, C++ namespace, the header it starts from and what it calls
    ("llvm/ADT", ADT, "llvm::adt", None, "X * 2654435761u"),
    ("llvm/IR", LLVM_IR, "llvm::ir", _ADT_TOP, f"llvm::adt::{ADT[-1]}Hash(X)"),
    ("mlir/IR", MLIR_IR, "mlir::ir", _ADT_TOP, f"llvm::adt::{ADT[-1]}Hash(X)"),
)


def _chain(folder: str, names: tuple[str, ...], ns: str, first: str | None, seed: str) -> dict[str, str]:
    files = {}
    outer, inner = ns.split("::")
    previous, call = first, seed
    for i, name in enumerate(names):
        guard = f"{folder.upper().replace('/', '_')}_{name.upper()}_GEN_H"
        include = f'#include "{previous}"\n' if previous else "#include <cstdint>\n"
        files[f"{folder.split('/')[0]}/include/{folder}/{name}.h"] = (
            f"//===- {folder}/{name}.h - generated for the benchmark world -------*- C++ -*-===//\n"
            f"#ifndef {guard}\n#define {guard}\n\n{include}\nnamespace {outer} {{\nnamespace {inner} {{\n"
            f"inline unsigned {name}Hash(unsigned X) {{ return {call} * 31u + {i}u; }}\n"
            f"}} // namespace {inner}\n}} // namespace {outer}\n\n#endif\n"
        )
        previous, call = f"{folder}/{name}.h", f"{name}Hash(X)"
    return files


def header_files() -> dict[str, str]:
    files: dict[str, str] = {}
    for folder, names, ns, first, seed in _CHAINS:
        files.update(_chain(folder, names, ns, first, seed))
    return files


def top_header(project: str) -> str:
    return f"llvm/IR/{LLVM_IR[-1]}.h" if project == "llvm" else f"mlir/IR/{MLIR_IR[-1]}.h"


def top_call(project: str, arg: str) -> str:
    return f"llvm::ir::{LLVM_IR[-1]}Hash({arg})" if project == "llvm" else f"mlir::ir::{MLIR_IR[-1]}Hash({arg})"


# ------------------------------------------------------------------------------------------------
# lit tests


def test_files(lib: Library) -> dict[str, str]:
    if lib.tests is None:
        return {}
    files = {}
    for stem in (*lib.heavy, *lib.units):
        for k in range(TESTS_PER_UNIT):
            name = f"{stem}-{k}"
            if lib.project == "llvm":
                files[f"{lib.tests}/{name}.ll"] = (
                    f"; RUN: opt -S %s | FileCheck %s\n; CHECK-LABEL: @{name.replace('-', '_')}\n"
                    f"define i32 @{name.replace('-', '_')}(i32 %x) {{\n  %y = add i32 %x, {k}\n  ret i32 %y\n}}\n"
                )
            else:
                files[f"{lib.tests}/{name}.mlir"] = (
                    f"// RUN: mlir-opt %s | FileCheck %s\n// CHECK-LABEL: func @{name.replace('-', '_')}\n"
                    f"func.func @{name.replace('-', '_')}(%arg0: i32) -> i32 {{\n"
                    f"  %c = arith.constant {k} : i32\n  %0 = arith.addi %arg0, %c : i32\n  return %0 : i32\n}}\n"
                )
    return files


LIT_SUITES_CMAKE = """\
# add_lit_testsuites(<project> <directory> [DEPENDS ...]): a check-<project>-<folder> target for every
# folder of the test tree, found by globbing the whole tree, as LLVM's AddLLVM.cmake does at every
# configure. (The benchmark world has no lit: the targets echo their folder; nothing runs them.)
function(add_lit_testsuites project directory)
  cmake_parse_arguments(ARG "" "" "DEPENDS" ${ARGN})
  file(GLOB_RECURSE to_process LIST_DIRECTORIES true ${directory}/*)
  string(TOLOWER "${project}" lower)
  add_custom_target(check-${lower} COMMAND ${CMAKE_COMMAND} -E echo "lit: ${directory}")
  foreach(lit_suite ${to_process})
    if(NOT IS_DIRECTORY ${lit_suite})
      continue()
    endif()
    string(FIND ${lit_suite} Inputs is_inputs)
    string(FIND ${lit_suite} Output is_output)
    if(NOT (is_inputs EQUAL -1 AND is_output EQUAL -1))
      continue()
    endif()
    string(REPLACE ${directory} "" name_slash ${lit_suite})
    if(name_slash)
      string(REPLACE "/" "-" name_dashes ${name_slash})
      string(TOLOWER "${project}${name_dashes}" name_var)
      add_custom_target(check-${name_var} COMMAND ${CMAKE_COMMAND} -E echo "lit: ${lit_suite}")
      if(ARG_DEPENDS)
        add_dependencies(check-${name_var} ${ARG_DEPENDS})
      endif()
    endif()
  endforeach()
endfunction()
"""


def test_suite_files(project: str, depends: str) -> dict[str, str]:
    upper = project.upper()
    return {
        f"{project}/test/CMakeLists.txt": (
            "include(LitSuites)\n"
            f"configure_file(${{CMAKE_CURRENT_SOURCE_DIR}}/lit.site.cfg.py.in ${{CMAKE_CURRENT_BINARY_DIR}}/"
            "lit.site.cfg.py @ONLY)\n"
            f"add_lit_testsuites({upper} ${{CMAKE_CURRENT_SOURCE_DIR}} DEPENDS {depends})\n"
        ),
        f"{project}/test/lit.site.cfg.py.in": (
            f'config.{project}_obj_root = "@CMAKE_CURRENT_BINARY_DIR@"\n'
            f'config.{project}_tools_dir = "@LLVM_TOOLS_BINARY_DIR@"\n'
            f'lit_config.load_config(config, "@CMAKE_CURRENT_SOURCE_DIR@/lit.cfg.py")\n'
        ),
        f"{project}/test/lit.cfg.py": (
            f'config.name = "{upper}"\nconfig.suffixes = [".ll", ".mlir"]\n'
            f"config.test_source_root = __import__('os').path.dirname(__file__)\n"
        ),
    }
