"""Public traces fetched on demand into a local cache, checked against SHA-256 sums.

>>> sl.datasets.download("alibaba2017_batch_task")        # path of the cached, verified file
>>> w = sl.datasets.load("alibaba2017_batch_task")         # downloaded once, then read from the cache

The cache is ``$SCHEDLAB_CACHE``, else ``$XDG_CACHE_HOME/schedlab``, else ``~/.cache/schedlab``.
A file is downloaded to a temporary name beside its final place, its SHA-256 checked, and only
then renamed into place, so the cache never holds a partial or corrupt file; a cached file is
checked again each time it is used (``verify=False`` skips that for very large files).

``mirror=`` (or ``$SCHEDLAB_MIRROR``) replaces the public address by a mirror with the layout of
``shared/traces`` (``MIRROR/alibaba2017/batch_task.csv``, ...): an ``http(s)://`` or ``file://``
URL or a plain folder. :func:`schedlab.datasets.register_remote` adds further traces.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Remote:
    """A downloadable trace file."""
    name: str
    url: str            # public address
    sha256: str
    path: str           # relative path inside a mirror of shared/traces
    format: str         # schedlab.read_trace format
    description: str = ""
    options: dict = field(default_factory=dict)  # default reader options

    @property
    def filename(self) -> str:
        return os.path.basename(self.path)


REMOTES: dict = {}


def cache_dir(path=None) -> str:
    """The download cache folder (created if missing)."""
    d = path or os.environ.get("SCHEDLAB_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "schedlab")
    os.makedirs(d, exist_ok=True)
    return os.path.abspath(d)


def sha256_of(path, chunk=1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(chunk)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def _source_url(remote: Remote, mirror) -> str:
    mirror = mirror or os.environ.get("SCHEDLAB_MIRROR")
    if not mirror:
        return remote.url
    mirror = os.fspath(mirror)
    if "://" not in mirror:  # a plain folder
        return urllib.parse.urljoin("file:", urllib.request.pathname2url(os.path.join(os.path.abspath(mirror),
                                                                                      remote.path)))
    return mirror.rstrip("/") + "/" + urllib.parse.quote(remote.path)


def fetch(url: str, sha256: str, dest: str, *, timeout: float = 60.0) -> str:
    """Downloads ``url`` to ``dest`` atomically, checking its SHA-256; returns ``dest``. A
    mismatch or a network error raises and leaves nothing at ``dest``."""
    folder = os.path.dirname(os.path.abspath(dest))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(dest) + ".", suffix=".part", dir=folder)
    try:
        h = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
                while True:
                    b = resp.read(1 << 20)
                    if not b:
                        break
                    h.update(b)
                    out.write(b)
                out.flush()
                os.fsync(out.fileno())
        except OSError as e:  # URLError and HTTPError are OSErrors
            raise ConnectionError(f"could not download {url}: {e}") from None
        got = h.hexdigest()
        if got != sha256.lower():
            raise ValueError(f"{url}: SHA-256 mismatch: expected {sha256.lower()}, got {got}; "
                             "the file was not kept")
        os.replace(tmp, dest)
        return dest
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def download(name: str, *, mirror=None, cache_dir=None, verify: bool = True, force: bool = False) -> str:
    """The local path of the downloadable trace ``name``, fetched into the cache when missing
    (see the module documentation). ``force`` downloads again."""
    if name not in REMOTES:
        raise ValueError(f"unknown downloadable trace {name!r}; available: {', '.join(sorted(REMOTES))}")
    r = REMOTES[name]
    dest = os.path.join(globals()["cache_dir"](cache_dir), r.name, r.filename)
    if os.path.exists(dest) and not force:
        if not verify or sha256_of(dest) == r.sha256:
            return dest
        os.unlink(dest)  # corrupt or stale: fetch again
    return fetch(_source_url(r, mirror), r.sha256, dest)


def available():
    """The downloadable traces as a DataFrame."""
    import pandas as pd
    return pd.DataFrame([{"name": r.name, "format": r.format, "url": r.url, "sha256": r.sha256,
                          "description": r.description} for r in REMOTES.values()])


def clear_cache(name: str | None = None, cache_dir=None):
    """Deletes one cached trace (or the whole cache)."""
    d = globals()["cache_dir"](cache_dir)
    target = os.path.join(d, name) if name else d
    if os.path.isdir(target):
        shutil.rmtree(target)


_GH = "https://raw.githubusercontent.com"
BUILTIN = [
    Remote("alibaba2017_batch_task",
           f"{_GH}/PriyadarshiniDas/Workload-Prediction-of-Alibaba-Cluster-Dataset/"
           "53aa3e8cdc6017036590947b959e0cc4f6694f8f/batch_task.csv",
           "7586e51ef58390b41d67de4263018296d4b0437b414625f97085f9040c727cce",
           "alibaba2017/batch_task.csv", "alibaba2017",
           "Alibaba cluster-trace-v2017 batch_task table (12,951 jobs, 80,553 task rows; research use)"),
    Remote("swim_fb2009_0",
           f"{_GH}/SWIMProjectUCB/SWIM/87d76d4720d6518ccecf29b374a870878c741bc6/workloadSuite/"
           "FB-2009_samples_24_times_1hr_0.tsv",
           "5033ea98faed398b132957e4555c9ba88653d1ffaac470f370b761b79cd44c19",
           "swim/FB-2009_samples_24_times_1hr_0.tsv", "swim",
           "SWIM Facebook 2009 day sample 0 (5,894 jobs; New BSD)"),
    Remote("swim_fb2010_0",
           f"{_GH}/SWIMProjectUCB/SWIM/290681f7a299f07eca8fb120fc2d42cc3fef9db1/workloadSuite/"
           "FB-2010_samples_24_times_1hr_0.tsv",
           "65f758ecd0495955de30c560b2d57fc351c9b2c89117b82f16b2f8f30fb4e9d9",
           "swim/FB-2010_samples_24_times_1hr_0.tsv", "swim",
           "SWIM Facebook 2010 day sample 0 (24,442 jobs; New BSD)"),
]
