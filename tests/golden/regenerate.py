"""Regenerates tests/golden/schedules.json and, where the shared trace samples are found,
tests/golden/trace_schedules.json: ``python tests/golden/regenerate.py``.

Run it only when a change is meant to move schedules, and say why in the commit message. The
trace samples are looked up as the tests look them up ($SCHEDLAB_TRACES, the configured traces
folder, or ../shared/traces beside the repository); a configuration whose sample is missing
keeps its recorded hash.
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "python")]
from configurations import (GOLDEN_FILE, TRACE_GOLDEN_FILE, configurations, fingerprint,  # noqa: E402
                            trace_configurations)
from conftest import traces_dir  # noqa: E402  (the tests' own lookup of the samples)


def write(file, golden, old):
    moved = sorted(k for k in golden if old.get(k) != golden[k])
    file.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(f"{len(golden)} configurations written to {file}; {len(moved)} changed")
    for k in moved[:50]:
        print(f"  {k}: {old.get(k)} -> {golden[k]}")


def main():
    old = json.loads(GOLDEN_FILE.read_text()) if GOLDEN_FILE.exists() else {}
    write(GOLDEN_FILE, {name: fingerprint(engine, thunk) for name, engine, thunk in configurations()}, old)
    old = json.loads(TRACE_GOLDEN_FILE.read_text()) if TRACE_GOLDEN_FILE.exists() else {}
    folder, golden, missing = traces_dir(), {}, 0
    for name, engine, trace, run in trace_configurations():
        path = folder / trace if folder else None
        if path is None or not path.exists():
            missing += 1
            if name in old:
                golden[name] = old[name]
            continue
        golden[name] = fingerprint(engine, lambda: run(path))
    if missing:
        print(f"{missing} trace configurations kept their recorded hashes: their samples are not present")
    write(TRACE_GOLDEN_FILE, golden, old)


if __name__ == "__main__":
    main()
