"""Apache Spark event logs (the JSON-lines files a Spark application writes with
``spark.eventLog.enabled``) as workloads for the ``spark`` engine.

``read_spark_eventlog(path)`` takes one event log file -- plain, or compressed as Spark writes
them (``.zstd``, ``.lz4``, ``.snappy``; the optional extra ``schedlab[eventlogs]`` reads them)
-- or a rolling event log directory (``eventlog_v2_*``, whose ``events_<n>_*`` files are read in
order). Each stage that ran becomes a workload job (``job_id`` = stage id) with its tasks; its
``parents`` are the stages it reads shuffle output from, its ``dag`` the Spark job that ran it,
its ``user`` the fair scheduler pool (``spark.scheduler.pool``, else ``"default"``), its
``submit_time`` its Spark job's submission, in seconds from the application's start.

A task's ``work`` is its successful attempt's recorded duration (launch to finish, which holds
the launch and result overheads; ``task_launch_overhead`` should stay 0 when replaying). Its
preferred locations, which event logs do not record, are inferred: a task of a stage that reads
a cached RDD and ran PROCESS_LOCAL prefers that executor; a task that ran NODE_LOCAL prefers the
executors of its host; a stage reading shuffle output prefers, as Spark's reduce locality
(``spark.shuffle.reduceLocality.enabled``) does, the executors holding at least 20 % of its first
parent's shuffle output (when that parent has fewer than 1,000 tasks and the stage too); other
tasks have no preference (RACK_LOCAL and ANY launches do not tell where the task wanted to run).
Task failures, retries and speculative copies are not replayed: a task is its successful attempt.

The workload's ``spark`` attribute (a :class:`SparkLog`) holds the rest: the executors, a
:meth:`SparkLog.cluster` of them for the engine, the engine options the application ran with
(:attr:`SparkLog.options`: locality waits, speculation, dynamic allocation, executors per
host), its scheduling mode and pools, the recorded attempts and Spark jobs.

Malformed or truncated logs raise ``ValueError`` naming the file and line.
"""
from __future__ import annotations

import json
import math
import os
import re
import struct
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...core.workload import Workload

_CODECS = {".zstd": "zstd", ".zst": "zstd", ".lz4": "lz4", ".snappy": "snappy", ".lzf": "lzf"}
_LOCALITY = {"PROCESS_LOCAL": 0, "NODE_LOCAL": 1, "NO_PREF": 2, "RACK_LOCAL": 3, "ANY": 4}
REDUCER_PREF_FRACTION = 0.2    # MapOutputTracker's REDUCER_PREF_LOCS_FRACTION
SHUFFLE_PREF_THRESHOLD = 1000  # SHUFFLE_PREF_MAP_THRESHOLD and SHUFFLE_PREF_REDUCE_THRESHOLD


@dataclass
class SparkLog:
    """What an event log tells beyond the workload."""
    path: str
    spark_version: str | None
    app_id: str | None
    app_start: float                 # epoch seconds of SparkListenerApplicationStart
    properties: dict                 # Spark properties (SparkListenerEnvironmentUpdate)
    executors: pd.DataFrame          # node, executor_id, host, cores, added, removed (s from app start)
    jobs: pd.DataFrame               # Spark jobs: job_id, pool, submit_time, finish_time, result, description, stages
    attempts: pd.DataFrame           # every recorded attempt
    options: dict = field(default_factory=dict)   # spark engine options the application ran with
    scheduler: str = "spark_fifo"    # spark.scheduler.mode
    stage_submitted: dict = field(default_factory=dict)  # stage id -> its first submission (s from app start)
    stages: pd.DataFrame | None = None  # the workload's job table as read (job_id = stage id, dag, parents, ...)
    tasks: pd.DataFrame | None = None   # its task table (replicas: the executors' nodes)

    def cluster(self, cores: int | None = None):
        """The executors as a cluster for the spark engine (one node per executor, in the order of
        :attr:`executors`; ``cores`` overrides each executor's recorded cores)."""
        from ...core.cluster import Cluster
        c = self.executors["cores"].to_numpy() if cores is None else cores
        return Cluster(nodes=len(self.executors), racks=1, map_slots=c, reduce_slots=0)


# ------------------------------------------------------------------------------ decoding

