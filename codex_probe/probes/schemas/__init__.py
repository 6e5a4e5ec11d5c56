"""The JSON schemas of the files the probes write (codex_probe/probes/formats.py)."""
