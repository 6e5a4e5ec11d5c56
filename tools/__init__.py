"""Tools a person runs by hand to measure codex; nothing of codex-probe imports them."""
