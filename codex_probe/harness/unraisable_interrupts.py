"""Interrupts Python could not raise, kept instead of printed.

Python raises a signal's exception (KeyboardInterrupt, or the `Interrupted` of
harness/interrupts.py) wherever the main thread is. In a finalizer (an object's `__del__`,
a weakref callback) it cannot propagate: Python reports it to `sys.unraisablehook`, which
prints `Exception ignored in ...`, and the program goes on as if no signal had come. Within
`interrupts_kept`, such a report goes to the caller instead, unprinted, so that it can
raise the interrupt again where it can propagate; any other report goes to the hook in
place before. Used by the command's signal handling and by the conformance plugin.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def interrupts_kept(
    kinds: tuple[type[BaseException], ...], kept: Callable[[BaseException], None]
) -> Iterator[None]:
    """Within the block, an unraisable exception of one of `kinds` goes to `kept`."""
    previous = sys.unraisablehook

    def report(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, kinds):
            kept(unraisable.exc_value)
            return
        previous(unraisable)

    sys.unraisablehook = report
    try:
        yield
    finally:
        if sys.unraisablehook is report:  # not replaced since: put the one before back
            sys.unraisablehook = previous
