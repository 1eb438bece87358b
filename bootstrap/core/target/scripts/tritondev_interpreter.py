# mypy: ignore-errors
"""Where the target interpreter installs packages (stdlib only: it must work in a broken environment).

Prints one JSON object.
"""

import json
import sys
import sysconfig

paths = sysconfig.get_paths()
print(
    json.dumps(
        {
            "executable": sys.executable,
            "version": ".".join(str(part) for part in sys.version_info[:3]),
            "prefix": sys.prefix,
            "base_prefix": getattr(sys, "base_prefix", sys.prefix),
            "purelib": paths["purelib"],
            "platlib": paths["platlib"],
            "include": paths["include"],
            "scripts": paths["scripts"],
        }
    )
)
