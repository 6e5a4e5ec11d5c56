"""The semantic instruction fingerprint (spec 6.3).

It covers baseInstructions and developerInstructions and nothing else: no MCP URL,
command, args or tool surface, no cwd, no daemon URL, no reference block. Those change
with wiring, not with the rules the thread was started with, and must not force a
fresh thread. "Semantic" means exactly this scope; the texts themselves are hashed
as they are, so any edit to an instruction is a change.
"""

from __future__ import annotations

import hashlib
import json
import re

from codex_probe.harness.compiler import Slot, Sources, compile_thread_contract

# Older daemons appended the MCP surface to the stored value as ":mcp:<hash>".
_LEGACY_MCP_SUFFIX = re.compile(r":mcp:[^:]+$")


def instruction_fingerprint(base: str, developer: str) -> str:
    # JSON keeps the two fields apart: ("ab", "c") and ("a", "bc") hash differently.
    payload = json.dumps([base, developer], ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(payload).hexdigest()


def thread_contract_fingerprint(sources: Sources) -> str:
    """The fingerprint of the instructions these sources compile to, for every runtime."""
    contract = compile_thread_contract(sources)
    return instruction_fingerprint(
        contract.slot_text(Slot.BASE),
        contract.slot_text(Slot.DEVELOPER),
    )


def strip_legacy_mcp_suffix(stored: str) -> str:
    return _LEGACY_MCP_SUFFIX.sub("", stored.strip())


def fingerprints_match(stored: str, current: str) -> bool:
    """Whether a stored fingerprint, legacy suffix and all, names the current instructions."""
    return strip_legacy_mcp_suffix(stored) == current.strip()
