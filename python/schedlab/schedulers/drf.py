"""Dominant Resource Fairness written in Python on the share engine: the built-in ``drf``
(Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI
2011, as compared in [Zhou 2019, ch. 5]) as a :class:`~schedlab.schedulers.SharePolicy`.

A user's dominant share is the largest of its allocated vcores and memory over the pooled
cluster's, divided by its weight; the eligible user with the lowest one is served next and its
task goes to the lowest-id fitting node (first fit). It gives the built-in's schedules exactly; it
is the reference example of the share-engine interface.
"""
from __future__ import annotations

from ..core.catalogue import register
from .base import SharePolicy


@register
class DrfInPython(SharePolicy):
    """DRF's dominant share, written in Python (same schedules as ``drf``)."""

    name = "drf_in_python"
    citation = "Dominant Resource Fairness (Ghodsi et al., NSDI'11) [Zhou 2019, ch. 5]"
    summary = "the built-in drf, written in Python (example and benchmark of the share-engine interface)"
    placement = "first_fit"

    def init(self, sim):
        self.total_vcores, self.total_memory = sim.total_vcores, sim.total_memory

    def share(self, sim, user):
        vcores, memory = sim.allocated(user)
        d = 0.0
        if self.total_vcores > 0:
            d = max(d, vcores / self.total_vcores)
        if self.total_memory > 0:
            d = max(d, memory / self.total_memory)
        return d / sim.weight(user)
