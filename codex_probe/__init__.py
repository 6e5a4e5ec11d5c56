"""codex-probe: a protocol conformance and probe harness for the Codex app-server.

Every part lives under this one name, each a real folder here. The floors, lowest first:
`harness` (the reference implementation and the plumbing), `fake_appserver`, `rig` (the
lab), `probes` and `conformance` side by side, `reporting` (the writers), and `cli` (the
command).

Kept free of imports: the fake app-server's launcher loads this package first. The version
is a constant for the same reason; pyproject.toml reads it from here (one place).
"""

__version__ = "0.1.0"
