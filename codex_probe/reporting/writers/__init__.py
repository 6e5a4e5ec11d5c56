"""The writers of a run's events (probes/runner/events.py: `Writer`), one module each: the
reproduction bundles, verdict.json, surface.json, the Allure results, the terminal, a
history's record. A command lists the ones it writes, once."""