def _need_cramjam(path, codec):
    try:
        import cramjam
    except ImportError:
        raise ImportError(f"{path}: reading {codec}-compressed event logs needs the 'cramjam' package "
                          f"(pip install 'schedlab[eventlogs]')") from None
    return cramjam


def _lz4_blocks(path, data, cramjam):
    """lz4-java's LZ4BlockOutputStream framing (Spark's LZ4CompressionCodec): blocks of
    'LZ4Block', a token (method | level), compressed and original lengths and a checksum (32-bit
    little-endian each), then the block's bytes; an empty block ends the stream."""
    out, pos = [], 0
    while pos < len(data):
        if data[pos:pos + 8] != b"LZ4Block" or pos + 21 > len(data):
            raise ValueError(f"{path}: not an LZ4 block stream at byte {pos} (truncated or not written by Spark's lz4 codec)")
        token = data[pos + 8]
        clen, olen, _check = struct.unpack_from("<iii", data, pos + 9)
        pos += 21
        if clen < 0 or olen < 0 or pos + clen > len(data):
            raise ValueError(f"{path}: truncated LZ4 block at byte {pos - 21}")
        block = bytes(data[pos:pos + clen])
        pos += clen
        if olen == 0:
            continue  # the end mark (or an empty flush)
        method = token & 0xF0
        if method == 0x10:
            out.append(block)
        elif method == 0x20:
            out.append(bytes(cramjam.lz4.decompress_block(block, output_len=olen)))
        else:
            raise ValueError(f"{path}: unknown LZ4 block method {method:#x} at byte {pos - clen - 21}")
    return b"".join(out)


def _snappy_chunks(path, data, cramjam):
    """snappy-java's SnappyOutputStream framing (Spark's SnappyCompressionCodec): the header
    b'\\x82SNAPPY\\x00' and two 32-bit versions, then chunks of a 32-bit big-endian length and a
    raw snappy block."""
    magic = b"\x82SNAPPY\x00"
    if data[:8] != magic:
        raise ValueError(f"{path}: not a snappy-java stream (no \\x82SNAPPY header)")
    out, pos = [], 16
    while pos < len(data):
        if pos + 4 > len(data):
            raise ValueError(f"{path}: truncated snappy chunk at byte {pos}")
        (n,) = struct.unpack_from(">i", data, pos)
        pos += 4
        if n < 0 or pos + n > len(data):
            raise ValueError(f"{path}: truncated snappy chunk at byte {pos - 4}")
        out.append(bytes(cramjam.snappy.decompress_raw(bytes(data[pos:pos + n]))))
        pos += n
    return b"".join(out)


def _file_bytes(path):
    name = path[:-len(".inprogress")] if path.endswith(".inprogress") else path
    codec = _CODECS.get(os.path.splitext(name)[1].lower())
    with open(path, "rb") as f:
        data = f.read()
    if codec is None:
        return data
    if codec == "lzf":
        raise ValueError(f"{path}: lzf-compressed event logs are not supported (zstd, lz4 and snappy are)")
    cramjam = _need_cramjam(path, codec)
    try:
        if codec == "zstd":
            return bytes(cramjam.zstd.decompress(data))
        if codec == "lz4":
            return _lz4_blocks(path, data, cramjam)
        return _snappy_chunks(path, data, cramjam)
    except ValueError:
        raise
    except Exception as e:  # the codec's own error on corrupt or truncated input
        raise ValueError(f"{path}: cannot decompress the {codec} event log ({type(e).__name__}: {e})") from None


def _files(path):
    """The event log files of ``path`` in order: the file itself, or a rolling directory's
    events_<n>_* files by n."""
    if not os.path.isdir(path):
        return [path]
    files = []
    for name in os.listdir(path):
        m = re.match(r"events_(\d+)_", name)
        if m:
            files.append((int(m.group(1)), os.path.join(path, name)))
    if not files:
        raise ValueError(f"{path}: a directory without events_<n>_* files is not a rolling Spark event log")
    return [f for _, f in sorted(files)]


