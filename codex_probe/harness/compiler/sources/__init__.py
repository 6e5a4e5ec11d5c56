"""The packaged default sources: data files only, read by `harness.compiler.load_sources()`.

A package (rather than a plain folder) so that setuptools ships the files with it.
"""
