"""The garbage collector's policy in a codex-probe process: a history of many releases, a
probe, an exploration.

Python's full collections go over every object the process holds. Measured on a history of
six releases (0.145.0 to 0.149.1, Python 3.11, its default thresholds): 21 full collections
took 3.8 CPU-s of the process's 36.8, each one in the event loop that serves the lanes and
scenarios of the releases in flight, and each went over the same long-lived objects: what
the imports made, the releases' parsed schemas, the records of the releases done. The
objects that die in cycles are a release's own (its lanes, runs and records), dropped when
it ends. So:

- once the command's modules are imported, what exists is frozen (`gc.freeze`): it lives as
  long as the process, and no collection goes over it again;
- a full collection starts by itself only after FULL_EVERY_YOUNGER_PASSES passes of the
  middle generation (Python's default: 10), where the heap would otherwise be gone over
  several times a release;
- a sweep of releases collects fully once each release has ended (`release_ended`), which
  frees that release's cycles: the process's memory stays where it was (274 MB after the
  six releases, 264 MB with the default thresholds; 378 MB with the rare full collections
  alone).

The same history with this policy: 9 full collections, 1.3 CPU-s.
"""

from __future__ import annotations

import gc

FULL_EVERY_YOUNGER_PASSES = 1000


def command_loaded() -> None:
    """What the process holds once its command's modules are loaded is frozen, and the
    automatic full collections made rare (see the module). For the process's own command
    only: a test that calls the command in process keeps Python's defaults."""
    gc.collect()
    gc.freeze()
    youngest, middle, _ = gc.get_threshold()
    gc.set_threshold(youngest, middle, FULL_EVERY_YOUNGER_PASSES)


def release_ended() -> None:
    """A release of a sweep has ended: its cycles are freed now (see the module)."""
    gc.collect()
