"""The rig: the middle floor every probe, conformance check and benchmark stands on.

A wiretap (the loopback mock Responses provider), isolated homes, the backends (the real
codex-cli of a version or the fake imitating it) and the one session class that drives an
app-server through a scenario with the driver's own request params.
"""
