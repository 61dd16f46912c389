"""The cluster: racks of nodes with slots, speeds and container capacities."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import _core
from . import guard

CLUSTER_BYTES_PER_NODE = 128

_NODE_COLUMNS = ("rack", "speed", "map_slots", "reduce_slots", "slots", "vcores", "memory", "node_type")


def _per_node(name, value, n, dtype):
    try:
        if np.dtype(dtype) == np.int32 and isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.size \
                and (value.max() > 2**31 - 1 or value.min() < -2**31):
            raise OverflowError  # (a NumPy cast would wrap around)
        arr = np.asarray(value, dtype=dtype)
    except (OverflowError, TypeError, ValueError):
        kind = "whole numbers in [-2^31, 2^31 - 1]" if np.dtype(dtype).kind == "i" else "numbers"
        raise ValueError(f"Cluster: '{name}' must be {kind} (one, or one per node), got {value!r}") from None
    if arr.ndim == 0:
        return np.full(n, arr, dtype=dtype)
    if arr.shape != (n,):
        raise ValueError(f"Cluster: '{name}' has {arr.size} values, expected 1 or one per node ({n})")
    return arr


class Cluster:
    """A cluster of ``nodes`` nodes in ``racks`` racks.

    Parameters mirror the three resource models the engines understand:

    * Hadoop 1 typed slots: ``map_slots`` and ``reduce_slots`` per node;
    * generic worker slots (Sparrow-style): ``slots`` per node (default map + reduce slots);
    * YARN containers: ``vcores`` and ``memory`` (MB) per node.

    ``speeds`` gives each node's speed factor (work per second; 1 is the reference node), and
    ``node_types`` an integer class per node for heterogeneity and placement constraints. Any
    per-node argument may be a scalar or a sequence with one value per node. Nodes are laid out
    in contiguous blocks per rack.

    >>> Cluster(nodes=20, racks=2, map_slots=2, reduce_slots=2)
    Cluster(nodes=20, racks=2, map_slots=40, reduce_slots=40)
    """

    def __init__(self, nodes=1, racks=1, map_slots=2, reduce_slots=2, *, slots=None, speeds=1.0,
                 vcores=None, memory=None, node_types=0, rack_of=None):
        if isinstance(nodes, (bool, np.bool_)) or not isinstance(nodes, (int, np.integer)):
            raise ValueError(f"Cluster: 'nodes' must be a whole number, got {nodes!r}")
        if not 1 <= nodes <= 2**31 - 1:
            raise ValueError(f"Cluster: 'nodes' must be at least 1 and at most 2^31 - 1 (nodes are numbered with 32-bit "
                             f"integers), got {nodes}")
        # the per-node columns, their temporaries and the native copy: refused before they are made
        guard.check_memory(float(nodes) * CLUSTER_BYTES_PER_NODE, f"Cluster: {nodes} nodes",
                           remedy="a cluster of fewer nodes")
        if not isinstance(racks, (int, np.integer)) or racks < 1 or racks > nodes:
            raise ValueError(f"Cluster: 'racks' must be between 1 and nodes ({nodes}), got {racks!r}")
        n = int(nodes)
        ms = _per_node("map_slots", map_slots, n, np.int32)
        rs = _per_node("reduce_slots", reduce_slots, n, np.int32)
        cols = {
            "rack": (np.asarray(rack_of, dtype=np.int32) if rack_of is not None
                     else (np.arange(n, dtype=np.int64) * racks // n).astype(np.int32)),
            "speed": _per_node("speeds", speeds, n, np.float64),
            "map_slots": ms,
            "reduce_slots": rs,
            "slots": _per_node("slots", ms.astype(np.int64) + rs if slots is None else slots, n, np.int32),
            "vcores": _per_node("vcores", (ms + rs) if vcores is None else vcores, n, np.float64),
            "memory": _per_node("memory", 2048.0 * (ms + rs) if memory is None else memory, n, np.float64),
            "node_type": _per_node("node_types", node_types, n, np.int32),
        }
        for name in ("map_slots", "reduce_slots", "slots"):
            if (cols[name] < 0).any():
                raise ValueError(f"Cluster: '{name}' must not be negative")
            # the engines count a cluster's slots (and the worker engine its workers, one per
            # slot) in 32-bit integers
            total = int(cols[name].sum(dtype=np.int64))
            if total > 2**31 - 1:
                raise ValueError(f"Cluster: '{name}' adds up to {total} over the {n} nodes, more than the engines "
                                 f"can count (2^31 - 1); give fewer {name.replace('_', ' ')} per node")
        if not (np.isfinite(cols["speed"]).all() and (cols["speed"] > 0).all()):
            raise ValueError("Cluster: 'speeds' must be positive numbers")
        self._cols = cols
        self.n_racks = int(racks) if rack_of is None else int(cols["rack"].max()) + 1
        self._native = None

    @classmethod
    def from_frame(cls, nodes: pd.DataFrame) -> "Cluster":
        """Builds a cluster from one row per node with any of the columns ``rack``, ``speed``,
        ``map_slots``, ``reduce_slots``, ``slots``, ``vcores``, ``memory``, ``node_type``."""
        unknown = set(nodes.columns) - set(_NODE_COLUMNS)
        if unknown:
            raise ValueError(f"Cluster.from_frame: unknown columns {sorted(unknown)}; known: {list(_NODE_COLUMNS)}")
        get = lambda c, d: nodes[c].to_numpy() if c in nodes else d  # noqa: E731
        return cls(nodes=len(nodes), racks=1, map_slots=get("map_slots", 2), reduce_slots=get("reduce_slots", 2),
                   slots=get("slots", None), speeds=get("speed", 1.0), vcores=get("vcores", None),
                   memory=get("memory", None), node_types=get("node_type", 0), rack_of=get("rack", None))

    @property
    def n_nodes(self) -> int:
        return len(self._cols["speed"])

    @property
    def nodes(self) -> pd.DataFrame:
        """One row per node."""
        return pd.DataFrame(self._cols).rename_axis("node")

    def native(self):
        if self._native is None:
            self._native = _core.Cluster(self._cols, self.n_racks)
        return self._native

    def __getstate__(self):
        return {"_cols": self._cols, "n_racks": self.n_racks, "_native": None}

    def config(self) -> dict:
        """A JSON-able description (used to key results stores)."""
        return {k: v.tolist() for k, v in self._cols.items()} | {"racks": self.n_racks}

    def __repr__(self):
        c = self._cols
        return (f"Cluster(nodes={self.n_nodes}, racks={self.n_racks}, map_slots={int(c['map_slots'].sum())}, "
                f"reduce_slots={int(c['reduce_slots'].sum())})")
