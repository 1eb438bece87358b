"""What the in-target scripts only doctor runs answer (tritondev_compile_check.py, tritondev_torch_compile.py,
tritondev_jax.py), and the compile proof only doctor asks of the shared tritondev_triton.py, checked and
typed as bootstrap.core.target.inside_answers checks the shared ones."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bootstrap.core.io.json_fields import Fields
from bootstrap.core.target.inside import BadAnswer
from bootstrap.core.target.inside_answers import TritonImport, parse_answer, triton_import


@dataclass(frozen=True)
class CompileCheck:
    """tritondev_compile_check.py: did Triton compile the tiny kernel for the arch."""

    ok: bool
    stage: str  # "import", "compile", "done"
    error: str  # "" when it compiled
    stderr: str = ""  # what the process wrote besides its answer (ptxas and MLIR diagnostics)


def compile_check(data: Mapping[str, Any]) -> CompileCheck:
    return parse_answer(
        lambda f: CompileCheck(f.flag("ok"), f.text("stage"), f.optional_text("error") or ""),
        data,
        "tritondev_compile_check.py",
    )


@dataclass(frozen=True)
class TorchCompile:
    """tritondev_torch_compile.py: a tiny torch.compile against eager."""

    ok: bool
    device: str | None
    error: str | None


def torch_compile(data: Mapping[str, Any]) -> TorchCompile:
    return parse_answer(
        lambda f: TorchCompile(f.flag("ok"), f.optional_text("device"), f.optional_text("error")),
        data,
        "tritondev_torch_compile.py",
    )


@dataclass(frozen=True)
class JaxTriton:
    """tritondev_jax.py: the plugin module that loaded and the FFI targets it registers."""

    module: str | None  # None: none of the modules loads
    registrations: tuple[str, ...] | None  # None: the module has no registrations() (or it failed)


def _jax_triton(data: Fields) -> JaxTriton:
    data.text_map("import_errors")  # checked, though only the module that loaded is reported
    return JaxTriton(data.optional_text("module"), data.optional_texts("registrations"))


def jax_triton(data: Mapping[str, Any]) -> JaxTriton:
    return parse_answer(_jax_triton, data, "tritondev_jax.py")


def triton_and_proof(data: dict[str, Any]) -> tuple[TritonImport, CompileCheck | None]:
    """tritondev_triton.py's answer with a compile proof (None where it left the proof to its own run)."""
    proof = data.get("compile")
    if proof is not None and not isinstance(proof, dict):
        raise BadAnswer(f"compile is {type(proof).__name__}, not an object")
    return triton_import(data), compile_check(proof) if proof is not None else None
