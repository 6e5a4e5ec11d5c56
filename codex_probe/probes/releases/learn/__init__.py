"""Learn a fake profile from what the probe scenarios observed on a real codex-cli release.

`reading` gives the observations a vocabulary (requests, marker places, steps); the
`behaviour` (with `turn_requests`), `texts` and `errors` modules each infer their part of
the profile, naming the scenario and step every value came from; `wire_capture` copies
the wire templates from the transcripts; `profile` assembles and writes the profile. An
observation the profile language cannot express becomes a `Gap` naming the observation
and the missing field: never a silent approximation.
"""
