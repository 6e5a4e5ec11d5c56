"""codex-probe: a protocol conformance and probe harness for the Codex app-server.

Every part lives under this one name. The floors, lowest first: `harness` (the reference
implementation and the plumbing), `fake_appserver`, `rig` (the lab), `probes` and
`conformance` side by side, `reporting` (the writers), and `cli` (the command). harness/,
fake_appserver/, probes/ and conformance/ sit at the top of the checkout, as the design
names them; the links here map them into this package (the wheel holds them as folders).

Kept free of imports: the fake app-server's launcher loads this package first.
"""
