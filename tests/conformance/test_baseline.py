"""The expected-failures baseline: loading it strictly, and how it judges an outcome."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codex_probe.conformance.baseline import (
    ExpectedFailure,
    ExpectedFailures,
    default_baseline_path,
    judge,
    load_expected_failures,
)
from codex_probe.conformance.registry import conformance_checks
from codex_probe.rig.baseline import BaselineError

ENTRY = ExpectedFailure(
    "CONF-INTERRUPT-001", "0.120.0", "real", "never answered upstream", re.compile("RequestTimeout")
)


def test_a_check_without_an_entry_keeps_its_own_outcome() -> None:
    assert judge(None, True, "").outcome == "passed"
    assert judge(None, False, "boom").outcome == "failed"


def test_a_baselined_failure_for_the_stated_reason_is_an_expected_failure() -> None:
    failure = "codex_probe.harness.jsonrpc.errors.RequestTimeout: turn/interrupt ..."
    judged = judge(ENTRY, False, failure)
    assert judged.outcome == "expected failure"
    assert judged.message == "baseline: never answered upstream"


def test_a_baselined_check_failing_for_another_reason_is_a_new_failure() -> None:
    judged = judge(ENTRY, False, "AssertionError: answered {}")
    assert judged.outcome == "failed"
    assert "fails differently" in judged.message and "RequestTimeout" in judged.message


def test_a_baselined_check_that_now_passes_is_a_stale_entry_and_fails() -> None:
    judged = judge(ENTRY, True, "")
    assert judged.outcome == "failed"
    assert judged.message.startswith("stale baseline entry: CONF-INTERRUPT-001 on real-0.120.0")


def test_a_real_entry_covers_the_fake_imitating_that_release() -> None:
    baseline = ExpectedFailures(None, {ENTRY.key: ENTRY})
    assert baseline.lookup("CONF-INTERRUPT-001", "0.120.0", "fake") is ENTRY
    assert baseline.lookup("CONF-INTERRUPT-001", "0.171.0", "fake") is None
    judged = judge(ENTRY, False, "RequestTimeout: turn/interrupt (id 9) ...", "fake")
    assert judged.outcome == "expected failure"
    assert judged.message == "baseline, as upstream: never answered upstream"


def test_a_fake_entry_takes_precedence_over_the_real_one() -> None:
    drift = ExpectedFailure(ENTRY.check, ENTRY.version, "fake", "fake drift", re.compile("drift"))
    baseline = ExpectedFailures(None, {ENTRY.key: ENTRY, drift.key: drift})
    assert baseline.lookup("CONF-INTERRUPT-001", "0.120.0", "fake") is drift
    assert baseline.lookup("CONF-INTERRUPT-001", "0.120.0", "real") is ENTRY


def test_a_fake_that_passes_where_upstream_fails_no_longer_imitates_the_release() -> None:
    judged = judge(ENTRY, True, "", "fake")
    assert judged.outcome == "failed"
    assert judged.message.startswith(
        "CONF-INTERRUPT-001 on fake-0.120.0 (imitating real-0.120.0) passes where upstream fails"
    )


GOOD = """
[[expected]]
codex = "0.171.0"
id = "CONF-METHOD-001"
backend = "fake"
reason = "because"
failure = 'x'
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "baseline.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_entry_reads_with_real_as_its_default_backend_and_its_failure_as_written(
    tmp_path: Path,
) -> None:
    text = """
# measured on 0.120.0
[[expected]]
codex = "0.120.0"
id = "CONF-INTERRUPT-001"
reason = "never answered upstream"
failure = 'RequestTimeout: turn/interrupt \\(id \\d+\\) '
"""
    baseline = load_expected_failures(write(tmp_path, text))
    entry = baseline.lookup("CONF-INTERRUPT-001", "0.120.0", "real")
    assert entry == ExpectedFailure(
        "CONF-INTERRUPT-001",
        "0.120.0",
        "real",
        "never answered upstream",
        re.compile(r"RequestTimeout: turn/interrupt \(id \d+\) "),
    )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (('id = "CONF-METHOD-001"', 'id = "CONF-NOPE-001"'), "unknown check id 'CONF-NOPE-001'"),
        (('backend = "fake"', 'backend = "docker"'), "backend must be real or fake, got 'docker'"),
        (('reason = "because"', 'reason = "  "'), "'reason' must be a non-empty string"),
        (('reason = "because"\n', ""), "'reason' is missing"),
        (("failure = 'x'\n", ""), "'failure' is missing"),
        (("failure = 'x'", "failure = '('"), "'failure' is not a regex"),
        (("failure = 'x'", "failure = 'x'\nverdict = 'changed'"), "unknown key(s) verdict"),
    ],
)
def test_a_broken_entry_is_refused_naming_the_file_the_entry_and_the_problem(
    tmp_path: Path, change: tuple[str, str], problem: str
) -> None:
    second = GOOD.replace('codex = "0.171.0"', 'codex = "0.120.0"').replace(*change)
    path = write(tmp_path, GOOD + second)
    with pytest.raises(BaselineError) as caught:
        load_expected_failures(path)
    assert str(caught.value).startswith(f"{path}: expected #2: ")
    assert problem in str(caught.value)


def test_the_same_check_version_and_backend_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match=r"expected #2: repeats expected #1 \(CONF-METHOD-001"):
        load_expected_failures(write(tmp_path, GOOD + GOOD))


def test_one_check_and_version_may_have_a_real_and_a_fake_entry(tmp_path: Path) -> None:
    real = GOOD.replace('backend = "fake"', 'backend = "real"')
    baseline = load_expected_failures(write(tmp_path, GOOD + real))
    assert sorted(backend for _, _, backend in baseline.entries) == ["fake", "real"]


def test_the_packaged_baseline_loads_and_gives_every_entry_a_reason() -> None:
    # No release of the default matrix fails a check today: the file holds no entry, and
    # every entry it gains must name a check in use and say why.
    baseline = load_expected_failures(default_baseline_path())
    for (check, _, backend), entry in baseline.entries.items():
        assert check in conformance_checks() and backend in ("real", "fake")
        assert len(entry.reason) > 20
