"""`codex-probe probe` as the rows run it: the real default codex-cli (and the fake beside
it, for fidelity), into an --out folder of the row's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tools.chaos.context import CODEX_PROBE, Context, Run

VERSION = "0.171.0"
# A whole probe run of VERSION took 17 to 25 s on the 2 shared cores of the campaign's
# machine; rows that wait for one give it this long.
PROBE_S = 240.0


def start_probe(
    ctx: Context,
    *args: str,
    out: Path,
    name: str = "probe",
    env: Mapping[str, str] | None = None,
    version: str = VERSION,
) -> Run:
    argv = [*CODEX_PROBE, "probe", "--codex", version, "--out", str(out), *args]
    return ctx.start(argv, name=name, env=env)
