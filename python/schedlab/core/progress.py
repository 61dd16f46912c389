"""Progress bars for long operations (simulations, trace reading, sweeps).

A simulation reports its progress at the engines' polling point (every 2^20 events, where Ctrl-C
is also checked): ``simulate(..., progress=True)`` shows a tqdm bar with the events processed,
events per second and the simulated time; runs shorter than 2^20 events show nothing. A scheduler
written in Python reports every 1,024 calls of its callbacks instead, with the simulated time.

Whether a bar is shown when ``progress`` is not given: ``$SCHEDLAB_PROGRESS`` (``1`` on, ``0``
off) when set, else ``progress`` in the configuration file (:mod:`schedlab.core.config`), else on in an interactive terminal or a notebook, off in scripts, pipes and worker
threads.
"""
from __future__ import annotations

import os
import sys
import threading


def enabled(progress=None) -> bool:
    """Whether to show a progress bar: ``progress`` when given, else ``$SCHEDLAB_PROGRESS``, else
    whether the program runs interactively (a terminal on stderr or a notebook) on the main thread."""
    if progress is not None:
        return bool(progress)
    from .config import get
    chosen = get("progress").value
    if chosen is not None:
        return chosen
    if threading.current_thread() is not threading.main_thread():
        return False
    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def bar(**kwargs):
    """A tqdm bar (``tqdm.auto``: a widget in notebooks, text in a terminal) on stderr."""
    from tqdm.auto import tqdm
    kwargs.setdefault("file", sys.stderr)
    kwargs.setdefault("dynamic_ncols", True)
    return tqdm(**kwargs)


class SimulationProgress:
    """The engines' progress callback ``(events, simulated_time)``: a bar of events processed (with
    events/s) and the simulated time, created at the first report, so short runs print nothing."""

    def __init__(self, desc: str = "simulate", unit: str = " events"):
        self.desc = desc
        self.unit = unit
        self.bar = None
        self.reports = 0

    def __call__(self, events: int, now: float):
        self.reports += 1
        if self.bar is None:  # (rates count from the first report)
            self.bar = bar(desc=self.desc, unit=self.unit, unit_scale=True, leave=False, initial=int(events))
        else:
            self.bar.update(int(events) - self.bar.n)
        self.bar.set_postfix_str(f"simulated {now:,.0f} s", refresh=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
