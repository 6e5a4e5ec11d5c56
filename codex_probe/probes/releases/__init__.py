"""Across releases: a fake profile learned from a release (learn/), a finding as a folder
upstream can run (repro/), which releases a range holds, installs kept within a budget, the
bisection of a finding, and the release x finding history with its grid."""
