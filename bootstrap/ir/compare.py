"""`tritondev ir diff`: two dumps read, the kernel compared in each picked, their first difference found."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bootstrap.ir.diff import Difference, first_difference
from bootstrap.ir.dumps import Dump, DumpError, load_dump


@dataclass(frozen=True)
class DumpComparison:
    a: Path
    b: Path
    kernel_a: str | None  # None: the dump names no kernel
    kernel_b: str | None
    keep_locations: bool
    keep_names: bool
    difference: Difference

    def to_json(self) -> dict[str, object]:
        return {
            "a": str(self.a),
            "b": str(self.b),
            "kernel": {"a": self.kernel_a, "b": self.kernel_b},
            "keep_locations": self.keep_locations,
            "keep_names": self.keep_names,
            **self.difference.to_json(),
        }


def compare_dumps(a: Path, b: Path, kernel: str | None, *, keep_locations: bool, keep_names: bool) -> DumpComparison:
    """The first pass whose output differs between the dumps of one kernel; DumpError for a dump that is
    missing or malformed, or a kernel not in both."""
    dump_a, dump_b = load_dump(a), load_dump(b)
    name_a, name_b = _kernels(dump_a, dump_b, kernel)
    found = first_difference(
        dump_a.of_kernel(name_a), dump_b.of_kernel(name_b), keep_locations=keep_locations, keep_names=keep_names
    )
    return DumpComparison(a, b, name_a, name_b, keep_locations, keep_names, found)


def _kernels(a: Dump, b: Dump, wanted: str | None) -> tuple[str | None, str | None]:
    """The kernel compared in each dump: --kernel (in both), else the one they share, else their only ones."""
    if wanted is not None:
        return a.pick_kernel(wanted), b.pick_kernel(wanted)
    kernels_a, kernels_b = a.kernels(), b.kernels()
    if len(kernels_a) <= 1 and len(kernels_b) <= 1:
        return (kernels_a[0] if kernels_a else None), (kernels_b[0] if kernels_b else None)
    shared = [k for k in kernels_a if k in kernels_b]
    if len(shared) == 1:
        return shared[0], shared[0]
    raise DumpError(
        f"the dumps hold several kernels (a: {', '.join(kernels_a)}; b: {', '.join(kernels_b)})",
        fix=f"name the one to compare with --kernel, e.g. --kernel {(shared or kernels_a)[0]}",
    )
