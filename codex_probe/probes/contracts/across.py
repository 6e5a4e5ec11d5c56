"""A contract verified on every release of a range: where a client's use of the protocol
stops holding, and why (`codex-probe can-i-upgrade --contract`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from codex_probe.harness.codex.install import Installation
from codex_probe.probes.contracts.contract import Contract
from codex_probe.probes.contracts.verify import (
    BREAKING,
    COMPATIBLE,
    UNKNOWN,
    Verification,
    verify_contract,
)
from codex_probe.probes.domain.surface.rules import DEFAULT_LEVELS, Levels, Severity

ANSWERS = {COMPATIBLE: "yes", BREAKING: "no", UNKNOWN: "unknown"}
WORDS = {COMPATIBLE: "compatible", BREAKING: "breaking", UNKNOWN: "could not tell"}


@dataclass
class RangeAnswer:
    a: str
    b: str
    fail_on: Severity
    verifications: dict[str, Verification] = field(default_factory=dict)
    not_installable: dict[str, str] = field(default_factory=dict)

    def code(self, version: str) -> int:
        found = self.verifications.get(version)
        return UNKNOWN if found is None else found.exit_code(self.fail_on)

    @property
    def exit_code(self) -> int:
        """B's: can this client run on B?"""
        return self.code(self.b)

    def first_breaking(self) -> str | None:
        return next((v for v in self.verifications if self.code(v) == BREAKING), None)

    def lines(self) -> list[str]:
        said = [
            f"can this client go from codex-cli {self.a} to {self.b}? "
            f"{ANSWERS[self.exit_code]} ({WORDS[self.exit_code]} on {self.b})"
        ]
        for version, verification in self.verifications.items():
            code = self.code(version)
            why = ""
            if code == BREAKING:
                worst = [
                    f
                    for checked in verification.checked
                    for f in checked.found
                    if f.severity >= self.fail_on
                ]
                rules = sorted({f.rule for f in worst})
                why = f": {', '.join(rules)}"
            elif code == UNKNOWN:
                why = f": {verification.problem or 'an interaction could not be replayed'}"
            said.append(f"  {version}: {WORDS[code]}{why}")
        for version, reason in self.not_installable.items():
            said.append(f"  {version}: not installable ({reason})")
        if first := self.first_breaking():
            said.append(f"first breaking release in the range: {first}")
        return said

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.a,
            "to": self.b,
            "answer": ANSWERS[self.exit_code],
            "exit_code": self.exit_code,
            "first_breaking": self.first_breaking(),
            "releases": {
                v: verification.to_json(self.fail_on)
                for v, verification in self.verifications.items()
            },
            "not_installable": self.not_installable,
        }


async def verify_across(
    contract: Contract,
    releases: list[str],
    use: Callable[[str], Installation],
    *,
    fail_on: Severity = Severity.ERR,
    levels: Levels = DEFAULT_LEVELS,
    say: Callable[[str], None] = lambda _: None,
) -> RangeAnswer:
    """`contract` verified on each of `releases` (A first, B last); `use` installs one."""
    answer = RangeAnswer(releases[0], releases[-1], fail_on)
    for version in releases:
        try:
            installation = use(version)
        except Exception as error:  # a release npm has but that does not install or run
            answer.not_installable[version] = " ".join(str(error).split())[:200]
            continue
        verification = await verify_contract(contract, installation, levels=levels)
        answer.verifications[version] = verification
        say(f"codex-cli {version}: {WORDS[verification.exit_code(fail_on)]}")
    return answer
