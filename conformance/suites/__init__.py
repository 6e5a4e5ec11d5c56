"""The conformance checks, one test per check id (conformance/registry.py)."""
