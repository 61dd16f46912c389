"""Shared helpers of the text trace readers: opening plain or gzip files, splitting lines with
their numbers, and errors that name the file and line."""
from __future__ import annotations

import contextlib
import contextvars
import gzip
import math
import os
import re
import zlib

import numpy as np

from ...core.guard import check_reader_tasks

MAX_TASKS = 2**31 - 1  # the engines number tasks with 32-bit integers
INT64 = (-2**63, 2**63 - 1)  # integer fields are held in 64-bit columns


# The bar of the trace being read (set by read_trace, one per thread or task): readers report the
# bytes they have parsed through advance(), so the bar moves while a large file is parsed.
_FEED: contextvars.ContextVar = contextvars.ContextVar("schedlab_trace_progress", default=None)


class ProgressFeed:
    """Bytes parsed so far of the trace being read (one file or several), shown on a tqdm bar
    (see read_trace) whose total is the files' size on disk: each file read through read_bytes
    becomes a part of the bar, its size replaced by that of its data (a ``.gz`` file's
    uncompressed size) once read."""

    def __init__(self, bar):
        self.bar = bar
        self.base = 0  # bytes of the parts before the current one
        self.done = 0  # position of the bar

    def begin_part(self, size_on_disk, size):
        self.base = self.done
        if size != size_on_disk:
            self.bar.total = max(int(self.bar.total or 0) + size - size_on_disk, self.done + size)
            self.bar.refresh()

    def advance_to(self, done):
        """The reader has parsed ``done`` bytes of the current part's data."""
        pos = min(self.base + int(done), int(self.bar.total or 0))
        if pos > self.done:
            self.bar.update(pos - self.done)
            self.done = pos

    def finish(self):
        if self.bar.total and self.done < self.bar.total:
            self.bar.update(self.bar.total - self.done)
            self.done = int(self.bar.total)


@contextlib.contextmanager
def progress_feed(bar):
    feed = ProgressFeed(bar)
    token = _FEED.set(feed)
    try:
        yield feed
    finally:
        _FEED.reset(token)


def advance_to(done):
    """Reports progress of the trace being read: ``done`` bytes of the current file's data
    parsed (no-op when no bar is shown)."""
    feed = _FEED.get()
    if feed is not None:
        feed.advance_to(done)


def read_bytes(path, part: bool = True) -> bytes:
    """The whole content of a plain or ``.gz`` file; a corrupt ``.gz`` is a ValueError naming
    the file. Starts the file's part of the progress bar (``part=False``: the file is read
    again, for a part already started)."""
    path = os.fspath(path)
    if path.endswith(".gz"):
        try:
            with gzip.open(path, "rb") as f:
                data = f.read()
        except (gzip.BadGzipFile, EOFError, zlib.error) as e:
            raise ValueError(f"{path}: not a readable gzip file ({type(e).__name__}: {e or 'truncated'}); "
                             f"expected a complete .gz file") from None
    else:
        with open(path, "rb") as f:
            data = f.read()
    feed = _FEED.get()
    if feed is not None and part:
        feed.begin_part(os.path.getsize(path), len(data))
    return data


#: bytes parsed between two reports to the progress bar
REPORT_BYTES = 1 << 20


def read_lines(path, data: bytes | None = None):
    """Yields (line number, text) of a plain or ``.gz`` file (or of its ``data`` when already
    read); CRLF endings and a missing final newline are accepted; undecodable bytes are
    replaced. Reports the bytes parsed to the progress bar of read_trace."""
    if data is None:
        data = read_bytes(path)
    total, done, next_report = len(data), 0, REPORT_BYTES
    for lineno, raw in enumerate(data.splitlines(), start=1):
        yield lineno, raw.decode("utf-8", errors="replace").rstrip("\r\n")
        done += len(raw) + 1
        if done >= next_report:
            advance_to(done)
            next_report = done + REPORT_BYTES
    advance_to(total)


#: bytes of text handed at once to a whole-block parser (NumPy, pyarrow) by line_blocks
BLOCK_BYTES = 16 << 20


def line_blocks(data: bytes, size: int | None = None):
    """Splits ``data`` at ``\\n`` line ends into blocks of about ``size`` bytes (views, not copies)
    and reports each block to the progress bar once the caller has parsed it (when the generator
    resumes). Callers give up on data holding a lone ``\\r`` line end (see has_lone_cr)."""
    size = size or BLOCK_BYTES
    total, start = len(data), 0
    while start < total:
        end = data.find(b"\n", min(start + size, total) - 1)
        end = total if end < 0 else end + 1
        yield memoryview(data)[start:end]
        start = end
        advance_to(start)
    advance_to(total)


