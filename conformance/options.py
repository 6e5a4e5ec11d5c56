"""The plugin's command line: its options, and the run state they make.

Every option is namespaced `--codex-...`: the plugin is loaded into every pytest run
of an environment with codex-probe installed, beside the project's own options.
A wrong combination is a usage error naming the option, before anything is collected.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from codex_probe.conformance.baseline import (
    ExpectedFailures,
    default_baseline_path,
    load_expected_failures,
    no_expected_failures,
)
from codex_probe.conformance.state import ConformanceState
from codex_probe.conformance.target import Target
from codex_probe.conformance.wire import WireLog
from codex_probe.fake_appserver.profile import ProfileError, load_profile
from codex_probe.harness.codex.versions import DEFAULT_MATRIX
from codex_probe.rig.backends import BACKEND_KINDS
from codex_probe.rig.baseline import BaselineError
from codex_probe.rig.session import DEFAULT_TIMEOUT

DEFAULT_LIFECYCLE_EXAMPLES = 100


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("codex-probe", "codex-probe conformance (tests using codex_backend)")
    group.addoption(
        "--codex-backend",
        dest="codex_backend",
        action="append",
        choices=BACKEND_KINDS,
        help="run conformance fixtures on this backend (repeatable; default: fake and real)",
    )
    group.addoption(
        "--codex-version",
        dest="codex_version",
        action="append",
        metavar="VERSION",
        help=f"codex-cli version to check (repeatable; default: {', '.join(DEFAULT_MATRIX)})",
    )
    group.addoption(
        "--codex-fake-script",
        dest="codex_fake_script",
        metavar="FILE",
        help="fault script (JSON Lines) for the fake backend; implies --codex-backend fake",
    )
    group.addoption(
        "--codex-fake-profile",
        dest="codex_fake_profile",
        metavar="FILE",
        help="profile file the fake imitates (e.g. from `codex-probe learn`); default: the "
        "version's checked-in one. Implies --codex-backend fake and the profile's --codex-version",
    )
    group.addoption(
        "--codex-timeout",
        dest="codex_timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"deadline of every request and awaited notification (default {DEFAULT_TIMEOUT})",
    )
    group.addoption(
        "--codex-baseline",
        dest="codex_baseline",
        metavar="FILE|none",
        help="expected-failures baseline, TOML (default: the packaged one; 'none': no baseline)",
    )
    group.addoption(
        "--codex-check",
        dest="codex_check",
        action="append",
        metavar="ID",
        help="run only this check id (repeatable)",
    )
    group.addoption(
        "--codex-lifecycle-examples",
        dest="codex_lifecycle_examples",
        type=int,
        default=DEFAULT_LIFECYCLE_EXAMPLES,
        metavar="N",
        help="stateful lifecycle sequences per backend, shared out over the versions "
        f"(default {DEFAULT_LIFECYCLE_EXAMPLES})",
    )
    group.addoption(
        "--codex-results",
        dest="codex_results",
        metavar="FILE",
        help="write one JSON line per check outcome (check, target, outcome, message)",
    )


def state_from_options(config: pytest.Config) -> ConformanceState:
    """The run's targets, baseline and settings, as the options ask for them."""
    script = config.getoption("codex_fake_script")
    profile = config.getoption("codex_fake_profile")
    kinds: list[str] = config.getoption("codex_backend") or (
        ["fake"] if script or profile else ["fake", "real"]
    )
    if script and "real" in kinds:
        raise pytest.UsageError(
            "--codex-fake-script needs the fake backend only (--codex-backend fake)"
        )
    imitated = profile_version(profile) if profile else None
    versions: list[str] = config.getoption("codex_version") or (
        [imitated] if imitated else list(DEFAULT_MATRIX)
    )
    if imitated and set(versions) != {imitated}:
        raise pytest.UsageError(
            f"--codex-fake-profile {profile} imitates codex-cli {imitated}; "
            f"--codex-version asks for {', '.join(versions)}"
        )
    targets = [Target(kind, version) for version in dict.fromkeys(versions) for kind in kinds]
    choice = config.getoption("codex_baseline")
    try:
        if choice == "none":
            baseline: ExpectedFailures = no_expected_failures()
        else:
            path = Path(choice) if choice else default_baseline_path()
            baseline = load_expected_failures(path)
    except BaselineError as error:
        raise pytest.UsageError(str(error)) from None
    examples = config.getoption("codex_lifecycle_examples")
    if examples < 1:
        raise pytest.UsageError("--codex-lifecycle-examples must be at least 1")
    return ConformanceState(
        targets=targets,
        baseline=baseline,
        script=Path(script).resolve() if script else None,
        profile=Path(profile).resolve() if profile else None,
        timeout=config.getoption("codex_timeout"),
        lifecycle_examples=math.ceil(examples / len(dict.fromkeys(versions))),
        results_path=Path(p) if (p := config.getoption("codex_results")) else None,
        wire_log=WireLog(),
    )


def profile_version(path: str) -> str:
    """The codex-cli version a --codex-fake-profile file imitates (a broken file: usage error)."""
    try:
        return load_profile(path=Path(path)).version
    except ProfileError as error:
        raise pytest.UsageError(f"--codex-fake-profile: {error}") from None
