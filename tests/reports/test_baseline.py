"""The probe gate's baseline: accepted changes with a reason, refused when incomplete."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.reporting.baseline import AcceptedChange, load_accepted_changes
from codex_probe.rig.baseline import BaselineError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "baseline.toml"
    path.write_text(text)
    return path


def test_entries_read_with_changed_as_the_default_verdict(tmp_path: Path) -> None:
    baseline = load_accepted_changes(
        write(
            tmp_path,
            """
# 0.171.0 applies new instructions on a cold resume
[[expected]]
codex = "0.171.0"
id = "resume-refresh-cold"
reason = "the dispatcher clears the session instead (see docs/observations)"

[[expected]]
codex = "0.120.0"
id = "error-steer-wrong-turn"
verdict = "broken"
reason = "0.120.0 never answers a steer to a finished turn"
""",
        )
    )
    assert baseline.for_version("0.171.0") == {
        "resume-refresh-cold": AcceptedChange(
            "0.171.0",
            "resume-refresh-cold",
            "changed",
            "the dispatcher clears the session instead (see docs/observations)",
        )
    }
    assert baseline.for_version("0.120.0")["error-steer-wrong-turn"].verdict == "broken"


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('[[expected]]\ncodex = "0.171.0"\nid = "a"\n', "expected #1: 'reason' is missing"),
        (
            '[[expected]]\ncodex = "0.171.0"\nid = "a"\nreason = "r"\nverdict = "holds"\n',
            "expected #1: verdict must be changed or broken or unsupported, got 'holds'",
        ),
        (
            '[[expected]]\ncodex = "0.171.0"\nid = "a"\nreason = "r"\nwhy = "x"\n',
            "expected #1: unknown key(s) why",
        ),
        (
            '[[expected]]\ncodex = "0.171.0"\nassumption = "a"\nreason = "r"\n',
            "expected #1: unknown key(s) assumption",
        ),
        (
            '[[expected]]\ncodex = "0.171.0"\nid = "a"\nreason = "r"\nfailure = "x"\n',
            "expected #1: unknown key(s) failure",
        ),
        (
            '[[expected]]\ncodex = "1"\nid = "a"\nreason = "r"\n'
            '[[expected]]\ncodex = "1"\nid = "a"\nreason = "again"\n',
            "expected #2: repeats expected #1 (a on 1)",
        ),
        ('[expect]\ncodex = "1"\n', "unknown key(s) expect"),
        ("[[expected]\n", "not TOML"),
    ],
)
def test_an_incomplete_or_repeated_entry_is_refused_naming_the_file_and_entry(
    tmp_path: Path, text: str, complaint: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(BaselineError) as caught:
        load_accepted_changes(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert complaint in str(caught.value)


def test_a_missing_baseline_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="no such baseline file"):
        load_accepted_changes(tmp_path / "nothing.toml")
