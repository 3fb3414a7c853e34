"""The application layer: what a review is made of, over the engines and git.

Modules here drive the engines (:mod:`diffchunk.diff`, :mod:`diffchunk.files`)
over what the plumbing (:mod:`diffchunk.git`) yields; the shells
(:mod:`diffchunk.cli`, :mod:`diffchunk.server`) call them and turn their
results into text or JSON.  Nothing here imports click or mcp.

One folder per purpose, each importing only those before it in this list
(and the shared modules after it):

- :mod:`.sessions`: loaded diffs, their views, what is recorded beside them;
- :mod:`.record`: the review record (what was read, reviewed, found);
- :mod:`.export`: a review rendered in the formats other tools read;
- :mod:`.tools`: the diff tools an assistant calls;
- :mod:`.ranges`: a git range's diff, written and loaded;
- :mod:`.incremental`: a range reviewed again after its branch moved;
- :mod:`.page`: what the review page asks.

What the groups share: :mod:`.results` (the diff tools' typed results),
:mod:`.answers` (what fits one answer), :mod:`.paging` (pages of a listing).
:mod:`.push_hook`, the pre-push hook, runs over them all.
"""
