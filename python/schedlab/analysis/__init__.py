"""Analysis of results: statistics over seeds (``stats``) and the standard plots (``plot``;
matplotlib is imported only when a plot is drawn)."""
from . import plot, stats

__all__ = ["plot", "stats"]
