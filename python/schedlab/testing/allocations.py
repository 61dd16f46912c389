"""Hadoop 1.x Fair Scheduler allocation files as ``fair`` parameters.

``fair_allocations(xml)`` reads the allocation file format of Hadoop 1.2.1's fair scheduler
(``mapred.fairscheduler.allocation.file``, read by ``PoolManager.reloadAllocs``) and returns the
``fair`` scheduler's parameters with pool and user names as keys, ready for
:class:`~schedlab.testing.Harness` (which maps names to ids)::

    params = fair_allocations(open("pools.xml").read())
    h = Harness("fair", params=params | {"pool_by": "queue"})

Elements read: ``<pool name>`` with ``minMaps``, ``minReduces``, ``maxMaps``, ``maxReduces``,
``maxRunningJobs``, ``weight``, ``minSharePreemptionTimeout``, ``schedulingMode``; ``<user name>``
with ``maxRunningJobs``; ``poolMaxJobsDefault``, ``userMaxJobsDefault``,
``defaultMinSharePreemptionTimeout``, ``fairSharePreemptionTimeout``,
``defaultPoolSchedulingMode``. Timeouts are in seconds, as in the file. An unknown element or
a bad value is a ValueError naming it.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

_POOL_FIELDS = {  # element -> (parameter, type)
    "minMaps": ("min_map_shares", int),
    "minReduces": ("min_reduce_shares", int),
    "maxMaps": ("pool_max_maps", int),
    "maxReduces": ("pool_max_reduces", int),
    "maxRunningJobs": ("pool_max_jobs", int),
    "weight": ("pool_weights", float),
    "minSharePreemptionTimeout": ("min_share_timeouts", float),
    "schedulingMode": ("pool_modes", str),
}
_TOP_FIELDS = {
    "poolMaxJobsDefault": ("pool_max_jobs_default", int),
    "userMaxJobsDefault": ("user_max_jobs_default", int),
    "defaultMinSharePreemptionTimeout": ("default_min_share_timeout", float),
    "fairSharePreemptionTimeout": ("fair_share_timeout", float),
    "defaultPoolSchedulingMode": ("pool_mode", str),
}


def _value(elem, kind, where):
    text = (elem.text or "").strip()
    try:
        value = kind(text)
    except ValueError:
        what = {int: "a whole number", float: "a number"}.get(kind, "a value")
        raise ValueError(f"fair allocations: {where}: <{elem.tag}> must be {what}, not {text!r}") from None
    if kind is str:
        value = value.lower()
        if value not in ("fair", "fifo"):
            raise ValueError(f"fair allocations: {where}: <{elem.tag}> must be fair or fifo, not {text!r}")
    elif value < 0:
        raise ValueError(f"fair allocations: {where}: <{elem.tag}> must not be negative")
    return value


def fair_allocations(xml: str) -> dict:
    """The ``fair`` parameters an allocation file sets (see the module's documentation)."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as e:
        raise ValueError(f"fair allocations: not well-formed XML ({e})") from None
    if root.tag != "allocations":
        raise ValueError(f"fair allocations: the root element must be <allocations>, not <{root.tag}>")
    keyed: dict[str, list[str]] = {}
    params: dict = {}
    for elem in root:
        if elem.tag in ("pool", "user"):
            name = elem.get("name")
            if not name:
                raise ValueError(f"fair allocations: a <{elem.tag}> element has no name")
            for field in elem:
                where = f"{elem.tag} {name!r}"
                if elem.tag == "user":
                    if field.tag != "maxRunningJobs":
                        raise ValueError(f"fair allocations: {where}: unknown element <{field.tag}>")
                    keyed.setdefault("user_max_jobs", []).append(f"{name}:{_value(field, int, where)}")
                    continue
                if field.tag not in _POOL_FIELDS:
                    raise ValueError(f"fair allocations: {where}: unknown element <{field.tag}>")
                param, kind = _POOL_FIELDS[field.tag]
                keyed.setdefault(param, []).append(f"{name}:{_value(field, kind, where)}")
        elif elem.tag in _TOP_FIELDS:
            param, kind = _TOP_FIELDS[elem.tag]
            params[param] = _value(elem, kind, "allocations")
        else:
            raise ValueError(f"fair allocations: unknown element <{elem.tag}>")
    for param, items in keyed.items():
        params[param] = ",".join(items)
    return params
