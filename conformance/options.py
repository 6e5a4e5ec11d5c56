"""The plugin's command line: its options, and the run state they make.

A wrong combination is a usage error naming the option, before anything is collected.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from conformance.baseline import (
    Baseline,
    BaselineError,
    default_baseline_path,
    empty,
    load_baseline,
)
from conformance.state import ConformanceState
from conformance.target import Target
from conformance.wire import WireLog
from fake_appserver.profile import ProfileError, load_profile
from harness.codex.versions import DEFAULT_MATRIX
from rig.backends import BACKEND_KINDS
from rig.session import DEFAULT_TIMEOUT

DEFAULT_LIFECYCLE_EXAMPLES = 100


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("codex-probe", "codex-probe conformance (tests using codex_backend)")
    group.addoption(
        "--backend",
        dest="codex_backends",
        action="append",
        choices=BACKEND_KINDS,
        help="run conformance fixtures on this backend (repeatable; default: fake and real)",
    )
    group.addoption(
        "--codex-version",
        dest="codex_versions",
        action="append",
        metavar="VERSION",
        help=f"codex-cli version to check (repeatable; default: {', '.join(DEFAULT_MATRIX)})",
    )
    group.addoption(
        "--fake-script",
        dest="codex_fake_script",
        metavar="FILE",
        help="fault script (JSON Lines) for the fake backend; implies --backend fake",
    )
    group.addoption(
        "--fake-profile",
        dest="codex_fake_profile",
        metavar="FILE",
        help="profile file the fake imitates (e.g. from `codex-probe learn`); default: the "
        "version's checked-in one. Implies --backend fake and the profile's --codex-version",
    )
    group.addoption(
        "--conformance-timeout",
        dest="conformance_timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"deadline of every request and awaited notification (default {DEFAULT_TIMEOUT})",
    )
    group.addoption(
        "--conformance-baseline",
        dest="conformance_baseline",
        metavar="FILE|none",
        help="expected-failures baseline (default: the packaged one; 'none': no baseline)",
    )
    group.addoption(
        "--conformance-check",
        dest="conformance_checks",
        action="append",
        metavar="ID",
        help="run only this check id (repeatable)",
    )
    group.addoption(
        "--lifecycle-examples",
        dest="lifecycle_examples",
        type=int,
        default=DEFAULT_LIFECYCLE_EXAMPLES,
        metavar="N",
        help="stateful lifecycle sequences per backend, shared out over the versions "
        f"(default {DEFAULT_LIFECYCLE_EXAMPLES})",
    )
    group.addoption(
        "--conformance-results",
        dest="conformance_results",
        metavar="FILE",
        help="write one JSON line per check outcome (check, target, outcome, message)",
    )


def state_from_options(config: pytest.Config) -> ConformanceState:
    """The run's targets, baseline and settings, as the options ask for them."""
    script = config.getoption("codex_fake_script")
    profile = config.getoption("codex_fake_profile")
    kinds: list[str] = config.getoption("codex_backends") or (
        ["fake"] if script or profile else ["fake", "real"]
    )
    if script and "real" in kinds:
        raise pytest.UsageError("--fake-script needs the fake backend only (--backend fake)")
    imitated = profile_version(profile) if profile else None
    versions: list[str] = config.getoption("codex_versions") or (
        [imitated] if imitated else list(DEFAULT_MATRIX)
    )
    if imitated and set(versions) != {imitated}:
        raise pytest.UsageError(
            f"--fake-profile {profile} imitates codex-cli {imitated}; "
            f"--codex-version asks for {', '.join(versions)}"
        )
    targets = [Target(kind, version) for version in dict.fromkeys(versions) for kind in kinds]
    choice = config.getoption("conformance_baseline")
    try:
        if choice == "none":
            baseline: Baseline = empty()
        else:
            baseline = load_baseline(Path(choice) if choice else default_baseline_path())
    except BaselineError as error:
        raise pytest.UsageError(str(error)) from None
    examples = config.getoption("lifecycle_examples")
    if examples < 1:
        raise pytest.UsageError("--lifecycle-examples must be at least 1")
    return ConformanceState(
        targets=targets,
        baseline=baseline,
        script=Path(script).resolve() if script else None,
        profile=Path(profile).resolve() if profile else None,
        timeout=config.getoption("conformance_timeout"),
        lifecycle_examples=math.ceil(examples / len(dict.fromkeys(versions))),
        results_path=Path(p) if (p := config.getoption("conformance_results")) else None,
        wire_log=WireLog(),
    )


def profile_version(path: str) -> str:
    """The codex-cli version a --fake-profile file imitates (a broken file: usage error)."""
    try:
        return load_profile(path=Path(path)).version
    except ProfileError as error:
        raise pytest.UsageError(f"--fake-profile: {error}") from None
