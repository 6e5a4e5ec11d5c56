"""The probe domain, in four rooms: `domain/` (what is probed and how it is read: the
assumptions, their readings, observations, findings), `runner/` (the scenarios and the
run of one release that produces them), `explore/` (every method of a release's schema in
every thread state, for the surface) and `releases/` (what is made of release runs: a
learned fake profile, reproduction bundles, bisection, the history of a range)."""
