"""Command-line argument helpers shared by the ``schedlab`` subcommands."""
from __future__ import annotations


def kv(items, what):
    """``['a=1', 'b=x']`` -> ``{'a': 1, 'b': 'x'}`` (numbers and true/false converted); a malformed
    item is a ``ValueError`` (one line from the command line)."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"{what} '{item}' must look like name=value")
        k, v = item.split("=", 1)
        for conv in (int, float):
            try:
                v = conv(v)
                break
            except ValueError:
                pass
        else:
            if v.lower() in ("true", "false"):
                v = v.lower() == "true"
        out[k] = v
    return out
