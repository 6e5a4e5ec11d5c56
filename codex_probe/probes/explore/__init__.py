"""Exploration: every client method of a release's generated schema, called in every thread
state where it makes sense, valid and invalid, with what codex answered recorded per
method x state x variant (docs/exploration.md).

    schema_values.py  values built from a JSON schema: minimal, full, one per enumerated
                      value, and the invalid ones (a field missing, of the wrong type, of
                      an unknown value, params that are not an object)
    fixtures.py       the values the exploration owns, as placeholders (`{{thread}}`,
                      `{{work}}`...), by field name and per method
    methods.py        how each method is explored, in which group and order, and which
                      are not (and why)
    plan.py           the cells: method x state x variant, with their params
    states.py         the thread states and how each is reached, once, then copied
    home.py           a lane's home: sealed, its outbound HTTP refused, the files the calls name
    outbound.py       where codex's outbound HTTP goes instead of the network
    lane.py           a lane: one home and app-server, and its cells run one at a time
    waits.py          what a lane waits for after a call, so that what it caused is its own
    unanswered.py     what goes unanswered, known to every lane of an exploration
    run.py            one exploration of a release: its lanes, processes and cells
    release.py        the exploration a release run asks for (the runner's one call here)
    walks.py          seeded random walks through the states, replayable from their seed
    resample.py       out-of-sample calls: drawn anew with a seed of their own, none of them
                      one the exploration sends (for `codex-probe holdout`)
    record.py         what an exploration recorded (exploration.json), for the surface and
                      for learning the fake
"""
