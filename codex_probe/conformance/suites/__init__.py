"""The conformance checks, one test per check id (codex_probe/conformance/registry.py)."""
