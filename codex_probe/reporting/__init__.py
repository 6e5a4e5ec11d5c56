"""What CI and a release gate consume: summary.md, the Allure report, the gate, schema drift.

Everything here reads what the probes wrote (`verdict.json`, `allure-results/`) or the
schemas the codex binaries generate; nothing here runs a probe itself except the gate,
which starts `codex-probe probe` as a subprocess when a version has no verdict yet.
"""
