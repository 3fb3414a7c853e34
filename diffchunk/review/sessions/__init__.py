"""Loaded diffs: sessions, views, and what is recorded beside a diff file.

- :mod:`.store`: the sessions (a diff file's content under one set of load
  options), keyed by path and content hash, memory bounded;
- :mod:`.views`: the same diff cut with other load options, side by side;
- :mod:`.loading`: loading a diff file for the tools and what a load reports
  (the files left out: :mod:`.excluded`);
- :mod:`.sidecar` and :mod:`.since_sidecar`: a generated diff's attributes and
  a since-review diff's description, written beside the diff;
- :mod:`.file_match`: which file of a loaded diff a query names.

Every other group of :mod:`diffchunk.review` may import these; they import
none of them.
"""
