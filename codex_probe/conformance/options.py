"""The plugin's command line: its options, and the targets they name.

Every option is namespaced `--codex-...`: the plugin is loaded into every pytest run of an
environment with codex-probe installed, beside the project's own options. So this module imports
nothing of the rig: registering the options costs such a run nothing, and the rest of the plugin
loads only once a --codex-* option is given or a test asks for one of its fixtures
(codex_probe/conformance/state.py makes the run state then). A wrong combination is a usage error
naming the option, before anything is collected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codex_probe.conformance.target import Target
from codex_probe.harness.codex.versions import DEFAULT_MATRIX
from codex_probe.rig.defaults import BACKEND_KINDS, DEFAULT_TIMEOUT

DEFAULT_LIFECYCLE_EXAMPLES = 100


# Each option's dest and default, as add_options declares them.
DEFAULTS: dict[str, Any] = {}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("codex-probe", "codex-probe conformance (tests using codex_backend)")

    def option(name: str, dest: str, default: Any = None, **settings: Any) -> None:
        DEFAULTS[dest] = default
        group.addoption(name, dest=dest, default=default, **settings)

    option(
        "--codex-backend",
        dest="codex_backend",
        action="append",
        choices=BACKEND_KINDS,
        help="run conformance fixtures on this backend (repeatable; default: fake and real)",
    )
    option(
        "--codex-version",
        dest="codex_version",
        action="append",
        metavar="VERSION",
        help=f"codex-cli version to check (repeatable; default: {', '.join(DEFAULT_MATRIX)})",
    )
    option(
        "--codex-fake-script",
        dest="codex_fake_script",
        metavar="FILE",
        help="fault script (JSON Lines) for the fake backend; implies --codex-backend fake",
    )
    option(
        "--codex-fake-profile",
        dest="codex_fake_profile",
        metavar="FILE",
        help="profile file the fake imitates (e.g. from `codex-probe learn`); default: the "
        "version's checked-in one. Implies --codex-backend fake and the profile's --codex-version",
    )
    option(
        "--codex-timeout",
        dest="codex_timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"deadline of every request and awaited notification (default {DEFAULT_TIMEOUT})",
    )
    option(
        "--codex-baseline",
        dest="codex_baseline",
        metavar="FILE|none",
        help="expected-failures baseline, TOML (default: the packaged one; 'none': no baseline)",
    )
    option(
        "--codex-check",
        dest="codex_check",
        action="append",
        metavar="ID",
        help="run only this check id (repeatable)",
    )
    option(
        "--codex-lifecycle-examples",
        dest="codex_lifecycle_examples",
        type=int,
        default=DEFAULT_LIFECYCLE_EXAMPLES,
        metavar="N",
        help="stateful lifecycle sequences per backend, shared out over the versions "
        f"(default {DEFAULT_LIFECYCLE_EXAMPLES})",
    )
    option(
        "--codex-results",
        dest="codex_results",
        metavar="FILE",
        help="write one JSON line per check outcome (check, target, outcome, message)",
    )


def options_given(config: pytest.Config) -> bool:
    """Whether the command line (or the ini file's addopts) set any --codex-* option."""
    return any(config.getoption(dest) != default for dest, default in DEFAULTS.items())


def targets_from_options(config: pytest.Config) -> list[Target]:
    """Every --codex-backend times every --codex-version, as the options ask for them."""
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
    return [Target(kind, version) for version in dict.fromkeys(versions) for kind in kinds]


def profile_version(path: str) -> str:
    """The codex-cli version a --codex-fake-profile file imitates (a broken file: usage error)."""
    from codex_probe.fake_appserver.profile import ProfileError, load_profile

    try:
        return load_profile(path=Path(path)).version
    except ProfileError as error:
        raise pytest.UsageError(f"--codex-fake-profile: {error}") from None
