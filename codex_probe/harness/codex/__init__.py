"""Real codex-cli versions: npm install into a cache, generated schema, validation.

Import from the modules themselves: this file re-exports nothing, so importing one part
(the versions, the seal) does not load the installer, npm and the validator.
"""
