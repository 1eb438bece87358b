"""The page: one HTML file that holds its own style, script and data, and loads nothing from anywhere.

The data (bootstrap/ir/view/model.py) is JSON, gzip-compressed and base64-encoded into the page: IR text
compresses about twenty-fold, and the browser's own DecompressionStream reads it back, no library
needed. The page's Content-Security-Policy allows no fetch, frame, font or image from anywhere and runs
only the one script and style it carries (by their SHA-256): a crafted dump whose IR holds
`</script><script>...` is data the script shows as text, never code. Pure: text in, text out.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from importlib import resources
from typing import Any

ASSETS = ("page.html", "page.css", "page.js")
_PLACEHOLDER = re.compile(r"\{\{(POLICY|TITLE|DATA|STYLE|SCRIPT)\}\}")


def asset(name: str) -> str:
    """One of the page's files, shipped as package data beside this module (pyproject's package-data)."""
    return resources.files("bootstrap.ir.view").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def encode_data(model: dict[str, Any]) -> str:
    """The model as base64 of gzip of its JSON (no NaN: json.dumps refuses it). mtime 0: the same dump gives
    the same page, byte for byte."""
    raw = json.dumps(model, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    packed = gzip.compress(raw.encode("utf-8", "surrogatepass"), compresslevel=6, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _escape_html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def render_page(model: dict[str, Any]) -> str:
    """The whole page for `model`."""
    style, script = asset("page.css"), asset("page.js")
    policy = (
        f"default-src 'none'; script-src {_digest(script)}; style-src {_digest(style)}; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    values = {
        "POLICY": _escape_html(policy),
        "TITLE": _escape_html(str(model.get("title", ""))),
        "DATA": encode_data(model),
        "STYLE": style,
        "SCRIPT": script,
    }
    # One pass over the template: a value (a title holding "{{SCRIPT}}") is never read as a placeholder.
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], asset("page.html"))
