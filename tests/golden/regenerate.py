"""Regenerates tests/golden/schedules.json: ``python tests/golden/regenerate.py``.

Run it only when a change is meant to move schedules, and say why in the commit message.
"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from configurations import GOLDEN_FILE, configurations, fingerprint  # noqa: E402


def main():
    golden = {name: fingerprint(engine, thunk) for name, engine, thunk in configurations()}
    old = json.loads(GOLDEN_FILE.read_text()) if GOLDEN_FILE.exists() else {}
    moved = sorted(k for k in golden if old.get(k) != golden[k])
    GOLDEN_FILE.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(f"{len(golden)} configurations written to {GOLDEN_FILE}; {len(moved)} changed")
    for k in moved[:50]:
        print(f"  {k}: {old.get(k)} -> {golden[k]}")


if __name__ == "__main__":
    main()
