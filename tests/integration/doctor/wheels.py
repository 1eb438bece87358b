"""Tiny real wheels for doctor tests: a zip with METADATA, WHEEL and RECORD, installed by pip."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def build_wheel(
    out: Path,
    name: str,
    version: str,
    files: dict[str, str],
    requires: list[str] | None = None,
) -> Path:
    """A py3-none-any wheel of distribution `name` carrying `files` (path in site-packages -> text)."""
    out.mkdir(parents=True, exist_ok=True)
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires or []
    )
    contents: dict[str, bytes] = {path: text.encode() for path, text in files.items()}
    contents[f"{info}/METADATA"] = metadata.encode()
    contents[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tritondev-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    contents[f"{info}/top_level.txt"] = "".join(sorted({p.split("/")[0] + "\n" for p in files})).encode()
    record = [_record_line(path, data) for path, data in contents.items()] + [f"{info}/RECORD,,"]
    wheel = out / f"{dist}-{version.replace('-', '_')}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, data in contents.items():
            zf.writestr(path, data)
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return wheel
