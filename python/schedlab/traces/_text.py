"""Shared helpers of the text trace readers: opening plain or gzip files, splitting lines with
their numbers, and errors that name the file and line."""
from __future__ import annotations

import gzip
import os


def read_lines(path):
    """Yields (line number, text) of a plain or ``.gz`` file; CRLF endings and a missing final
    newline are accepted; undecodable bytes are replaced."""
    path = os.fspath(path)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    for lineno, raw in enumerate(data.splitlines(), start=1):
        yield lineno, raw.decode("utf-8", errors="replace").rstrip("\r\n")


def fail(path, lineno, msg):
    raise ValueError(f"{path}:{lineno}: {msg}")


def number(path, lineno, field, text, *, integer=False, allow_empty=False):
    """Parses a numeric field, raising ValueError naming the file, line and field."""
    t = text.strip()
    if not t:
        if allow_empty:
            return None
        fail(path, lineno, f"field '{field}' is empty")
    try:
        return int(t) if integer else float(t)
    except ValueError:
        fail(path, lineno, f"field '{field}' is not a {'whole ' if integer else ''}number: {t!r}")
