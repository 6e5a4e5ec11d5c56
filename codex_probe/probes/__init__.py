"""The probe domain, in four rooms: `domain/` (what is probed and how it is read: the
assumptions, their readings, observations, findings, the surface and its breaking-change
rules), `runner/` (the scenarios and the run of one release that produces them),
`explore/` (every method of a release's schema in every thread state, for the surface),
`releases/` (what is made of release runs: a learned fake profile, reproduction bundles,
bisection, the history of a range) and `contracts/` (a client's own recorded use of the
protocol, verified on a release)."""