def _events(path):
    """Yields (file, line number, event dict)."""
    for f in _files(path):
        data = _file_bytes(f)
        lines = data.split(b"\n")
        for i, raw in enumerate(lines, start=1):
            raw = raw.strip()
            if not raw:
                continue
            try:
                ev = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                last = i == len(lines) or (i == len(lines) - 1 and lines[-1] == b"")
                what = "truncated event (the log ends inside it)" if last and not data.endswith(b"\n") else "not a JSON event"
                raise ValueError(f"{f}:{i}: {what}: {e.msg if hasattr(e, 'msg') else e}") from None
            if not isinstance(ev, dict) or "Event" not in ev:
                raise ValueError(f"{f}:{i}: not a Spark listener event (no 'Event' field)")
            yield f, i, ev


# ------------------------------------------------------------------------------ reading

def _get(ev, f, i, *keys, kind=None, event=None):
    event = event or ev.get("Event")
    cur = ev
    for k in keys:
        if not isinstance(cur, dict) or k not in cur:
            raise ValueError(f"{f}:{i}: {event} has no field {'/'.join(keys)!r}")
        cur = cur[k]
    if kind is not None:
        if kind is float and isinstance(cur, (int, float)) and not isinstance(cur, bool) and math.isfinite(cur):
            return float(cur)
        if kind is int and isinstance(cur, int) and not isinstance(cur, bool):
            return cur
        if kind is str and isinstance(cur, (str, int)):
            return str(cur)
        raise ValueError(f"{f}:{i}: {event} field {'/'.join(keys)!r} must be a "
                         f"{ {float: 'number', int: 'whole number', str: 'string'}[kind]}, got {cur!r}")
    return cur


def _obj(ev, f, i, key, kind=dict, event=None):
    """The optional field ``key`` of ``ev``: a dict (``kind=dict``) or list, empty when absent or
    null; anything else is a ValueError naming the file, line and field."""
    cur = ev.get(key) if isinstance(ev, dict) else None
    if cur is None:
        return kind()
    if not isinstance(cur, kind):
        raise ValueError(f"{f}:{i}: {event or ev.get('Event')} field {key!r} must be "
                         f"{'an object' if kind is dict else 'a list'}, got {cur!r}"[:300])
    return cur


def _number(ev, f, i, key, default, event=None):
    """The optional numeric field ``key`` of ``ev`` (``default`` when absent)."""
    cur = ev.get(key, default) if isinstance(ev, dict) else default
    if isinstance(cur, bool) or not isinstance(cur, (int, float)) or not math.isfinite(cur):
        raise ValueError(f"{f}:{i}: {event or ev.get('Event')} field {key!r} must be a number, got {cur!r}"[:300])
    return cur