def has_lone_cr(data: bytes) -> bool:
    """Whether some line ends in a lone ``\\r`` (old Mac endings), which splitlines() honours."""
    if b"\r" not in data:  # (a search stops at the first; a count reads it all)
        return False
    return data.count(b"\r") != data.count(b"\r\n")


#: whether readers try their whole-block parsers before reading line by line (tests turn it off
#: to compare the two)
FAST = True


def csv_columns(data: bytes, names, types: dict, delimiter=","):
    """Typed columns ``types`` ({name: arrow type name, or ``"dictionary"`` for strings encoded
    as 32-bit codes into a dictionary of the distinct values, one per block until the caller
    unifies them}) of comma-separated ``data`` whose fields are ``names``, parsed in blocks by
    pyarrow's CSV reader: no quoting, only an empty field is null, every line must have all the
    fields. Returns a pyarrow Table with one row per line (so that row i is line i + 1), or None
    when pyarrow is not installed, FAST is off, the data has blank lines (line numbers would
    shift) or lone CR line ends, or a field does not
    convert: the caller then reads line by line and names the line."""
    if not FAST or not data or data.isspace() or has_lone_cr(data):
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        return None
    read = pacsv.ReadOptions(column_names=list(names), use_threads=True)
    parse = pacsv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False, newlines_in_values=False,
                               ignore_empty_lines=True)
    column_types = {k: pa.dictionary(pa.int32(), pa.string()) if v == "dictionary" else getattr(pa, v)()
                    for k, v in types.items()}
    convert = pacsv.ConvertOptions(column_types=column_types,
                                   include_columns=list(types), null_values=[""], strings_can_be_null=False,
                                   quoted_strings_can_be_null=False, check_utf8=True)
    tables = []
    for block in line_blocks(data):
        try:
            table = pacsv.read_csv(pa.py_buffer(block), read_options=read, parse_options=parse,
                                   convert_options=convert)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
            return None
        # pyarrow skips an empty line (and rejects one of blanks: a single field, where ``names``
        # has more): fewer rows than lines means that the rows are no longer the lines
        lines = int(np.count_nonzero(np.frombuffer(block, np.uint8) == 10)) + int(block[-1] != 10)
        if table.num_rows != lines:
            return None
        tables.append(table)
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


# a line of blanks only between two lines
_BLANK_LINE = re.compile(rb"\n[ \t\r\f\v]*\n")


def fail(path, lineno, msg):
    raise ValueError(f"{path}:{lineno}: {msg}")


def number(path, lineno, field, text, *, integer=False, allow_empty=False):
    """Parses a numeric field, raising ValueError naming the file, line and field: a whole
    number must fit a 64-bit integer, any other number must be finite (no nan or inf)."""
    t = text.strip()
    if not t:
        if allow_empty:
            return None
        fail(path, lineno, f"field '{field}' is empty")
    try:
        v = int(t) if integer else float(t)
    except ValueError:
        fail(path, lineno, f"field '{field}' is not a {'whole ' if integer else ''}number: {t!r}")
    if integer and not INT64[0] <= v <= INT64[1]:
        fail(path, lineno, f"field '{field}' is out of range: {t}; expected a whole number between -2^63 and 2^63 - 1")
    if not integer and not math.isfinite(v):
        fail(path, lineno, f"field '{field}' must be a finite number, got {t!r}")
    return v


def check_finite(path, linenos, values, what):
    """Raises ValueError naming the first line whose derived value (e.g. a span or a shifted
    submit time) is not finite (an overflow of finite fields, such as 1e308 - -1e308)."""
    v = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(v)
    if bad.any():
        i = int(np.argmax(bad))
        fail(path, linenos[i], f"{what} is out of range ({v[i]}); expected a finite number of seconds")


def check_task_total(path, linenos, counts, describe, remedy):
    """Raises ValueError naming the line at which the running total of ``counts`` (tasks per
    row, in floating point so that no count wraps around) passes MAX_TASKS; ``describe(i)``
    says what row i holds. Called before the tasks are made, so that an absurd count is an
    error rather than an attempt to allocate terabytes; then refuses (``ResourceError``, naming
    the line of the largest row) a total whose workload would not fit in memory."""
    total = np.cumsum(np.asarray(counts, dtype=np.float64))
    if len(total) and not total[-1] <= MAX_TASKS:
        i = int(np.argmax(~(total <= MAX_TASKS)))
        fail(path, linenos[i], f"{describe(i)}: {total[i]:.4g} tasks with the lines above it; a workload holds at most "
                               f"{MAX_TASKS:,} tasks; {remedy}")
    if len(total):
        # the tasks fit the engines' numbering; do they fit in memory while the workload is built?
        i = int(np.argmax(np.asarray(counts, dtype=np.float64)))
        check_reader_tasks(total[-1], f"{path}:{linenos[i]}: {describe(i)}; the trace's workload", remedy=remedy)
