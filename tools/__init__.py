"""Tools a person runs (`python -m tools.NAME`): measuring codex by hand (explore), the
chaos campaign (chaos/). Nothing of codex-probe imports them."""
