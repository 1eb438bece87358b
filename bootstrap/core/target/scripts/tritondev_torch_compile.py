# mypy: ignore-errors
"""A tiny torch.compile, compared with eager: does torch's Triton path work end to end?

On the GPU when torch sees one, else on the CPU. Any failure is an answer (`ok` false, `error`).
Prints one JSON object.
"""

import json


def main():
    result = {"ok": False}
    try:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
        result["device"] = device

        def f(x, y):
            return torch.sin(x) + y * 2

        x = torch.randn(1024, device=device)
        y = torch.randn(1024, device=device)
        got = torch.compile(f)(x, y)
        result["ok"] = bool(torch.allclose(got, f(x, y), atol=1e-5))
        if not result["ok"]:
            result["error"] = "torch.compile result differs from eager"
    except BaseException as exc:
        result["error"] = (f"{type(exc).__name__}: {exc}")[-2000:]
    print(json.dumps(result))


main()
