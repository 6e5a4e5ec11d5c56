"""The chaos campaign: codex-probe tried as a hostile user and a flaky CI machine would.

`./nox -s chaos` (or `python -m tools.chaos`) runs every row against the real codex-cli
and the fake and prints one table: test, expected, observed, pass/fail; it exits 1 if any
row fails. Each row has its own deadline and ends every process it started. Issue 25 is
where the campaign comes from; `rows/` holds one module per kind of trouble.
"""