def _seconds(text, default):
    """A Spark time property ('3s', '100ms', '1min'; a bare number is milliseconds) in seconds."""
    if text is None:
        return default
    m = re.fullmatch(r"\s*([0-9.]+)\s*(ms|s|m|min|h|d)?\s*", str(text))
    if not m:
        return default
    scale = {"ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
    return float(m.group(1)) * scale.get(m.group(2) or "ms")


def read_spark_eventlog(path, *, preferences: str = "inferred") -> Workload:
    """Reads a Spark event log (file or rolling directory) into a workload of stages; see the
    module's text. ``preferences="none"`` gives every task no preferred location."""
    path = os.fspath(path)
    if preferences not in ("inferred", "none"):
        raise ValueError(f"read_spark_eventlog: preferences must be 'inferred' or 'none', got {preferences!r}")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such event log")
    version = app_id = None
    app_start = None
    props: dict = {}
    executors: dict = {}       # id -> dict(host, cores, added, removed)
    jobs: dict = {}            # job id -> dict
    stage_info: dict = {}      # stage id -> dict(parents, n, job, rdd cached)
    stage_submit: dict = {}    # stage id -> Submission Time (ms) of its first attempt
    attempts = []              # rows
    first_time = None
    for f, i, ev in _events(path):
        kind = ev["Event"]
        if kind == "SparkListenerLogStart":
            version = ev.get("Spark Version")
        elif kind == "SparkListenerApplicationStart":
            app_start = _get(ev, f, i, "Timestamp", kind=float)
            app_id = ev.get("App ID")
        elif kind == "SparkListenerEnvironmentUpdate":
            sp = ev.get("Spark Properties") or {}
            if isinstance(sp, dict):
                props = dict(sp)
            elif isinstance(sp, list) and all(isinstance(kv, list) and len(kv) == 2 for kv in sp):
                props = {str(k): v for k, v in sp}
            else:
                raise ValueError(f"{f}:{i}: {kind} field 'Spark Properties' must be an object or a list of pairs")
        elif kind == "SparkListenerExecutorAdded":
            eid = _get(ev, f, i, "Executor ID", kind=str)
            executors[eid] = {"host": _get(ev, f, i, "Executor Info", "Host", kind=str),
                              "cores": _get(ev, f, i, "Executor Info", "Total Cores", kind=int),
                              "added": _get(ev, f, i, "Timestamp", kind=float), "removed": math.nan}
        elif kind == "SparkListenerExecutorRemoved":
            eid = _get(ev, f, i, "Executor ID", kind=str)
            if eid in executors:
                executors[eid]["removed"] = _get(ev, f, i, "Timestamp", kind=float)
        elif kind == "SparkListenerJobStart":
            jid = _get(ev, f, i, "Job ID", kind=int)
            submit = _get(ev, f, i, "Submission Time", kind=float)
            first_time = submit if first_time is None else min(first_time, submit)
            job_props = _obj(ev, f, i, "Properties")
            pool = job_props.get("spark.scheduler.pool") or "default"
            infos = _get(ev, f, i, "Stage Infos")
            if not isinstance(infos, list):
                raise ValueError(f"{f}:{i}: SparkListenerJobStart field 'Stage Infos' must be a list")
            for si in infos:
                sid = _get(si, f, i, "Stage ID", kind=int, event=kind)
                if sid not in stage_info:
                    parents = _get(si, f, i, "Parent IDs", event=kind)
                    if not isinstance(parents, list) or not all(isinstance(x, int) and not isinstance(x, bool)
                                                                for x in parents):
                        raise ValueError(f"{f}:{i}: {kind} field 'Stage Infos/Parent IDs' must be a list of stage ids, "
                                         f"got {parents!r}"[:300])
                    rdds = _obj(si, f, i, "RDD Info", list, event=kind)
                    cached = any(isinstance(r, dict) and isinstance(r.get("Storage Level"), dict)
                                 and (r["Storage Level"].get("Use Memory", False) is True
                                      or r["Storage Level"].get("Use Disk", False) is True) for r in rdds)
                    stage_info[sid] = {"parents": [int(p) for p in parents], "job": jid, "cached": cached,
                                       "n": _get(si, f, i, "Number of Tasks", kind=int, event=kind)}
            jobs[jid] = {"submit": submit, "pool": str(pool), "finish": math.nan, "result": None,
                         "description": job_props.get("spark.job.description"),
                         "stages": [int(_get(si, f, i, "Stage ID", kind=int, event=kind)) for si in infos]}
        elif kind in ("SparkListenerStageSubmitted", "SparkListenerStageCompleted"):
            si = _get(ev, f, i, "Stage Info")
            sid = _get(si, f, i, "Stage ID", kind=int, event=kind)
            if sid in stage_info and any(isinstance(r, dict) and _number(r, f, i, "Number of Cached Partitions", 0, kind) > 0
                                         for r in _obj(si, f, i, "RDD Info", list, event=kind)):
                stage_info[sid]["cached"] = True
            if kind == "SparkListenerStageSubmitted" and si.get("Submission Time") is not None:
                t = _get(si, f, i, "Submission Time", kind=float, event=kind)
                stage_submit[sid] = min(stage_submit.get(sid, t), t)
        elif kind == "SparkListenerTaskEnd":
            sid = _get(ev, f, i, "Stage ID", kind=int)
            ti = _get(ev, f, i, "Task Info")
            if not isinstance(ti, dict):
                raise ValueError(f"{f}:{i}: {kind} field 'Task Info' must be an object, got {ti!r}"[:300])
            reason = _obj(ev, f, i, "Task End Reason").get("Reason", "Success")
            metrics = _obj(ev, f, i, "Task Metrics")
            shuffle = _number(_obj(metrics, f, i, "Shuffle Write Metrics", event=kind), f, i, "Shuffle Bytes Written", 0,
                              kind)
            loc = _get(ti, f, i, "Locality", kind=str, event=kind)
            if loc not in _LOCALITY:
                raise ValueError(f"{f}:{i}: SparkListenerTaskEnd field 'Task Info/Locality' is not a locality level: {loc!r}")
            attempts.append({
                "stage": sid, "stage_attempt": int(_number(ev, f, i, "Stage Attempt ID", 0)),
                "index": _get(ti, f, i, "Index", kind=int, event=kind), "task_id": _get(ti, f, i, "Task ID", kind=int, event=kind),
                "executor_id": _get(ti, f, i, "Executor ID", kind=str, event=kind), "host": _get(ti, f, i, "Host", kind=str, event=kind),
                "launch": _get(ti, f, i, "Launch Time", kind=float, event=kind), "finish": _get(ti, f, i, "Finish Time", kind=float, event=kind),
                "locality": loc, "speculative": bool(ti.get("Speculative", False)),
                "succeeded": reason == "Success" and not ti.get("Failed", False) and not ti.get("Killed", False),
                "reason": str(reason), "shuffle_bytes": float(shuffle or 0)})
        elif kind == "SparkListenerJobEnd":
            jid = _get(ev, f, i, "Job ID", kind=int)
            if jid in jobs:
                jobs[jid]["finish"] = _get(ev, f, i, "Completion Time", kind=float)
                jobs[jid]["result"] = _obj(ev, f, i, "Job Result").get("Result")
    if not jobs:
        raise ValueError(f"{path}: the event log has no SparkListenerJobStart event (no Spark job ran)")
    if app_start is None:
        app_start = first_time
    att = pd.DataFrame(attempts, columns=["stage", "stage_attempt", "index", "task_id", "executor_id", "host", "launch",
                                          "finish", "locality", "speculative", "succeeded", "reason", "shuffle_bytes"])
    if att.empty or not att["succeeded"].any():
        raise ValueError(f"{path}: the event log has no successful task (SparkListenerTaskEnd)")

    # executors: those added, plus any only seen running tasks; nodes grouped by host
    for r in att.itertuples():
        if r.executor_id not in executors:
            executors[r.executor_id] = {"host": r.host, "cores": 1, "added": math.nan, "removed": math.nan}
    host_order = list(dict.fromkeys(e["host"] for e in executors.values()))
    ids = sorted(executors, key=lambda e: (host_order.index(executors[e]["host"]), int(e) if e.isdigit() else 1 << 62, e))
    ex = pd.DataFrame({"node": np.arange(len(ids)), "executor_id": ids,
                       "host": [executors[e]["host"] for e in ids],
                       "cores": [int(executors[e]["cores"]) for e in ids],
                       "added": [(executors[e]["added"] - app_start) / 1000 for e in ids],
                       "removed": [(executors[e]["removed"] - app_start) / 1000 for e in ids]})
    node_of = dict(zip(ids, ex["node"]))
    host_nodes = ex.groupby("host", sort=False)["node"].apply(list).to_dict()

    att["node"] = att["executor_id"].map(node_of).astype(np.int64)
    att["launch_time"] = (att["launch"] - app_start) / 1000
    att["finish_time"] = (att["finish"] - app_start) / 1000
    ok = att[att["succeeded"]].sort_values(["stage", "index", "finish"]).drop_duplicates(["stage", "index"])
    ran = set(ok["stage"])
    unknown = ran - set(stage_info)
    if unknown:
        raise ValueError(f"{path}: tasks of stage {min(unknown)} appear but no SparkListenerJobStart lists that stage")

    # reduce locality: executors holding >= 20 % of the first parent's shuffle output
    def reduce_prefs(sid):
        parents = [p for p in stage_info[sid]["parents"] if p in ran]
        if not parents or stage_info[sid]["n"] >= SHUFFLE_PREF_THRESHOLD:
            return None
        p = parents[0]
        maps = ok[ok["stage"] == p]
        if len(maps) >= SHUFFLE_PREF_THRESHOLD:
            return None
        weight = maps["shuffle_bytes"] if maps["shuffle_bytes"].sum() > 0 else pd.Series(1.0, index=maps.index)
        share = weight.groupby(maps["node"]).sum() / weight.sum()
        return sorted(int(n) for n in share[share >= REDUCER_PREF_FRACTION].index)

    replicas = []
    pref_cache = {}
    for r in ok.itertuples():
        rep = None
        if preferences == "inferred":
            if r.locality == "NODE_LOCAL":
                rep = host_nodes[r.host]
            elif stage_info[r.stage]["parents"] and any(p in ran for p in stage_info[r.stage]["parents"]):
                if r.stage not in pref_cache:
                    pref_cache[r.stage] = reduce_prefs(r.stage)
                rep = pref_cache[r.stage]
            elif r.locality == "PROCESS_LOCAL" and stage_info[r.stage]["cached"]:
                rep = [int(r.node)]
        replicas.append(rep)

    stages = sorted(ran)
    job_rows = []
    for sid in stages:
        jid = stage_info[sid]["job"]
        job_rows.append({"job_id": sid, "submit_time": (jobs[jid]["submit"] - app_start) / 1000,
                         "user": jobs[jid]["pool"], "dag": jid,
                         "parents": [p for p in stage_info[sid]["parents"] if p in ran]})
    jtab = pd.DataFrame(job_rows)
    # a parent stage run by a later job (rare) cannot be a parent: its child would wait forever
    submit = dict(zip(jtab["job_id"], jtab["submit_time"]))
    jtab["parents"] = [[p for p in ps if submit[p] <= submit[s]] for s, ps in zip(jtab["job_id"], jtab["parents"])]
    work = (ok["finish"] - ok["launch"]).to_numpy(float) / 1000
    if (work < 0).any():
        k = int(np.argmax(work < 0))
        raise ValueError(f"{path}: task {int(ok['task_id'].iloc[k])} of stage {int(ok['stage'].iloc[k])} finishes before it launches")
    ttab = pd.DataFrame({"job_id": ok["stage"].to_numpy(), "work": np.maximum(work, 1e-3),
                         "replicas": replicas, "task_index": ok["index"].to_numpy()})
    name = os.path.basename(os.path.normpath(path))
    w = Workload.from_frames(jtab, ttab, name=name, source=path)

    jt = pd.DataFrame([{"job_id": j, "pool": v["pool"], "submit_time": (v["submit"] - app_start) / 1000,
                        "finish_time": (v["finish"] - app_start) / 1000, "result": v["result"],
                        "description": v["description"],
                        "stages": [s for s in v["stages"] if s in ran]} for j, v in sorted(jobs.items())])
    per_host = ex.groupby("host").size()
    options = {
        "locality_wait": _seconds(props.get("spark.locality.wait"), 3.0),
        "speculation": str(props.get("spark.speculation", "false")).lower() == "true",
        "dynamic_allocation": str(props.get("spark.dynamicAllocation.enabled", "false")).lower() == "true",
        "executors_per_host": int(per_host.iloc[0]) if per_host.nunique() == 1 and len(set(ex["host"])) * int(per_host.iloc[0]) == len(ex)
        and (ex.groupby("host", sort=False)["node"].apply(lambda s: list(s) == list(range(s.min(), s.max() + 1)))).all() else 1,
    }
    for lvl in ("process", "node", "rack"):
        if f"spark.locality.wait.{lvl}" in props:
            options[f"locality_wait_{lvl}"] = _seconds(props[f"spark.locality.wait.{lvl}"], options["locality_wait"])
    if "spark.scheduler.revive.interval" in props:
        options["revive_interval"] = _seconds(props["spark.scheduler.revive.interval"], 1.0)
    if "spark.task.cpus" in props:
        options["task_cpus"] = int(props["spark.task.cpus"])
    # Spark 4 raised the speculation defaults (3.0 and 0.9, read from Spark 4.3.0's ConfigEntry
    # defaults) over Spark 3's 1.5 and 0.75, the engine's defaults
    spark4 = bool(re.match(r"\s*([4-9]|\d\d+)\.", str(version or "")))
    for key, opt, v4 in (("spark.speculation.multiplier", "speculation_multiplier", 3.0),
                         ("spark.speculation.quantile", "speculation_quantile", 0.9)):
        if key in props:
            options[opt] = float(props[key])
        elif spark4:
            options[opt] = v4
    w.spark = SparkLog(path=path, spark_version=version, app_id=app_id, app_start=app_start / 1000, properties=props,
                       executors=ex, jobs=jt, attempts=att.drop(columns=["launch", "finish"]), options=options,
                       scheduler="spark_fair" if str(props.get("spark.scheduler.mode", "FIFO")).upper() == "FAIR" else "spark_fifo",
                       stage_submitted={k: (v - app_start) / 1000 for k, v in stage_submit.items()},
                       stages=jtab, tasks=ttab)
    return w


def read_spark_eventlogs(paths, *, preferences: str = "inferred") -> Workload:
    """Several Spark applications' event logs as one workload for a standalone cluster shared by
    them (docs/spark.md, "Several applications"). Each log is read by :func:`read_spark_eventlog`;
    the workload's ``application`` job column names each stage's application (its App ID, else
    the log's file name), its ``job_id`` is ``"<application>/<stage id>"`` and its ``dag``
    ``"<application>/<Spark job id>"``; times count from the earliest application's start.
    ``workload.spark_applications`` holds each application's start (``arrival``), its
    ``spark.cores.max`` and ``spark.executor.cores`` (the scheduler parameter
    ``application_settings`` by default), ``workload.spark_logs`` the :class:`SparkLog` of each,
    ``workload.spark_stage_ids`` each job's Spark stage id, and :func:`workers` a cluster of
    the hosts the executors ran on. Preferred locations name those workers."""
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("read_spark_eventlogs: no event log given")
    ws = [read_spark_eventlog(p, preferences=preferences) for p in paths]
    logs = [w.spark for w in ws]
    names = []
    for path, log in zip(paths, logs):
        name = log.app_id or os.path.basename(os.path.normpath(path))
        if name in names:
            raise ValueError(f"{path}: application {name!r} appears twice (the same event log read twice?)")
        names.append(name)
    t0 = min(log.app_start for log in logs)
    hosts = list(dict.fromkeys(h for log in logs for h in log.executors["host"]))
    host_index = {h: i for i, h in enumerate(hosts)}
    jobs, tasks, apps, stage_ids = [], [], [], []
    for name, w, log in zip(names, ws, logs):
        offset = log.app_start - t0
        j = log.stages
        stage_ids.extend(int(x) for x in j["job_id"])
        jobs.append(pd.DataFrame({
            "job_id": [f"{name}/{s}" for s in j["job_id"]], "submit_time": j["submit_time"].to_numpy(float) + offset,
            "user": j["user"].to_numpy(), "dag": [f"{name}/{d}" for d in j["dag"]],
            "parents": [[f"{name}/{p}" for p in ps] for ps in j["parents"]], "application": name}))
        t = log.tasks
        node_host = log.executors.set_index("node")["host"].map(host_index)
        reps = [None if r is None or len(r) == 0 else sorted({int(node_host[n]) for n in r}) for r in t["replicas"]] \
            if "replicas" in t else [None] * len(t)
        tasks.append(pd.DataFrame({"job_id": [f"{name}/{s}" for s in t["job_id"]], "work": t["work"].to_numpy(float),
                                   "replicas": reps}))
        props = log.properties
        apps.append({"application": name, "arrival": offset,
                     "cores_max": _whole(props.get("spark.cores.max")), "executor_cores": _whole(props.get("spark.executor.cores"))})
    jtab = pd.concat(jobs, ignore_index=True)
    order = np.argsort(jtab["submit_time"].to_numpy(), kind="stable")
    jtab = jtab.iloc[order].reset_index(drop=True)
    stage_ids = [stage_ids[i] for i in order]
    w = Workload.from_frames(jtab, pd.concat(tasks, ignore_index=True), name="+".join(names), source=";".join(paths))
    by_id = dict(zip(jtab["job_id"], stage_ids))
    w.spark_stage_ids = np.array([by_id[j] for j in w.job_ids], dtype=np.int64)
    w.spark_applications = pd.DataFrame(apps).set_index("application")
    w.spark_logs = dict(zip(names, logs))
    w.spark_workers = _workers(logs, hosts)
    return w


def _whole(text):
    try:
        v = int(str(text).strip())
    except (TypeError, ValueError):
        return None
    return v if v > 0 else None


def _workers(logs, hosts):
    """One worker per host, with the most cores any one application's executors had there."""
    from ...core.cluster import Cluster
    cores = [max(int(log.executors.loc[log.executors["host"] == h, "cores"].sum()) for log in logs) for h in hosts]
    return Cluster(nodes=len(hosts), racks=1, map_slots=cores, reduce_slots=0)
