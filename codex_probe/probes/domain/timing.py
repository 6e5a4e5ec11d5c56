"""What codex's timing decides rather than its behaviour, in a sequence of notifications.

Both are measured on real releases under load (tests/rig/turns.py's command cases on
0.120.0 and 0.150.0): where a command's `item/completed` lands among the notifications of
the model's next answer (the process's exit races that answer's stream), and whether a
short command's output is streamed in `outputDelta` chunks before it ends, and in how
many. The fidelity comparison and the surface both read notifications through `settled`.
"""

from __future__ import annotations

from collections.abc import Iterable

# Counted, not placed: each is moved to the end of its sequence.
FLOATING = ("item/completed:commandExecution",)
# Left out: a command's output is the item's, whatever chunks it came in.
CHUNKS = ("item/commandExecution/outputDelta",)


def settled(labels: Iterable[str]) -> list[str]:
    """`labels` without the chunks, each floating one moved to the end (in sorted order)."""
    kept = [label for label in labels if label not in CHUNKS]
    return [label for label in kept if label not in FLOATING] + sorted(
        label for label in kept if label in FLOATING
    )
