"""Range loading: a repository range's diff, written by git and parsed as it is written.

- :mod:`.load`: resolve a range, write (or reuse) its diff in the cache and
  load it like a diff file (``load_git_diff``);
- :mod:`.stream`: the parse while ``git diff`` writes;
- :mod:`.early_start`: ``git diff`` started before the command line loads.
"""
