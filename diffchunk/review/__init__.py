"""The application layer: what a review is made of, over the engines and git.

Modules here drive the engines (:mod:`diffchunk.diff`, :mod:`diffchunk.files`)
over what the plumbing (:mod:`diffchunk.git`) yields; the shells
(:mod:`diffchunk.cli`, :mod:`diffchunk.server`) call them and turn their
results into text or JSON.  Nothing here imports click or mcp.
"""
