"""The environment of every child process codex-probe starts, from one allow-list each.

A child gets the variables it needs and nothing else: never the caller's whole
environment, where API keys and CI tokens live. Each allow-list below names exact
variables or prefixes; on top of that, a variable whose name says it holds a secret
(`*TOKEN*`, `*SECRET*`, `*KEY*`, `*PASSWORD*`, ...) is dropped even when a list matches it.

| child | gets from the caller | and its own |
|---|---|---|
| codex app-server, real and fake (`rig.homes`) | PATH | HOME, CODEX_HOME, locale, TZ |
| the fake's warm copy (`harness.forks`); each fork takes its app-server's | | |
| a command the fake runs (`fake_appserver.commands`) | PATH, HOME, locale, TZ | |
| a client `codex-probe record` runs (`probes.contracts`) | locale, TZ, TERM | PATH, HOME |
| codex one-shot tools (`harness.codex.install`) | PATH | HOME, CODEX_HOME |
| node asking codex's launcher (`harness.codex.direct_launch`) | PATH | codex's, scratch |
| npm (`harness.codex.npm`) | PATH, HOME, TMPDIR, proxy, CA and `NPM_CONFIG_*` | |
| unpacking a tarball of npm's cache (`harness.codex.npm_tarballs`) | | |
| Allure (`reporting.allure_report`) | PATH, the CI names it reads | HOME |
| Chromium (`reporting.browser`) | PATH | HOME |

Registry credentials belong in `~/.npmrc` (npm reads it through HOME), never in the
environment handed down. A proxy URL with a password in it is passed on as it is: npm
cannot reach the registry without it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Parts of a variable name that say it holds a secret, compared upper-case.
SECRET_WORDS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE")


@dataclass(frozen=True)
class AllowList:
    """Variables a child may inherit: these exact names, or names with these prefixes."""

    names: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()

    def allows(self, name: str) -> bool:
        return name in self.names or name.startswith(self.prefixes)


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


def child_env(
    allowed: AllowList,
    own: Mapping[str, str] | None = None,
    *,
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of a child: what `allowed` lets through from `source` (the caller's
    environment), secrets dropped, then the child's `own` variables on top."""
    inherited = os.environ if source is None else source
    env = {
        name: value
        for name, value in inherited.items()
        if allowed.allows(name) and not looks_secret(name)
    }
    env.update(own or {})
    return env


def search_path(source: Mapping[str, str] | None = None) -> str:
    """The caller's PATH (launchers run `node`, `sh`), or the default search path."""
    return (os.environ if source is None else source).get("PATH", os.defpath)


def _both_cases(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(spelling for name in names for spelling in (name.upper(), name.lower()))


# The codex app-server (real and fake) and codex one-shot tools: its launcher needs `node`.
CODEX = AllowList(names=("PATH",))
# A command the fake app-server runs for a scripted model: what the fake itself was given,
# less CODEX_HOME (codex's own home is no business of the command's).
FAKE_COMMAND = AllowList(names=("PATH", "HOME", "LANG", "LC_ALL", "TZ"))
# Unpacking a tarball (python -I): its arguments say all it needs.
UNPACK = AllowList()
# Chromium: a throwaway profile is its HOME; nothing else.
BROWSER = AllowList(names=("PATH",))
# A client whose contract is recorded: the tap's `codex` first on its PATH, the recording's
# HOME; of the caller's, what a program prints and keeps time with.
CLIENT = AllowList(names=("LANG", "LC_ALL", "TZ", "TERM"))
# npm: its config (HOME for ~/.npmrc and the cache ~/.npm; NPM_CONFIG_*), the way out of
# this machine (proxies) and the certificates that way needs (CA files, for node and npm).
NPM = AllowList(
    names=(
        "PATH",
        "HOME",
        "TMPDIR",
        "NODE_EXTRA_CA_CERTS",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        *_both_cases(("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")),
    ),
    prefixes=("NPM_CONFIG_", "npm_config_"),
)
# Allure 3.18 (@allurereport/ci) names a GitHub Actions run from these; none is a secret.
# GITHUB_EVENT_PATH is the event file it reads a pull request's branches from.
ALLURE = AllowList(
    names=(
        "PATH",
        "CI",
        "GITHUB_ACTIONS",
        "GITHUB_BASE_REF",
        "GITHUB_EVENT_PATH",
        "GITHUB_HEAD_REF",
        "GITHUB_JOB",
        "GITHUB_REF",
        "GITHUB_REF_NAME",
        "GITHUB_REF_TYPE",
        "GITHUB_REPOSITORY",
        "GITHUB_RUN_ID",
        "GITHUB_RUN_NUMBER",
        "GITHUB_SERVER_URL",
        "GITHUB_WORKFLOW",
    )
)
