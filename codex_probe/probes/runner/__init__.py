"""The runner: the scenarios, their steps on a backend, and one release probed as a whole
(the real codex-cli, a profile for the fake, the fake, every finding judged)."""
