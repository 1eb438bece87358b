"""A record as the capture hook writes it (bootstrap/core/target/scripts/tritondev_capture_io.py), for unit tests."""

from __future__ import annotations

import copy
from typing import Any

RECORD: dict[str, Any] = {
    "format": 1,
    "id": "4242-0001-add_kernel",
    "kernel": "add_kernel",
    "status": "launched",
    "mode": "gpu",
    "launches": 3,
    "autotuning": False,
    "captured_at": 1795757092.95,
    "grid": [4, 1, 1],
    "args": [
        {
            "name": "x_ptr",
            "kind": "tensor",
            "dtype": "float32",
            "shape": [1000],
            "stride": [1],
            "storage_offset": 0,
            "storage_bytes": 4000,
            "storage": 0,
            "element_size": 4,
            "device": "cuda:0",
            "aligned16": True,
        },
        {
            "name": "out_ptr",
            "kind": "tensor",
            "dtype": "float16",
            "shape": [10, 10],
            "stride": [20, 1],
            "storage_offset": 5,
            "storage_bytes": 400,
            "storage": 1,
            "element_size": 2,
            "device": "cuda:0",
            "aligned16": False,
        },
        {"name": "n", "kind": "int", "value": 1000},
        {"name": "BLOCK", "kind": "int", "value": 256},
    ],
    "spec": {
        "arg_names": ["x_ptr", "out_ptr", "n", "BLOCK"],
        "signature": {"x_ptr": "*fp32", "out_ptr": "*fp16", "n": "i32"},
        "constexprs": {"BLOCK": 256},
        "attrs": {"x_ptr": [["tt.divisibility", 16]], "n": [["tt.divisibility", 16]]},
        "target": {"backend": "cuda", "arch": 90, "warp_size": 32},
        "options": {"num_warps": 4, "num_stages": 3, "debug": False},
        "options_given": {"num_warps": 4},
    },
    "metadata": {
        "name": "add_kernel",
        "num_warps": 4,
        "num_stages": 3,
        "num_ctas": 1,
        "target": {"backend": "cuda", "arch": 90, "warp_size": 32},
    },
    "io": {
        "saved": True,
        "storages": {
            "0": {"bytes": 4000, "in": "io/0.in", "changed": False, "nonfinite_before": 0},
            "1": {
                "bytes": 400,
                "in": "io/1.in",
                "out": "io/1.out",
                "changed": True,
                "nonfinite_before": 0,
                "nonfinite_after": 0,
            },
        },
    },
    "origin": {
        "kind": "inductor",
        "file": "/tmp/torchinductor/ab/cab.py",
        "line": 10,
        "module": "cab",
        "name": "add_kernel",
    },
    "source": {"file": "kernel.py", "problems": []},
    "versions": {"python": "3.12.3", "triton": "3.6.0", "torch": "2.11.0+cu130"},
    "module_file": "module.py",
    "pid": 4242,
}


def record(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(RECORD)
    data.update(changes)
    return data
