"""Downloading traces into the cache with SHA-256 checks, against a local mirror (an HTTP server
on 127.0.0.1 and a file:// URL serving a temporary copy of the shared samples)."""
import functools
import hashlib
import http.server
import os
import shutil
import threading

import pytest

import schedlab as sl
from schedlab import download as dl
from conftest import trace_path


@pytest.fixture
def mirror(tmp_path):
    """A temporary copy of some shared trace files in the shared/traces layout."""
    root = tmp_path / "mirror"
    for rel in ("alibaba2017/batch_task.csv", "hawk_eagle/YH_small.tr"):
        src = trace_path(*rel.split("/"))
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, root / rel)
    return root


@pytest.fixture
def http_mirror(mirror):
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            requests.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(mirror)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def yh_small(mirror):
    sha = hashlib.sha256((mirror / "hawk_eagle" / "YH_small.tr").read_bytes()).hexdigest()
    sl.datasets.register_remote(dl.Remote("test_yh_small", "https://example.invalid/YH_small.tr", sha,
                                 "hawk_eagle/YH_small.tr", "tr", "10 Yahoo jobs"))
    yield sha
    dl.REMOTES.pop("test_yh_small", None)
    sl.datasets._BUILDERS.pop("test_yh_small", None)


def test_download_from_http_mirror_is_cached_and_checked(http_mirror, tmp_path):
    url, requests = http_mirror
    cache = tmp_path / "cache"
    path = sl.datasets.download("alibaba2017_batch_task", mirror=url, cache_dir=cache)
    assert path == str(cache / "alibaba2017_batch_task" / "batch_task.csv")
    assert dl.sha256_of(path) == dl.REMOTES["alibaba2017_batch_task"].sha256
    assert requests == ["/alibaba2017/batch_task.csv"]
    # cached: no second request
    assert sl.datasets.download("alibaba2017_batch_task", mirror=url, cache_dir=cache) == path
    assert len(requests) == 1
    # a corrupted cache file is detected and fetched again
    with open(path, "r+b") as f:
        f.write(b"X")
    sl.datasets.download("alibaba2017_batch_task", mirror=url, cache_dir=cache)
    assert len(requests) == 2 and dl.sha256_of(path) == dl.REMOTES["alibaba2017_batch_task"].sha256
    # and it loads as a dataset (options go to the reader)
    w = sl.datasets.load("alibaba2017_batch_task", mirror=url, cache_dir=str(cache), statuses=["Failed"])
    assert w.n_tasks == 1126


def test_checksum_mismatch_keeps_nothing(http_mirror, tmp_path, yh_small, mirror):
    url, _ = http_mirror
    (mirror / "hawk_eagle" / "YH_small.tr").write_bytes(b"7.5 1 2.0 2.0\n")  # the mirror serves other bytes
    cache = tmp_path / "cache"
    with pytest.raises(ValueError, match="SHA-256 mismatch"):
        dl.download("test_yh_small", mirror=url, cache_dir=cache)
    assert not any(p.is_file() for p in cache.rglob("*"))


def test_file_url_and_plain_folder_mirrors(mirror, tmp_path, yh_small, monkeypatch):
    w = sl.datasets.load("test_yh_small", mirror=mirror.as_uri(), cache_dir=str(tmp_path / "c1"))
    assert (w.n_jobs, w.n_tasks) == (10, 183)
    monkeypatch.setenv("SCHEDLAB_MIRROR", str(mirror))
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "c2"))
    path = dl.download("test_yh_small")
    assert path.startswith(str(tmp_path / "c2")) and dl.sha256_of(path) == yh_small
    assert "test_yh_small" in list(sl.datasets.available()["name"])


def test_unreachable_mirror_and_unknown_names(tmp_path):
    with pytest.raises(ConnectionError, match="could not download"):
        dl.download("alibaba2017_batch_task", mirror="http://127.0.0.1:9", cache_dir=tmp_path)
    assert not any(p.is_file() for p in tmp_path.rglob("*"))
    with pytest.raises(ValueError, match="unknown downloadable trace 'nope'"):
        dl.download("nope", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="64 hex digits"):
        sl.datasets.register_remote(dl.Remote("bad", "http://x", "abc", "x", "tr"))


def test_builtin_catalogue_checksums_match_the_shared_samples():
    shared = trace_path("SHA256SUMS").parent
    sums = {}
    for line in (shared / "SHA256SUMS").read_text().splitlines():
        digest, rel = line.split()
        sums[rel.lstrip("./")] = digest
    for r in dl.REMOTES.values():
        if r.name.startswith("test_"):
            continue
        assert sums[r.path] == r.sha256, r.name
        assert r.url.startswith("https://") and r.url.endswith(os.path.basename(r.path))
