"""How many scenarios run at once by default (a module of its own: the command line reads
it while building its options, before anything that runs a scenario is imported)."""

from __future__ import annotations

import os

# Scenarios mostly wait on the app-server and the wiretap, not on a core: three per core
# keep the cores busy (measured on 2 cores: learn 0.150.0 in 11.3 s at 6, 13.4 s at 2).
DEFAULT_JOBS = 3 * (os.cpu_count() or 2)
