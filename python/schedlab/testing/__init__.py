"""Tools for testing schedulers: :class:`Harness` drives a MapReduce-engine scheduler step by
step, the way Hadoop's own scheduler unit tests drive theirs (see ``docs/conformance.md``)."""
from .allocations import fair_allocations
from .harness import Assignment, Harness

__all__ = ["Assignment", "Harness", "fair_allocations"]
