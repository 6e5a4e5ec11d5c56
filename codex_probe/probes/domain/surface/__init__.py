"""A release's protocol surface: everything observable, normalized so that two runs of one
release agree (`release.py`: the aspects and their keys; `shape.py`: the mask; `wire.py`,
`model.py`, `schema.py`: each side read; `diff.py`: two surfaces compared, the changes
the reference driver would feel first)."""
