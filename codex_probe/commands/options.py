"""Argument types the commands share."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """A whole number of 1 or more (argparse type): jobs, repeats, kept installs."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def non_negative_int(text: str) -> int:
    """A whole number of 0 or more (argparse type)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"{number} is negative; give 0 or more")
    return number
