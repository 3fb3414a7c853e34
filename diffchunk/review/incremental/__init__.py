"""Incremental review: a range reviewed again after its branch moved.

A branch under review moves: new commits on top, an amended commit, a rebase
onto a main that moved, a force-push that drops or squashes commits.  The
review record (:mod:`diffchunk.review.record`) knows the range's earlier
revisions, and this package puts them to use when the range is loaded again
(:func:`.load.load_git_diff`, what the ``load_git_diff`` tool and ``diffchunk
review RANGE`` call):

- :mod:`.summary`: ``since_review``, what changed since the reviewed revision
  (its history, and its files unchanged, changed, new and no longer changed,
  by change id);
- :mod:`.since_diff` and :mod:`.interdiff`: the since-review diff, only what
  changed since, per file, never upstream's changes brought in by a rebase;
- :mod:`.anchors`: open findings found again at their lines, or outdated;
- :mod:`.pushed`: what the pre-push hook says of a branch pushed after its
  last review.

Marks need nothing of this: they are keyed by change id, so a file whose
change is the reviewed one is reviewed in any revision.
"""
