"""The sources of a reproduction bundle's reproduce.py: standard-library modules that
codex_probe/probes/releases/repro/assemble.py joins into the one file a bundle carries."""
