"""`tritondev ir view`: one self-contained HTML page for a kernel's passes (or two dumps side by side)."""
