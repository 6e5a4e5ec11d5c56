"""Tools a person runs (`python -m tools.NAME`); nothing imports them."""
