"""The generated part of the benchmark world: LLVM-, MLIR- and Triton-shaped libraries, as text.

Pure functions from a size to files; `world.py` commits them into the test world's repositories.
The shape follows the real trees in what a build and a re-configure pay for:

- many small libraries (about UNITS_PER_LIBRARY translation units each, as LLVM's ~400 libraries
  average), under the real folder names (llvm/lib/Transforms/Scalar/..., mlir/lib/Dialect/Arith/...);
- generated headers: a tablegen tool built first in the same build (llvm-tblgen, new here; MLIR and
  Triton use the mini's mlir-tblgen) turns each library's .td file into an .inc header, and
  llvm/IR/IntrinsicEnums.inc is included by every LLVM translation unit (as llvm/IR/Intrinsics.h
  is), so a .td edit rebuilds all its includers;
- deep includes: every translation unit pulls in a chain of ~100 small headers (layers.py), so ninja
  and ccache track a realistic number of dependencies;
- lit test folders beside the sources (layers.py), which LLVM's CMake scans at every configure;
- per target (lib/Target/<T>) four heavy translation units that include big generated tables, the
  way X86ISelDAGToDAG.cpp includes X86GenDAGISel.inc and X86InstrInfo.cpp X86GenInstrInfo.inc:
  their compile memory is what a build's job count has to respect (world.py's HEAVY_COMPILE_MIB);
- tools that link every library (the link phase at the end of an LLVM build).

Light translation units are small (~0.1 s to compile; real LLVM's take seconds), so that a cold build
of the default size fits a benchmark run: their number, not their weight, is what is modelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.perf.scale import layers

TEMPLATES = Path(__file__).resolve().parent / "templates"

DEFAULT_UNITS = 3300  # light translation units in the whole tree (LLVM + MLIR + Triton)
UNITS_PER_LIBRARY = 15
HEAVY_TABLE_BYTES = 6_000_000  # entries of each heavy table: clang 14 -O3 needs ~1 GiB for a file with one
INTRINSICS = 600  # entries of llvm/IR/IntrinsicEnums.inc
OPS_PER_LIBRARY = 64  # entries of each library's generated op enum

ALL_TARGETS = ("AArch64", "AMDGPU", "ARM", "NVPTX", "RISCV", "SPIRV", "X86")
TARGET_LIBRARIES = ("Desc", "Info", "AsmParser", "Disassembler")  # the first one holds the heavy units
# Heavy units of each target and the generated table each includes (two units share each table).
HEAVY_UNITS = {
    "ISelDAGToDAG": "GenDAGISel",
    "ISelLowering": "GenDAGISel",
    "MCTargetDesc": "GenInstrInfo",
    "InstrInfo": "GenInstrInfo",
}

LLVM_AREAS = (
    ("Analysis", "Analysis"), ("TransformUtils", "Transforms/Utils"), ("ScalarOpts", "Transforms/Scalar"),
    ("ipo", "Transforms/IPO"), ("InstCombine", "Transforms/InstCombine"), ("Vectorize", "Transforms/Vectorize"),
    ("Instrumentation", "Transforms/Instrumentation"), ("CodeGen", "CodeGen"),
    ("SelectionDAG", "CodeGen/SelectionDAG"), ("GlobalISel", "CodeGen/GlobalISel"),
    ("AsmPrinter", "CodeGen/AsmPrinter"), ("MC", "MC"), ("MCParser", "MC/MCParser"), ("Object", "Object"),
    ("BinaryFormat", "BinaryFormat"), ("BitReader", "Bitcode/Reader"), ("BitWriter", "Bitcode/Writer"),
    ("ProfileData", "ProfileData"), ("DebugInfoDWARF", "DebugInfo/DWARF"), ("Passes", "Passes"),
    ("Linker", "Linker"), ("AsmParser", "AsmParser"), ("Option", "Option"), ("Remarks", "Remarks"),
    ("FrontendOpenMP", "Frontend/OpenMP"), ("ObjCopy", "ObjCopy"),
)  # fmt: skip
MLIR_AREAS = tuple(
    [(f"{d}Dialect", f"Dialect/{d}") for d in (
        "Arith", "SCF", "LLVMIR", "GPU", "NVVM", "ROCDL", "Tensor", "Linalg", "Vector", "MemRef", "Affine",
        "Func", "ControlFlow", "Index", "Math", "UB")]
    + [(c, f"Conversion/{c}") for c in ("SCFToControlFlow", "ArithToLLVM", "GPUToNVVM", "GPUToROCDL")]
    + [("Transforms", "Transforms"), ("Analysis", "Analysis")]
)  # fmt: skip
TRITON_AREAS = (
    ("TritonTransforms", "lib/Dialect/Triton/Transforms"),
    # The test world builds its own TritonGPUTransforms (bin/CMakeLists.txt): another TritonGPU area here.
    ("TritonGPUCombine", "lib/Dialect/TritonGPU/Combine"),
    ("TritonNvidiaGPUTransforms", "lib/Dialect/TritonNvidiaGPU/Transforms"),
    ("TritonGPUToLLVM", "lib/Conversion/TritonGPUToLLVM"),
    ("TritonAnalysis", "lib/Analysis"),
    ("NVGPUToLLVM", "third_party/nvidia/lib/NVGPUToLLVM"),
    ("TritonAMDGPUTransforms", "third_party/amd/lib/TritonAMDGPUTransforms"),
)
LLVM_TOOLS = ("llvm-as", "llvm-dis", "llvm-link", "llvm-nm", "llvm-objdump", "llvm-readobj")
MLIR_TOOLS = ("mlir-opt", "mlir-reduce")
# The test world's bin/ builds triton-opt; these are Triton's other tools, linking every generated library.
TRITON_TOOLS = ("triton-reduce", "triton-llvm-opt")

# Sub-libraries of an area: <Area>, <Area>Utils, <Area>Loop, ... in <area folder>/<word>.
_PARTS = (
    "",
    "Utils",
    "Loop",
    "Memory",
    "Vector",
    "Call",
    "Value",
    "Type",
    "Block",
    "Global",
    "Alias",
    "Frame",
    "Symbol",
    "Layout",
    "Stack",
    "Register",
    "Constant",
    "Scalar",
    "Branch",
    "Module",
)
_WORDS_A = (
    "Alias",
    "Block",
    "Branch",
    "Call",
    "Constant",
    "Dominator",
    "Frame",
    "Global",
    "Inst",
    "Loop",
    "Memory",
    "Module",
    "Register",
    "Scalar",
    "Stack",
    "Symbol",
    "Type",
    "Value",
    "Vector",
    "Layout",
)
_WORDS_B = (
    "Analysis",
    "Builder",
    "Combiner",
    "Emitter",
    "Folding",
    "Info",
    "Lowering",
    "Pass",
    "Printer",
    "Scheduler",
    "Selection",
    "Simplify",
    "Tracker",
    "Utils",
    "Verifier",
)


@dataclass(frozen=True)
class Library:
    project: str  # llvm | mlir | triton
    name: str  # CMake target
    directory: str  # repository-relative source folder
    include: str  # its folder under include/ (header, generated .inc)
    units: tuple[str, ...]  # light translation units (file stems)
    heavy: tuple[str, ...] = ()  # stems of translation units that include a big generated table
    target: str | None = None  # lib/Target/<T>
    tests: str | None = None  # repository-relative lit test folder

    @property
    def sources(self) -> list[str]:
        """Heavy units first: they start as soon as their tables exist, as in a real target folder."""
        return [f"{s}.cpp" for s in (*self.heavy, *self.units)] + [f"{self.name}Registry.cpp"]


@dataclass(frozen=True)
class Plan:
    units: int
    libraries: tuple[Library, ...]

    def of(self, project: str) -> list[Library]:
        return [lib for lib in self.libraries if lib.project == project]


def _stems(count: int) -> tuple[str, ...]:
    names = [f"{a}{b}" for b in _WORDS_B for a in _WORDS_A]
    return tuple(names[i] if i < len(names) else f"{names[i % len(names)]}{i // len(names)}" for i in range(count))


def _split(total: int, parts: int) -> list[int]:
    base, extra = divmod(max(total, parts), parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _include(project: str, sub: str) -> str:
    if project != "triton":
        return f"{project}/{sub}"
    return "triton/" + sub.removeprefix("lib/").replace("third_party/", "").replace("/lib/", "/")


def _areas(
    project: str, areas: tuple[tuple[str, str], ...], units: int, prefix: str, root: str, tests: str | None
) -> list[Library]:
    count = max(len(areas), round(units / UNITS_PER_LIBRARY))
    libs = []
    for i, n in enumerate(_split(units, count)):
        j = i // len(areas)
        (area, folder), part = areas[i % len(areas)], _PARTS[j] if j < len(_PARTS) else f"Part{j}"
        sub = f"{folder}/{part}" if part else folder
        libs.append(
            Library(
                project,
                f"{prefix}{area}{part}",
                f"{root}{sub}",
                _include(project, sub),
                _stems(n),
                tests=f"{tests}/{sub}" if tests else None,
            )
        )
    return libs


def plan(units: int = DEFAULT_UNITS) -> Plan:
    """Light translation units: 70% LLVM (a tenth of it in the targets), 24% MLIR, 6% Triton."""
    triton_n, mlir_n = units * 6 // 100, units * 24 // 100
    llvm_n = units - triton_n - mlir_n
    target_n = llvm_n // 10
    libs = _areas("llvm", LLVM_AREAS, llvm_n - target_n, "LLVM", "llvm/lib/", "llvm/test")
    per_target = _split(target_n, len(ALL_TARGETS))
    for t, n in zip(ALL_TARGETS, per_target, strict=True):
        for j, (kind, k) in enumerate(zip(TARGET_LIBRARIES, _split(n, len(TARGET_LIBRARIES)), strict=True)):
            folder = "" if j == 0 else f"/{kind}"
            libs.append(
                Library(
                    "llvm",
                    f"LLVM{t}{kind}",
                    f"llvm/lib/Target/{t}{folder}",
                    f"llvm/Target/{t}{folder}",
                    tuple(f"{t}{s}" for s in _stems(k)),
                    heavy=tuple(f"{t}{h}" for h in HEAVY_UNITS) if j == 0 else (),
                    target=t,
                    tests=f"llvm/test/CodeGen/{t}{folder}",
                )
            )
    libs += _areas("mlir", MLIR_AREAS, mlir_n, "MLIR", "mlir/lib/", "mlir/test")
    libs += _areas("triton", TRITON_AREAS, triton_n, "", "", None)
    return Plan(units, tuple(libs))


# ------------------------------------------------------------------------------------------------
# C++


def _namespace(lib: Library) -> str:
    return "llvm" if lib.project == "llvm" else "mlir"


def header(lib: Library) -> str:
    ns = _namespace(lib)
    guard = lib.include.upper().replace("/", "_") + "_" + lib.name.upper() + "_H"
    if lib.project == "llvm":
        ops = f'#include "{lib.include}/{lib.name}Ops.inc"\n'
    else:  # mlir-tblgen writes an X-macro list of the ops
        ops = (
            f'#include "{lib.include}/{lib.name}Ops.h.inc"\n\nnamespace {ns} {{\nnamespace gen {{\n'
            f"enum class {lib.name}Op : unsigned {{\n#define MLIR_OP(Name, Mnemonic, Operands) Name,\n"
            f"  MLIR_BUILTIN_OPS\n#undef MLIR_OP\n}};\ninline constexpr unsigned Num{lib.name}Op = 0\n"
            f"#define MLIR_OP(Name, Mnemonic, Operands) +1\n    MLIR_BUILTIN_OPS\n#undef MLIR_OP\n    ;\n"
            f"}} // namespace gen\n}} // namespace {ns}\n#undef MLIR_BUILTIN_OPS\n"
        )
    decls = "".join(f"unsigned {lib.name}_{s}(unsigned X);\n" for s in (*lib.heavy, *lib.units))
    return (
        f"//===- {lib.name}.h - generated for the benchmark world ---------*- C++ -*-===//\n"
        f'#ifndef {guard}\n#define {guard}\n\n#include "{layers.top_header(lib.project)}"\n{ops}\n'
        f"namespace {ns} {{\nnamespace gen {{\n{decls}"
        f"unsigned {lib.name}_all(unsigned X);\n}} // namespace gen\n}} // namespace {ns}\n\n#endif\n"
    )


def unit(lib: Library, index: int) -> str:
    stem, ns, op = lib.units[index], _namespace(lib), f"{lib.name}Op"
    extra = '#include "llvm/IR/Intrinsics.h"\n' if lib.project == "llvm" else ""
    intrinsic = (
        f"  X += static_cast<unsigned>(Intrinsic::Intrinsic_{index % INTRINSICS}) + NumIntrinsic;\n"
        if lib.project == "llvm"
        else ""
    )
    cases = "".join(
        f"  case {op}::{op}_{(index * 7 + k) % OPS_PER_LIBRARY}:\n    X = Impl.step(X + {k}u);\n    break;\n"
        for k in range(8)
    )
    return (
        f"//===- {stem}.cpp - {lib.name} ---------------------------------------------===//\n"
        f"// Generated for the benchmark world: translation unit {index + 1} of {len(lib.units)} in {lib.name}.\n"
        f'#include "{lib.include}/{lib.name}.h"\n{extra}\n'
        f"namespace {ns} {{\nnamespace gen {{\nnamespace {{\nclass {stem}Impl {{\npublic:\n"
        f"  explicit {stem}Impl(unsigned Seed) : State{{Seed, Seed * 3u + 1u, Seed ^ 0x9e3779b9u, {index}u}} {{}}\n"
        f"  unsigned step(unsigned X) {{\n    for (unsigned I = 0; I < 4; ++I) {{\n"
        f"      State[I] = State[I] * 1664525u + X + {index}u;\n      X ^= State[I] >> (I + 1);\n    }}\n"
        f"    return {layers.top_call(lib.project, 'X')};\n  }}\n\nprivate:\n  unsigned State[4];\n}};\n"
        f"}} // namespace\n\nunsigned {lib.name}_{stem}(unsigned X) {{\n  {stem}Impl Impl(X + {index}u);\n"
        f"  switch (static_cast<{op}>(X % Num{op})) {{\n{cases}  default:\n    X += Num{op};\n    break;\n  }}\n"
        f"{intrinsic}  return Impl.step(X);\n}}\n}} // namespace gen\n}} // namespace {ns}\n"
    )


def heavy_unit(lib: Library, stem: str) -> str:
    inc = HEAVY_UNITS[stem.removeprefix(lib.target or "")]
    table = "MatcherTable" if inc == "GenDAGISel" else "InstrTable"
    return (
        f"//===- {stem}.cpp - {lib.name} ---------------------------------------------===//\n"
        f"// Includes a big generated table, as the real {stem}.cpp does: the heaviest compiles of the tree.\n"
        f'#include "{lib.include}/{lib.name}.h"\n\nnamespace llvm {{\nnamespace gen {{\n'
        f'#include "{lib.include}/{lib.target}{inc}.inc"\n\n'
        f"unsigned {lib.name}_{stem}(unsigned X) {{\n"
        f"  return {lib.target}{table}[X % sizeof({lib.target}{table})] + X;\n}}\n"
        f"}} // namespace gen\n}} // namespace llvm\n"
    )


def registry(lib: Library) -> str:
    ns = _namespace(lib)
    calls = "".join(f"  X = {lib.name}_{s}(X);\n" for s in (*lib.heavy, *lib.units))
    return (
        f"// Generated: calls every translation unit of {lib.name}, so a tool linking it links them all.\n"
        f'#include "{lib.include}/{lib.name}.h"\n\nnamespace {ns} {{\nnamespace gen {{\n'
        f"unsigned {lib.name}_all(unsigned X) {{\n{calls}  return X;\n}}\n"
        f"}} // namespace gen\n}} // namespace {ns}\n"
    )


def tool_main(tool: str, libs: list[Library], with_targets: bool) -> str:
    """A tool calling every library of `libs` (and, for LLVM, those of each configured target)."""
    plain = [lib for lib in libs if lib.target is None]
    decls = "".join(
        f"namespace {_namespace(lib)} {{ namespace gen {{ unsigned {lib.name}_all(unsigned); }} }}\n" for lib in plain
    )
    calls = "".join(f"  X = {_namespace(lib)}::gen::{lib.name}_all(X);\n" for lib in plain)
    targets_decl = targets_call = ""
    if with_targets:
        kinds = TARGET_LIBRARIES
        targets_decl = (
            "#define LLVM_TARGET(T) namespace llvm { namespace gen { \\\n"
            + "".join(f"  unsigned LLVM##T##{k}_all(unsigned); \\\n" for k in kinds)
            + '} }\n#include "llvm/Config/Targets.def"\n'
        )
        targets_call = (
            "#define LLVM_TARGET(T) \\\n"
            + "".join(f"  X = llvm::gen::LLVM##T##{k}_all(X); \\\n" for k in kinds)
            + '\n#include "llvm/Config/Targets.def"\n'
        )
    return (
        f"// {tool}: links every library of its project (generated for the benchmark world).\n"
        f"#include <cstdio>\n\n{decls}{targets_decl}\nint main(int argc, char **) {{\n"
        f"  unsigned X = static_cast<unsigned>(argc);\n{calls}{targets_call}"
        f'  std::printf("{tool} %u\\n", X);\n  return 0;\n}}\n'
    )


# ------------------------------------------------------------------------------------------------
# TableGen inputs


def ops_td(lib: Library) -> str:
    if lib.project == "llvm":
        lines = [f'def {lib.name}Ops : Enum<"{lib.name}Op", {OPS_PER_LIBRARY}>;']
        if lib.heavy and lib.target:
            t, seed = lib.target, ALL_TARGETS.index(lib.target) * 2
            lines += [
                f'def {t}ISel : MatcherTable<"{t}", {HEAVY_TABLE_BYTES}, {seed + 1}>;',
                f'def {t}Instrs : InstrTable<"{t}", {HEAVY_TABLE_BYTES}, {seed + 2}>;',
            ]
    else:
        dialect = lib.name.lower()
        lines = [f'def {lib.name}Op_{i} : Op<"{dialect}.op{i}", {i % 3}>;' for i in range(OPS_PER_LIBRARY)]
    return f"// {lib.name}: records for the generated headers of this library.\n" + "\n".join(lines) + "\n"


def intrinsics_h() -> str:
    return (
        "//===- llvm/IR/Intrinsics.h - the intrinsic enum, generated by llvm-tblgen -===//\n"
        "#ifndef LLVM_IR_INTRINSICS_H\n#define LLVM_IR_INTRINSICS_H\n"
        '#include "llvm/IR/IntrinsicEnums.inc"\n#endif\n'
    )


def intrinsics_td() -> str:
    return f'// Every LLVM intrinsic: llvm/IR/IntrinsicEnums.inc.\ndef Intrinsics : Enum<"Intrinsic", {INTRINSICS}>;\n'
