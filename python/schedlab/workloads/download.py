"""Public traces fetched on demand into a local cache, checked against SHA-256 sums.

>>> sl.datasets.download("alibaba2017_batch_task")        # path of the cached, verified file
>>> w = sl.datasets.load("alibaba2017_batch_task")         # downloaded once, then read from the cache

Where files are looked for and kept:

* ``$SCHEDLAB_TRACES`` (or ``traces`` in the configuration file, :mod:`schedlab.core.config`): a folder of trace files laid out as ``MIRROR/alibaba2017/batch_task.csv``,
  ``MIRROR/swim/FB-2009_samples_24_times_1hr_0.tsv``, ``MIRROR/hawk_eagle/YH1_sub.tr``, ... (the
  ``path`` column of ``available()``); a file found there with the right checksum is used in place,
  nothing is downloaded or copied.
* the cache: ``$SCHEDLAB_CACHE`` (or ``cache`` in the configuration file), else ``$XDG_CACHE_HOME/schedlab``, else ``~/.cache/schedlab``;
  a downloaded file is kept at ``CACHE/NAME/FILENAME``.

Without internet access, place the file by hand at either place (the error of a failed download
says where, with the expected SHA-256). A file is downloaded to a temporary name beside its final place, its SHA-256 checked, and only
then renamed into place, so the cache never holds a partial or corrupt file; a cached file is
checked again each time it is used (``verify=False`` skips that for very large files).

``mirror=`` (or ``$SCHEDLAB_MIRROR``, or ``mirror`` in the configuration file) replaces the public address by a mirror with the layout of
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

from ..core import config


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


def cache_dir(path=None, create: bool = False) -> str:
    """The download cache folder: ``path``, else ``$SCHEDLAB_CACHE``, else the configuration
    file's ``cache``, else ``$XDG_CACHE_HOME/schedlab``, else ``~/.cache/schedlab`` (created only
    with ``create``)."""
    d = path or config.get("cache").value or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "schedlab")
    d = os.path.abspath(os.path.expanduser(os.fspath(d)))
    if create:
        os.makedirs(d, exist_ok=True)
    return d


def traces_dir():
    """``$SCHEDLAB_TRACES`` (else the configuration file's ``traces``) when it names a folder,
    else None."""
    d = config.get("traces").value
    return os.path.abspath(os.path.expanduser(d)) if d and os.path.isdir(os.path.expanduser(d)) else None


def find_sample(relpath: str):
    """A trace file by its path in the traces layout (``hawk_eagle/GOOG_subtrace.tr``): under the
    traces folder (``$SCHEDLAB_TRACES`` or the configuration file's ``traces``) when one is set,
    else in a ``shared/traces`` folder beside a source checkout (a parent of the package or of the
    working directory); None when absent."""
    here = traces_dir()
    if here:
        bases = [here]
    else:
        import pathlib
        parents = list(pathlib.Path(__file__).resolve().parents) + [pathlib.Path.cwd(), *pathlib.Path.cwd().parents]
        bases = [p / "shared" / "traces" for p in parents]
    for base in bases:
        p = os.path.join(base, relpath)
        if os.path.isfile(p):
            return p
    return None


def local_copy(name: str, verify: bool = True):
    """The path of trace ``name`` under ``$SCHEDLAB_TRACES`` or in the cache when it is there (and,
    with ``verify``, has the right checksum); else None. Downloads nothing."""
    r = _remote(name)
    places = [os.path.join(d, r.path) for d in [traces_dir()] if d]
    places.append(os.path.join(cache_dir(), r.name, r.filename))
    for p in places:
        if os.path.isfile(p) and (not verify or sha256_of(p) == r.sha256):
            return p
    return None


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
    mirror = mirror or config.get("mirror").value
    if not mirror:
        return remote.url
    mirror = os.fspath(mirror)
    if "://" not in mirror:  # a plain folder
        return urllib.parse.urljoin("file:", urllib.request.pathname2url(os.path.join(os.path.abspath(mirror),
                                                                                      remote.path)))
    return mirror.rstrip("/") + "/" + urllib.parse.quote(remote.path)


def fetch(url: str, sha256: str, dest: str, *, timeout: float = 60.0, progress=None) -> str:
    """Downloads ``url`` to ``dest`` atomically, checking its SHA-256; returns ``dest``. A
    mismatch or a network error raises and leaves nothing at ``dest``."""
    folder = os.path.dirname(os.path.abspath(dest))
    created = _missing_parents(folder)
    os.makedirs(folder, exist_ok=True)
    kept = False
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(dest) + ".", suffix=".part", dir=folder)
    try:
        h = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
                bar = None
                if _progress_enabled(progress):
                    from ..core.progress import bar as _bar
                    total = resp.headers.get("Content-Length") if hasattr(resp, "headers") else None
                    bar = _bar(total=int(total) if total else None, desc=os.path.basename(dest), unit="B",
                               unit_scale=True, leave=False)
                try:
                    while True:
                        b = resp.read(1 << 20)
                        if not b:
                            break
                        h.update(b)
                        out.write(b)
                        if bar is not None:
                            bar.update(len(b))
                finally:
                    if bar is not None:
                        bar.close()
                out.flush()
                os.fsync(out.fileno())
        except OSError as e:  # URLError and HTTPError are OSErrors
            raise ConnectionError(f"could not download {url}: {e}") from None
        got = h.hexdigest()
        if got != sha256.lower():
            raise ValueError(f"{url}: SHA-256 mismatch: expected {sha256.lower()}, got {got}; "
                             "the file was not kept")
        os.replace(tmp, dest)
        kept = True
        return dest
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if not kept:  # leave no folder behind that this call made
            for d in created:
                try:
                    os.rmdir(d)
                except OSError:
                    break


def _missing_parents(folder):
    """The folders to create for ``folder``, deepest first."""
    out = []
    while folder and not os.path.exists(folder):
        out.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return out


def _remote(name):
    if name not in REMOTES:
        import difflib
        close = difflib.get_close_matches(name, list(REMOTES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown downloadable trace {name!r}{hint}; available: {', '.join(sorted(REMOTES))}")
    return REMOTES[name]


def download(name: str, *, mirror=None, cache_dir=None, verify: bool = True, force: bool = False,
             progress=None) -> str:
    """The local path of the downloadable trace ``name``: its copy under ``$SCHEDLAB_TRACES`` when
    that has the right checksum, else the cache's, fetched when missing (see the module
    documentation). ``force`` downloads again. A failed download keeps nothing and raises
    ``ConnectionError`` saying where to place the file by hand."""
    r = _remote(name)
    if not force and mirror is None and cache_dir is None and not config.get("mirror").value:
        here = traces_dir()
        if here and os.path.isfile(os.path.join(here, r.path)):
            p = os.path.join(here, r.path)
            if not verify or sha256_of(p) == r.sha256:
                return p
    dest = os.path.join(globals()["cache_dir"](cache_dir), r.name, r.filename)
    if os.path.exists(dest) and not force:
        if not verify or sha256_of(dest) == r.sha256:
            return dest
        os.unlink(dest)  # corrupt or stale: fetch again
    try:
        return fetch(_source_url(r, mirror), r.sha256, dest, progress=progress)
    except ConnectionError as e:
        raise ConnectionError(
            f"{e}. Without internet access, place the file by hand at {dest} (SHA-256 {r.sha256}), or "
            f"set SCHEDLAB_TRACES to a folder holding {r.path}") from None


def _progress_enabled(progress):
    from ..core.progress import enabled
    return enabled(progress)


def available():
    """The downloadable traces as a DataFrame (with where each is found locally, if it is)."""
    import pandas as pd
    return pd.DataFrame([{"name": r.name, "format": r.format, "path": r.path, "url": r.url, "sha256": r.sha256,
                          "description": r.description, "local": local_copy(r.name, verify=False)}
                         for r in REMOTES.values()])


def clear_cache(name: str | None = None, cache_dir=None):
    """Deletes one cached trace (or the whole cache)."""
    d = globals()["cache_dir"](cache_dir)
    if name:
        _remote(name)
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
    Remote("swim_fb2009_1",
           f"{_GH}/SWIMProjectUCB/SWIM/87d76d4720d6518ccecf29b374a870878c741bc6/workloadSuite/"
           "FB-2009_samples_24_times_1hr_1.tsv",
           "b6056e0f7686b475935ce613a96b1916c84daf52dfa1aff82172d87900e961d8",
           "swim/FB-2009_samples_24_times_1hr_1.tsv", "swim",
           "SWIM Facebook 2009 day sample 1 (6,638 jobs; New BSD)"),
    Remote("yahoo_yh1",
           f"{_GH}/meghanat/megha_simulator/f4fdaf4/traces/input/YH1_sub.tr",
           "0f4775615b614756a17e94c34da52077d56ba93283f3f9907e415d9c0046788d",
           "hawk_eagle/YH1_sub.tr", "tr",
           "Yahoo trace of the Hawk/Eagle papers, sub-sample 1 (2,910 jobs; .tr format)"),
    Remote("yahoo_yh2",
           f"{_GH}/meghanat/megha_simulator/f4fdaf4/traces/input/YH2_sub.tr",
           "d0cd6d2ebf4eb8d05bff62316c750aa364c6b957d2a4afef4f696f32cc451912",
           "hawk_eagle/YH2_sub.tr", "tr",
           "Yahoo trace of the Hawk/Eagle papers, sub-sample 2 (3,363 jobs; .tr format)"),
    Remote("yahoo_small",
           f"{_GH}/meghanat/megha_simulator/f4fdaf4/traces/input/YH_small.tr",
           "64cf3c474410c8cbf154ba765e8cc30bcd91a49acdd88f59b0fedbd8a4ef390c",
           "hawk_eagle/YH_small.tr", "tr",
           "10 jobs of the Yahoo trace (.tr format; a smoke test)"),
    Remote("google2011_sub",
           f"{_GH}/meghanat/megha_simulator/f4fdaf4/traces/input/GOOG_subtrace.tr",
           "a2c2d3668d8f087b7ed0f0714ca9c1690e3c7087c83911225756df9521d9a222",
           "hawk_eagle/GOOG_subtrace.tr", "tr",
           "Google cluster-data 2011 sub-trace of the Hawk/Eagle papers (10,000 jobs; CC-BY 4.0, Google)"),
]
