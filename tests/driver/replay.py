"""Replay one fault-campaign schedule and judge it: `python -m tests.driver.replay FILE`.

FILE is a schedule the campaign wrote when a rule broke (its path is printed with
the failure). The run starts the fake with the schedule's profile and fault script,
drives the reference driver exactly as the campaign does, prints the steps, the
requests as the fake got them and every broken rule, and exits 1 if a rule broke.
`--out DIR` keeps the run's JSON-RPC transcript and model requests there.

Timing is part of some paths (a turn still running or already over when a message
arrives), so a replay follows the same schedule, not always the same interleaving.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests.driver.campaign import Run, Seeds, run_example
from tests.driver.invariants import check_invariants, describe
from tests.driver.schedules import Schedule, ScheduleFileError

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEDULES_DIR = Path(tempfile.gettempdir()) / "codex-probe-fault-schedules"


def replay_command(path: Path) -> str:
    """The one command a person pastes to replay the schedule at `path`."""
    return (
        f"cd {shlex.quote(str(REPO_ROOT))} && "
        f"{shlex.quote(sys.executable)} -m tests.driver.replay {shlex.quote(str(path))}"
    )


def save_schedule(schedule: Schedule, run: Run | None = None) -> Path:
    """Write the schedule (named by its content) and, if given, the run's transcript."""
    text = schedule.to_jsonl()
    SCHEDULES_DIR.mkdir(parents=True, exist_ok=True)
    path = SCHEDULES_DIR / f"schedule-{hashlib.sha256(text.encode()).hexdigest()[:16]}.jsonl"
    path.write_text(text, encoding="utf-8")
    if run is not None:
        write_run(run, path.with_suffix(""))
    return path


def write_run(run: Run, stem: Path) -> None:
    """`STEM.transcript.jsonl` and `STEM.model-requests.json` of a run."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{stem}.transcript.jsonl").write_text(
        "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in run.transcript),
        encoding="utf-8",
    )
    Path(f"{stem}.model-requests.json").write_text(
        json.dumps(run.model_requests, indent=1, ensure_ascii=False), encoding="utf-8"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.driver.replay", description=__doc__.splitlines()[0]
    )
    parser.add_argument("schedule", type=Path, help="a schedule file the campaign wrote")
    parser.add_argument("--out", type=Path, help="keep the transcript and model requests here")
    args = parser.parse_args(argv)
    try:
        schedule = Schedule.from_jsonl(args.schedule.read_text(encoding="utf-8"))
    except (OSError, ScheduleFileError) as error:
        print(f"replay: {args.schedule}: {error}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="codex-probe-replay-") as scratch:
        folder = Path(scratch)
        run = run_example(schedule, folder / "example", Seeds(folder / "seeds"))
    violations = check_invariants(run)
    print(schedule.to_jsonl(), end="")
    print(describe(run))
    if args.out is not None:
        write_run(run, args.out / "run")
        print(f"transcript and model requests: {args.out}")
    if violations:
        print(f"{len(violations)} rule(s) broken:")
        print("\n".join(f"  {v}" for v in violations))
        return 1
    print("every rule held")
    return 0


if __name__ == "__main__":
    sys.exit(main())
