"""What verify's scripts answer about the target environment, typed: where triton comes from, torch and
its GPU, numpy, and the bandwidth measured on the GPU (read with bootstrap.core.io.json_fields)."""

from __future__ import annotations

from dataclasses import dataclass

from bootstrap.core.io.json_fields import Fields


@dataclass(frozen=True)
class Provider:
    """A distribution that provides the `triton` import package (tritondev_probe.py)."""

    name: str
    version: str
    editable: bool
    url: str | None

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "version": self.version, "editable": self.editable, "url": self.url}


@dataclass(frozen=True)
class ActiveTarget:
    """The GPU Triton's driver would compile for: its backend, arch (90 for CUDA, "gfx942" for HIP), warp."""

    backend: str
    arch: str | int
    warp_size: int

    def to_json(self) -> dict[str, object]:
        return {"backend": self.backend, "arch": self.arch, "warp_size": self.warp_size}


@dataclass(frozen=True)
class TritonFacts:
    version: str
    file: str
    distributions: tuple[Provider, ...]
    commit: str | None  # the +git<hash> of a source build; None for a release
    source_build: bool
    backends: tuple[str, ...]
    active: ActiveTarget | None
    active_error: str | None  # why there is no active target

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.version,
            "file": self.file,
            "distributions": [d.to_json() for d in self.distributions],
            "commit": self.commit,
            "source_build": self.source_build,
            "backends": list(self.backends),
            "active": self.active.to_json() if self.active is not None else None,
            "active_error": self.active_error,
        }


@dataclass(frozen=True)
class TorchFacts:
    version: str
    file: str
    cuda: str | None
    hip: str | None
    gpu: bool
    device: str | None
    capability: tuple[int, ...] | None = None  # (major, minor) of the GPU
    gpu_error: str | None = None  # asking for the GPU failed

    def to_json(self) -> dict[str, object]:
        facts: dict[str, object] = {
            "version": self.version,
            "file": self.file,
            "cuda": self.cuda,
            "hip": self.hip,
            "gpu": self.gpu,
            "device": self.device,
        }
        if self.capability is not None:
            facts["capability"] = list(self.capability)
        if self.gpu_error is not None:
            facts["gpu_error"] = self.gpu_error
        return facts


@dataclass(frozen=True)
class ProbedEnvironment:
    """tritondev_probe.py's `env` event: triton, and torch and numpy with why they are missing."""

    triton: TritonFacts
    torch: TorchFacts | None
    torch_error: str | None
    numpy_version: str | None  # None: numpy is missing (numpy_error says why)
    numpy_error: str | None

    def numpy_json(self) -> dict[str, object] | None:
        return {"version": self.numpy_version} if self.numpy_version is not None else None


def _provider(data: Fields) -> Provider:
    return Provider(data.text("name"), data.text("version"), data.flag("editable"), data.optional_text("url"))


def triton_facts(data: Fields) -> TritonFacts:
    active = data.optional_object("active")
    return TritonFacts(
        data.text("version"),
        data.text("file"),
        tuple(_provider(d) for d in data.objects("distributions") or ()),
        data.optional_text("commit"),
        data.flag("source_build"),
        data.texts("backends"),
        ActiveTarget(active.text("backend"), active.text_or_integer("arch"), active.integer("warp_size"))
        if active is not None
        else None,
        data.optional_text("active_error"),
    )


def _torch(data: Fields) -> TorchFacts:
    return TorchFacts(
        data.text("version"),
        data.text("file"),
        data.optional_text("cuda"),
        data.optional_text("hip"),
        data.flag("gpu"),
        data.optional_text("device"),
        data.numbers("capability"),
        data.optional_text("gpu_error"),
    )


def probed_environment(data: Fields) -> ProbedEnvironment:
    """The probe's `env` event, each field checked (BadField names the first that is not as agreed)."""
    torch, numpy = data.optional_object("torch"), data.optional_object("numpy")
    return ProbedEnvironment(
        triton_facts(data.object("triton")),
        _torch(torch) if torch is not None else None,
        data.optional_text("torch_error"),
        numpy.text("version") if numpy is not None else None,
        data.optional_text("numpy_error"),
    )


@dataclass(frozen=True)
class Bandwidth:
    """The vector add's bandwidth beside a torch copy's, on the GPU (tritondev_kernels.py), or why not."""

    ok: bool
    elements: int | None = None
    add_ms: float | None = None
    copy_ms: float | None = None
    add_gbps: float | None = None
    copy_gbps: float | None = None
    ratio: float | None = None
    error: str | None = None
    tail: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        if not self.ok:
            return {"ok": False, "error": self.error, "tail": list(self.tail)}
        return {
            "ok": True,
            "elements": self.elements,
            "add_ms": self.add_ms,
            "copy_ms": self.copy_ms,
            "add_gbps": self.add_gbps,
            "copy_gbps": self.copy_gbps,
            "ratio": self.ratio,
        }


def bandwidth(data: Fields) -> Bandwidth:
    if not data.flag("ok"):
        return Bandwidth(False, error=data.optional_text("error"), tail=data.texts("tail"))
    return Bandwidth(
        True,
        data.optional_integer("elements"),
        data.optional_number("add_ms"),
        data.optional_number("copy_ms"),
        data.optional_number("add_gbps"),
        data.optional_number("copy_gbps"),
        data.optional_number("ratio"),
    )
