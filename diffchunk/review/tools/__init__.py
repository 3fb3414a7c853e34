"""The diff tools an assistant calls, one module per tool or pair of tools.

:mod:`.diff_tools` gathers them for the shells (the MCP server's
``diff_tools`` and the CLI's ``review``): ``get_chunk`` (:mod:`.chunk_text`),
``list_chunks`` (:mod:`.listing`, with what it says of each file:
:mod:`.file_details`, :mod:`.symbols`), ``find_chunks_for_files`` and
``get_file_diff`` (:mod:`.file_diffs`, ``context="symbol"`` in
:mod:`.symbol_context`), ``search_diff`` (:mod:`.diff_search`),
``list_commits`` (:mod:`.commits`), ``open_file_version``
(:mod:`.file_versions`, a work tree's file in :mod:`.work_tree_file`),
``search_code`` and ``find_references`` (:mod:`.code_search`, the tree it
searches and its hits in :mod:`.search_tree`, the definition around each hit
in :mod:`.references`), ``list_symbols`` (:mod:`.symbol_list`)
and ``export_review`` (:mod:`.exporting`).  ``load_diff`` is the sessions'
(:mod:`diffchunk.review.sessions.loading`); the plan a load answers with
(files by kind, facts, the whole change when small) is :mod:`.plan`.

This package imports nothing when it is imported: a tool's module loads only
what that tool needs.
"""
