"""Tools for files too large to read whole: overview, search, read, edit, revert.

Core functions live in :mod:`diffchunk.files.service` (read-only tools) and
:mod:`diffchunk.files.edit` (edits and backups); file access, encoding
detection and the line index in :mod:`.access`, :mod:`.encoding` and
:mod:`.lineindex`.
"""
