"""The plumbing: every git process of diffchunk, and nothing else.

It runs git (:mod:`~diffchunk.git.runner`, the one place that starts git),
finds repositories (:mod:`~diffchunk.git.repo`), resolves revisions
(:mod:`~diffchunk.git.revisions`), reads attributes
(:mod:`~diffchunk.git.attributes`), and writes a range's ``git diff`` into
the diff cache (:mod:`~diffchunk.git.diffwrite`, :mod:`~diffchunk.git.cache`),
yielding git's output as it comes.  It imports nothing of the diff pipeline
or of the application, and calls nothing back: the application layer
(:mod:`diffchunk.review`) drives it.
"""
