#!/usr/bin/env bash
# The history the last finished run of the weekly history workflow uploaded (the artifact
# codex-probe-history: history.json and releases/), into DIR: the record that lets a run
# probe only the releases it lacks. No such run, or an expired artifact: DIR stays empty,
# and everything is probed. Needs GH_TOKEN (actions: read) and GITHUB_REPOSITORY.
set -euo pipefail
out=${1:?usage: previous-history.sh DIR}
mkdir -p "$out"
runs=$(gh run list --repo "$GITHUB_REPOSITORY" --workflow codex-history.yml --limit 20 \
  --json databaseId,status --jq '.[] | select(.status == "completed") | .databaseId') || runs=""
for run in $runs; do
  rm -rf "$out" && mkdir -p "$out"
  if gh run download "$run" --repo "$GITHUB_REPOSITORY" --name codex-probe-history \
    --dir "$out" >/dev/null 2>&1 && [ -f "$out/history.json" ]; then
    count=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["releases"]))' \
      "$out/history.json")
    echo "previous history: run $run, $count release(s) recorded"
    exit 0
  fi
done
rm -rf "$out" && mkdir -p "$out"
echo "previous history: none to be had; every release of the range is probed"
