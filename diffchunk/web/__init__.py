"""``diffchunk web``: a review page people work in, served on the loopback address.

A shell, beside the CLI and the MCP server: it renders what the application
(:mod:`diffchunk.review`, :mod:`diffchunk.review.page`) answers and writes
through the record's own tools, so what a person does on the page is what
``review_status`` and ``list_findings`` report, and what the assistant writes
over MCP appears on the open page (it polls the record's version).

- :mod:`.serve`: the loopback socket, the token, uvicorn;
- :mod:`.guard`: who may use it (host, token, writes, ``--read-only``) and the
  headers of every answer (Content-Security-Policy);
- :mod:`.app`: the routes: the page, its files, the JSON API;
- ``static/``: the page itself (``index.html``, ``page.css``, ``page.js``),
  plain files shipped with the package, no build step.  The script builds
  every element that shows text from the diff, a path or a finding with
  ``textContent``, never from markup.
"""
