"""Across releases: which releases a range holds, installs kept within a budget, the
bisection of a finding, and the release x finding history with its grid."""
