"""The published results: a static site and the dataset under it, built from a history
folder (`codex-probe site`). One idea per module: the dataset's model and schema
(dataset.py) and its writer (data_writer.py); how the pages look (look.py); the index grid,
a release, a finding, the compare view (index_page.py, release_page.py, finding_page.py,
compare_page.py with compare.js); and the build that writes them all (build.py). Everything
reads the history through reporting/history_view.py (whose findings are
reporting/history_files.py's FindingOnRelease, each holding its Finding)."""
