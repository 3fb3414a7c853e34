// The review page of diffchunk web. Plain script, no build step.
//
// Rules this file keeps:
// - every text that comes from the server (a diff line, a path, a finding) reaches the DOM
//   through textContent or a form field's value, never as markup;
// - every request carries the page's token in the X-Diffchunk-Token header;
// - one file's diff is in the DOM at a time, its rows fetched page by page as the reader
//   scrolls; the file tree draws only the rows in view.
"use strict";

(function () {
  const TOKEN = document.querySelector('meta[name="diffchunk-token"]').getAttribute("content");
  const ROW = 20; // px, as --row in page.css
  const POLL_MS = 1500;
  const EXPAND = 20; // context lines per click
  const MAX_AUTO_ROWS = 5000; // rows loaded by scrolling; past them, each page on a click
  const SEVERITIES = ["blocker", "major", "minor", "nit", "question"];
  const STATE_ICONS = { reviewed: "✓", changed: "↻", seen: "●", unseen: "○", excluded: "⊘" };
  const $ = (id) => document.getElementById(id);

  const state = {
    view: "full",
    mode: "unified",
    filter: "all",
    text: "",
    review: null,
    files: [], // objects of the tree, in tree order
    byPath: new Map(),
    visible: [], // rows of the tree: {dir} or {file}
    order: [], // paths in the order of the visible tree
    findings: [],
    version: null,
    current: null, // {path, rows, next, loading, done, selection}
    readOnly: false,
  };

  // ------------------------------------------------------------------ elements

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function button(text, title, onClick) {
    const b = el("button", null, text);
    b.type = "button";
    if (title) b.title = title;
    b.addEventListener("click", onClick);
    return b;
  }

  function say(text, isError) {
    const box = $("message");
    if (!text) {
      box.hidden = true;
      return;
    }
    box.textContent = text;
    box.className = isError ? "message error" : "message";
    box.hidden = false;
  }

  // ------------------------------------------------------------------ requests

  async function api(path, params, body) {
    const url = new URL("/api/" + path, window.location.origin);
    for (const [k, v] of Object.entries(params || {})) {
      if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    }
    const init = { headers: { "X-Diffchunk-Token": TOKEN }, cache: "no-store" };
    if (body !== undefined) {
      init.method = "POST";
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(url, init);
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = { error: "The server's answer was not JSON (" + response.status + ")." };
    }
    if (!response.ok) {
      const error = new Error((data && data.error) || "Request failed (" + response.status + ").");
      error.suggestion = data && data.suggestion;
      throw error;
    }
    return data;
  }

  function errorText(error) {
    return error.suggestion ? error.message + " " + error.suggestion : error.message;
  }

  // ------------------------------------------------------------------ the review

  function fileOf(entry) {
    const [path, oldPath, status, added, removed, binary, fileState, label, excluded, chunks, findings] =
      entry;
    return { path, oldPath, status, added, removed, binary, state: fileState, label, excluded, chunks, findings };
  }

  function openFindings(file) {
    return (file.findings && file.findings.open) || 0;
  }

  async function loadReview() {
    const data = await api("review", { view: state.view });
    state.review = data;
    state.readOnly = !!data.read_only;
    state.version = data.version;
    const files = data.files.map(fileOf);
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    state.files = files;
    state.byPath = new Map(files.map((f) => [f.path, f]));
    renderHeader();
    buildTree();
  }

  async function loadFindings() {
    const data = await api("findings", { view: state.view });
    state.findings = data.findings;
  }

  function renderHeader() {
    const r = state.review;
    const source = r.review.source;
    const title = r.title || source.range || source.diff_file || "review";
    $("title").textContent = title;
    $("title").title = source.kind === "git" ? source.range + " in " + source.repository : String(source.diff_file);
    document.title = "diffchunk · " + title;
    const t = r.totals;
    const open = Object.values(r.findings.open).reduce((a, b) => a + b, 0);
    const bySeverity = SEVERITIES.filter((s) => r.findings.open[s]).map((s) => r.findings.open[s] + " " + s);
    let text = t.reviewed + "/" + (t.files - t.excluded) + " files reviewed";
    if (t.changed) text += ", " + t.changed + " changed since reviewed";
    if (t.excluded) text += ", " + t.excluded + " excluded";
    text += " · " + open + " open finding" + (open === 1 ? "" : "s");
    if (bySeverity.length) text += " (" + bySeverity.join(", ") + ")";
    if (r.since_review) {
      const s = r.since_review;
      text += " · since the review of " + String(s.revision.head || "").slice(0, 10) + ": " +
        s.changed_since_review + " changed, " + s.new_since_review + " new";
    }
    $("totals").textContent = text;
    $("read-only").hidden = !state.readOnly;
    const since = $("view-since");
    since.disabled = !r.since_available;
    since.title = r.since_available ? "Only what changed since your last review" : r.since_note || "";
    $("view-full").classList.toggle("on", state.view === "full");
    since.classList.toggle("on", state.view === "since");
  }

  // ------------------------------------------------------------------ the tree

  function passes(file) {
    if (state.text && !file.path.toLowerCase().includes(state.text)) return false;
    switch (state.filter) {
      case "unreviewed":
        return file.state !== "reviewed" && file.state !== "excluded";
      case "findings":
        return openFindings(file) > 0;
      case "since":
        return file.label === "changed since review" || file.label === "new since review";
      default:
        return true;
    }
  }

  function dirOf(path) {
    const at = path.lastIndexOf("/");
    return at < 0 ? "" : path.slice(0, at + 1);
  }

  function buildTree() {
    const rows = [];
    const order = [];
    let dir = null;
    for (const file of state.files) {
      if (!passes(file)) continue;
      const d = dirOf(file.path);
      if (d !== dir) {
        dir = d;
        if (d) rows.push({ dir: d });
      }
      rows.push({ file });
      order.push(file.path);
    }
    state.visible = rows;
    state.order = order;
    const shown = order.length;
    $("tree-count").textContent =
      shown === state.files.length ? shown + " files" : shown + " of " + state.files.length + " files";
    $("tree-space").style.height = rows.length * ROW + "px";
    drawTree();
  }

  function drawTree() {
    const tree = $("tree");
    const space = $("tree-space");
    const first = Math.max(0, Math.floor(tree.scrollTop / ROW) - 10);
    const last = Math.min(state.visible.length, first + Math.ceil(tree.clientHeight / ROW) + 20);
    space.replaceChildren();
    const current = state.current && state.current.path;
    for (let i = first; i < last; i++) {
      const row = state.visible[i];
      let node;
      if (row.dir) {
        node = el("div", "tree-row dir", row.dir);
        node.title = row.dir;
      } else {
        const f = row.file;
        node = el("div", "tree-row file" + (f.state === "excluded" ? " excluded" : ""));
        if (f.path === current) node.classList.add("current");
        const icon = el("span", "state state-" + f.state, STATE_ICONS[f.state] || "?");
        icon.title = f.label + (f.excluded ? " (" + f.excluded + ")" : "");
        node.appendChild(icon);
        const slash = f.path.lastIndexOf("/");
        node.appendChild(el("span", "name", f.path.slice(slash + 1)));
        const counts = el("span", "counts");
        counts.appendChild(el("span", "add", "+" + f.added));
        counts.appendChild(document.createTextNode(" "));
        counts.appendChild(el("span", "del", "−" + f.removed));
        node.appendChild(counts);
        const open = openFindings(f);
        if (open) node.appendChild(el("span", "flag", open + " open"));
        if (f.label === "changed since review" || f.label === "new since review") {
          node.appendChild(el("span", "flag", f.label === "new since review" ? "new" : "changed"));
        }
        node.title = f.path + " — " + f.label + (f.excluded ? " (" + f.excluded + ")" : "");
        node.dataset.path = f.path;
        node.addEventListener("click", () => openFile(f.path));
      }
      node.style.top = i * ROW + "px";
      space.appendChild(node);
    }
  }

  function revealInTree(path) {
    const index = state.visible.findIndex((r) => r.file && r.file.path === path);
    if (index < 0) return;
    const tree = $("tree");
    const top = index * ROW;
    if (top < tree.scrollTop || top + ROW > tree.scrollTop + tree.clientHeight) {
      tree.scrollTop = Math.max(0, top - tree.clientHeight / 2);
    }
    drawTree();
  }

  // ------------------------------------------------------------------ one file

  function toRow(list) {
    const [k, o, n, s, c, h] = list;
    return { k, o, n, s, c, h };
  }

  function gapOf(prev, ranges) {
    // the lines between the previous hunk and this one (new side numbers), and new - old there
    const [os, oc, ns, nc] = ranges;
    const newFirst = nc > 0 ? ns : ns + 1;
    const oldFirst = oc > 0 ? os : os + 1;
    let lo = 1;
    if (prev) {
      const [, , pns, pnc] = prev;
      lo = (pnc > 0 ? pns + pnc - 1 : pns) + 1;
    }
    return { lo, hi: newFirst - 1, d: newFirst - oldFirst };
  }

  function addRows(current, rows) {
    for (const raw of rows) {
      const row = toRow(raw);
      if (row.k === "hunk" && row.h) {
        row.gap = gapOf(current.prevHunk, row.h);
        current.prevHunk = row.h;
      }
      current.rows.push(row);
    }
  }

  function addTail(current) {
    const f = state.byPath.get(current.path);
    const h = current.prevHunk;
    if (!h || !f || f.status === "added" || f.status === "deleted") return;
    const [os, oc, ns, nc] = h;
    const lo = (nc > 0 ? ns + nc - 1 : ns) + 1;
    const oldNext = (oc > 0 ? os + oc - 1 : os) + 1;
    current.rows.push({ k: "tail", gap: { lo, hi: Infinity, d: lo - oldNext } });
  }

  async function openFile(path, keepScroll) {
    if (!state.byPath.has(path)) return;
    const current = { path, rows: [], next: 0, loading: false, done: false, prevHunk: null, selection: null };
    state.current = current;
    history.replaceState(null, "", "#file=" + encodeURIComponent(path));
    $("empty").hidden = true;
    $("file").hidden = false;
    renderFileHead();
    $("file-body").replaceChildren(el("div", "muted", "Loading…"));
    $("file-findings").replaceChildren();
    revealInTree(path);
    if (!keepScroll) $("main").scrollTop = 0;
    await loadMoreRows(current);
  }

  async function loadMoreRows(current) {
    if (current.loading || current.done || state.current !== current) return;
    current.loading = true;
    try {
      const data = await api("file", { view: state.view, path: current.path, offset: current.next });
      if (state.current !== current) return;
      current.excluded = data.excluded;
      current.language = data.language;
      addRows(current, data.rows);
      current.next = data.next_offset;
      current.done = data.next_offset === null;
      if (current.done) addTail(current);
      renderFileHead();
      renderRows();
    } catch (error) {
      say(errorText(error), true);
      $("file-body").replaceChildren(el("div", "muted", errorText(error)));
    } finally {
      current.loading = false;
    }
  }

  function renderFileHead() {
    const current = state.current;
    const f = state.byPath.get(current.path);
    const head = $("file-head");
    head.replaceChildren();
    head.appendChild(el("span", "path", current.path));
    if (f.oldPath) head.appendChild(el("span", "note", "renamed from " + f.oldPath));
    const notes = [f.status];
    if (f.binary) notes.push("binary");
    if (f.label !== f.state) notes.push(f.label);
    else if (f.state !== "reviewed") notes.push(f.state);
    if (current.language) notes.push(current.language);
    notes.push("+" + f.added + " −" + f.removed);
    head.appendChild(el("span", "note", notes.join(" · ")));
    if (f.excluded) head.appendChild(el("span", "note", "excluded from the chunks: " + f.excluded));
    if (!state.readOnly) {
      head.appendChild(button("Finding on the file", "A finding on the whole file", () => openForm(null)));
    }
    const label = el("label", "viewed" + (f.state === "reviewed" ? " on" : ""));
    const box = el("input");
    box.type = "checkbox";
    box.id = "viewed";
    box.checked = f.state === "reviewed";
    box.disabled = state.readOnly || f.state === "excluded";
    box.addEventListener("change", () => setViewed(current.path, box.checked));
    label.appendChild(box);
    label.appendChild(document.createTextNode("Viewed"));
    label.title = state.readOnly
      ? "read-only page"
      : f.state === "excluded"
        ? "excluded files are not reviewed"
        : "Mark the file reviewed (v)";
    head.appendChild(label);
  }

  // spans: [[text, class], ...]: Pygments' token class (coloured by highlight.css under .hl),
  // plus "chg" for a word that differs from the paired line's
  function codeCell(spans, cut, cls) {
    const td = el("td", "code" + (cls ? " " + cls : ""));
    for (const [text, css] of spans || []) {
      if (!css) td.appendChild(document.createTextNode(text));
      else td.appendChild(el("span", css, text));
    }
    if (cut) td.appendChild(el("span", "cut", " … " + cut + " more characters"));
    return td;
  }

  function numCell(number, side, cls) {
    const td = el("td", "num" + (cls ? " " + cls : ""), number || "");
    if (number) {
      td.dataset.side = side;
      td.dataset.line = number;
    }
    return td;
  }

  function fullRow(cls, text, columns) {
    const tr = el("tr", cls);
    const td = el("td", "code", text);
    td.colSpan = columns;
    tr.appendChild(td);
    return tr;
  }

  function hunkRow(row, index, columns) {
    const tr = el("tr", "hunk");
    tr.dataset.index = index;
    const td = el("td", "code");
    td.colSpan = columns;
    const gap = row.gap;
    if (gap && gap.lo <= gap.hi) {
      const box = el("span", "expand");
      const size = gap.hi === Infinity ? null : gap.hi - gap.lo + 1;
      if (row.k === "tail") {
        box.appendChild(button("↓ " + EXPAND, "Show more lines below", () => expand(row, "down")));
      } else {
        box.appendChild(button("↑ " + EXPAND, "Show lines above this hunk", () => expand(row, "up")));
        box.appendChild(button("↓ " + EXPAND, "Show lines below the previous hunk", () => expand(row, "down")));
        box.appendChild(button("↕ " + size, "Show all " + size + " lines", () => expand(row, "all")));
      }
      td.appendChild(box);
    }
    td.appendChild(document.createTextNode(row.k === "tail" ? "" : row.s.map((p) => p[0]).join("")));
    tr.appendChild(td);
    return tr;
  }

  function renderRows() {
    const current = state.current;
    const body = $("file-body");
    const split = state.mode === "split";
    const table = el("table", "diff hl " + state.mode);
    const cols = el("colgroup");
    for (const cls of split ? ["num", "code", "num", "code"] : ["num", "num", "mark", "code"]) {
      cols.appendChild(el("col", cls));
    }
    table.appendChild(cols);
    const tbody = el("tbody");
    table.appendChild(tbody);
    const columns = split ? 4 : 4;
    const where = new Map(); // "new:12" / "old:8" -> tr
    const hunks = [];
    const rows = current.rows;
    let i = 0;
    while (i < rows.length) {
      const row = rows[i];
      if (row.k === "hunk" || row.k === "tail") {
        if (row.k === "tail" && !(row.gap && row.gap.lo <= row.gap.hi)) {
          i++;
          continue;
        }
        const tr = hunkRow(row, i, columns);
        if (row.k === "hunk") hunks.push(tr);
        tbody.appendChild(tr);
        i++;
      } else if (row.k === "ctx" || row.k === "add" || row.k === "del") {
        if (!split) {
          tbody.appendChild(unifiedRow(row, where));
          i++;
        } else if (row.k === "ctx") {
          tbody.appendChild(splitRow(row, row, where));
          i++;
        } else {
          const dels = [];
          const adds = [];
          while (i < rows.length && rows[i].k === "del") dels.push(rows[i++]);
          while (i < rows.length && rows[i].k === "add") adds.push(rows[i++]);
          for (let j = 0; j < Math.max(dels.length, adds.length); j++) {
            tbody.appendChild(splitRow(dels[j] || null, adds[j] || null, where));
          }
        }
      } else {
        tbody.appendChild(fullRow(row.k, row.s.map((p) => p[0]).join(""), columns));
        i++;
      }
    }
    body.replaceChildren(table);
    current.where = where;
    current.hunks = hunks;
    placeFindings();
    const more = $("file-more");
    if (!current.done) {
      more.hidden = false;
      more.replaceChildren(
        el("span", null, rows.length + " rows shown; more load as you scroll. "),
        button("Load more", "Load the next rows", () => loadMoreRows(current)),
      );
      watchEnd(current);
    } else {
      more.hidden = true;
    }
    if (!rows.length) body.replaceChildren(el("div", "muted", "No lines to show (a change of mode, a rename, or a binary file)."));
  }

  function unifiedRow(row, where) {
    const tr = el("tr", row.k + (row.x ? " expanded" : ""));
    tr.appendChild(numCell(row.o, "old"));
    tr.appendChild(numCell(row.n, "new"));
    tr.appendChild(el("td", "mark", row.k === "add" ? "+" : row.k === "del" ? "−" : ""));
    tr.appendChild(codeCell(row.s, row.c));
    if (row.o) where.set("old:" + row.o, tr);
    if (row.n) where.set("new:" + row.n, tr);
    tr.rowData = row;
    return tr;
  }

  function splitRow(left, right, where) {
    const tr = el("tr", "pair" + (left && left === right && left.x ? " expanded" : ""));
    const both = left && left === right;
    if (left && left.o) {
      tr.appendChild(numCell(left.o, "old", both ? "" : "del"));
      tr.appendChild(codeCell(left.s, left.c, both ? "" : "del"));
      where.set("old:" + left.o, tr);
    } else {
      tr.appendChild(el("td", "num empty"));
      tr.appendChild(el("td", "code empty"));
    }
    if (right && right.n) {
      tr.appendChild(numCell(right.n, "new", both ? "" : "add"));
      tr.appendChild(codeCell(right.s, right.c, both ? "" : "add"));
      where.set("new:" + right.n, tr);
    } else {
      tr.appendChild(el("td", "num empty"));
      tr.appendChild(el("td", "code empty"));
    }
    tr.rowData = right || left;
    return tr;
  }

  let endWatcher = null;
  function watchEnd(current) {
    if (endWatcher) endWatcher.disconnect();
    endWatcher = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && current.rows.length < MAX_AUTO_ROWS) {
        loadMoreRows(current);
      }
    }, { root: $("main") });
    endWatcher.observe($("file-more"));
  }

  // ------------------------------------------------------------------ context

  async function expand(row, how) {
    const current = state.current;
    const gap = row.gap;
    let first;
    let count;
    if (how === "up") {
      count = Math.min(EXPAND, gap.hi - gap.lo + 1);
      first = gap.hi - count + 1;
    } else if (how === "down") {
      first = gap.lo;
      count = gap.hi === Infinity ? EXPAND : Math.min(EXPAND, gap.hi - gap.lo + 1);
    } else {
      first = gap.lo;
      count = gap.hi - gap.lo + 1;
    }
    try {
      const data = await api("context", {
        view: state.view,
        path: current.path,
        new_first: first,
        count,
        old_first: first - gap.d,
      });
      if (state.current !== current) return;
      const lines = data.lines.map((spans, k) => {
        const n = first + k;
        return { k: "ctx", o: n - gap.d, n, s: spans, c: 0, x: true };
      });
      if (row.k === "tail") gap.hi = data.total;
      const index = current.rows.indexOf(row);
      if (how === "up") {
        current.rows.splice(index + 1, 0, ...lines);
        gap.hi = first - 1;
      } else {
        current.rows.splice(index, 0, ...lines);
        gap.lo = first + lines.length;
        if (!lines.length) gap.lo = gap.hi + 1;
      }
      renderRows();
    } catch (error) {
      say(errorText(error), true);
    }
  }

  // ------------------------------------------------------------------ viewed

  async function setViewed(path, reviewed) {
    try {
      await api("viewed", {}, { view: state.view, path, reviewed });
      say("");
      await refresh(true);
    } catch (error) {
      say(errorText(error), true);
      await refresh(true);
    }
  }

  // ------------------------------------------------------------------ findings

  function findingsOf(path) {
    return state.findings.filter((f) => f.file_path === path);
  }

  function placeable(f, file) {
    if (f.line === null || f.line === undefined) return false;
    if (f.status === "outdated") return false;
    return f.chunk !== null || (file && file.state === "excluded");
  }

  function placeFindings() {
    const current = state.current;
    if (!current || !current.where) return;
    for (const node of document.querySelectorAll("#file-body tr.finding-row")) node.remove();
    const file = state.byPath.get(current.path);
    const top = $("file-findings");
    top.replaceChildren();
    const columns = 4;
    for (const f of findingsOf(current.path)) {
      const tr = placeable(f, file) ? current.where.get(f.side + ":" + f.end_line) : null;
      if (tr) {
        let after = tr;
        while (after.nextSibling && after.nextSibling.classList.contains("finding-row")) after = after.nextSibling;
        const row = el("tr", "finding-row");
        row.dataset.finding = f.id;
        const td = el("td");
        td.colSpan = columns;
        td.appendChild(findingCard(f, false));
        row.appendChild(td);
        after.after(row);
      } else if (f.line === null || f.line === undefined || current.done || !placeable(f, file)) {
        top.appendChild(findingCard(f, true));
      }
    }
  }

  function findingCard(f, withWhere) {
    const open = f.status === "open";
    const card = el("div", "finding sev-" + f.severity + (open ? "" : " closed"));
    card.dataset.finding = f.id;
    const meta = el("div", "meta");
    meta.appendChild(el("span", "sev", f.severity));
    meta.appendChild(el("span", "status", f.status));
    meta.appendChild(el("span", null, "#" + f.id));
    if (f.author) meta.appendChild(el("span", "author", f.author));
    if (withWhere) {
      let where = "whole file";
      if (f.line !== null && f.line !== undefined) {
        where = (f.line === f.end_line ? "line " + f.line : "lines " + f.line + "-" + f.end_line) + " (" + f.side + " side)";
        if (f.status === "outdated" || f.chunk === null) where += ", not on the lines shown";
      }
      meta.appendChild(el("span", "where", where));
    }
    meta.appendChild(el("span", null, f.updated_at || f.created_at || ""));
    card.appendChild(meta);
    card.appendChild(el("div", "text", f.message));
    if (withWhere && f.lines) card.appendChild(el("pre", null, f.lines));
    if (f.suggestion !== null && f.suggestion !== undefined) {
      card.appendChild(el("div", "muted", "Suggested change:"));
      card.appendChild(el("pre", null, f.suggestion));
    }
    const replies = f.thread || [];
    if (replies.length) {
      const thread = el("div", "thread");
      for (const c of replies) {
        const item = el("div", "comment");
        const who = el("div", "meta");
        if (c.author) who.appendChild(el("span", "author", c.author));
        if (c.status) who.appendChild(el("span", "status", c.status));
        if (c.at) who.appendChild(el("span", null, c.at));
        item.appendChild(who);
        item.appendChild(el("div", "text", c.body));
        thread.appendChild(item);
      }
      card.appendChild(thread);
    }
    if (!state.readOnly) {
      const actions = el("div", "actions");
      if (open) {
        actions.appendChild(button("Resolve", "The problem is fixed", () => setStatus(f.id, "resolved")));
        actions.appendChild(button("Dismiss", "Not a problem after all", () => setStatus(f.id, "dismissed")));
      } else if (f.status !== "outdated") {
        actions.appendChild(button("Reopen", "Open it again", () => setStatus(f.id, "open")));
      }
      card.appendChild(actions);
      const reply = el("div", "reply");
      const box = el("textarea", "reply-text");
      box.rows = 2;
      box.placeholder = "Reply (kept on the finding's thread)";
      box.setAttribute("aria-label", "Reply to finding " + f.id);
      reply.appendChild(box);
      reply.appendChild(button("Reply", "Add this reply to the thread", () => addReply(f.id, box)));
      card.appendChild(reply);
    }
    return card;
  }

  async function addReply(id, box) {
    const comment = box.value.trim();
    if (!comment) {
      say("Write a reply first.", true);
      return;
    }
    await updateFinding(id, { comment });
  }

  function setStatus(id, status) {
    return updateFinding(id, { status });
  }

  // One change to a finding (update_finding), then the page drawn again; a refusal is said.
  async function updateFinding(id, change) {
    try {
      await api("findings/" + id, {}, { view: state.view, ...change });
      say("");
      await refresh(true);
    } catch (error) {
      say(errorText(error), true);
    }
  }

  function selectLine(td, extend) {
    const side = td.dataset.side;
    const line = Number(td.dataset.line);
    const current = state.current;
    let first = line;
    let last = line;
    if (extend && current.selection && current.selection.side === side) {
      first = Math.min(current.selection.first, line);
      last = Math.max(current.selection.first, line);
    }
    current.selection = { side, first, last };
    for (const node of document.querySelectorAll("#file-body tr.selected")) node.classList.remove("selected");
    for (let n = first; n <= last; n++) {
      const tr = current.where.get(side + ":" + n);
      if (tr) tr.classList.add("selected");
    }
    openForm(current.selection);
  }

  function linesText(selection) {
    const current = state.current;
    const out = [];
    for (let n = selection.first; n <= selection.last; n++) {
      const row = current.rows.find((r) => (selection.side === "new" ? r.n === n : r.o === n) && r.k !== "hunk");
      if (row) out.push(row.s.map((p) => p[0]).join(""));
    }
    return out.join("\n");
  }

  function openForm(selection) {
    if (state.readOnly) return;
    for (const node of document.querySelectorAll(".form-row, .file-form")) node.remove();
    const current = state.current;
    const form = el("form", "finding-form");
    const where = selection
      ? (selection.first === selection.last ? "Line " + selection.first : "Lines " + selection.first + "-" + selection.last) +
        " (" + selection.side + " side)"
      : "The whole file";
    form.appendChild(el("div", "muted", where + " of " + current.path));
    const top = el("div", "row");
    const severity = el("select");
    severity.name = "severity";
    for (const s of SEVERITIES) {
      const option = el("option", null, s);
      option.value = s;
      if (s === "major") option.selected = true;
      severity.appendChild(option);
    }
    top.appendChild(el("label", null, "Severity"));
    top.appendChild(severity);
    form.appendChild(top);
    const message = el("textarea");
    message.name = "message";
    message.placeholder = "What is wrong, and why";
    form.appendChild(message);
    let suggestion = null;
    if (selection && selection.side === "new") {
      const toggle = button("Suggest a change", "Replacement text for these lines", () => {
        suggestion = el("textarea");
        suggestion.name = "suggestion";
        suggestion.value = linesText(selection);
        toggle.replaceWith(suggestion);
      });
      form.appendChild(toggle);
    }
    const error = el("div", "error");
    form.appendChild(error);
    const actions = el("div", "row");
    const save = el("button", null, "Add finding");
    save.type = "submit";
    actions.appendChild(save);
    actions.appendChild(button("Cancel", "Close", () => closeForm()));
    form.appendChild(actions);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      save.disabled = true;
      try {
        await api("findings", {}, {
          view: state.view,
          path: current.path,
          line: selection ? selection.first : null,
          end_line: selection ? selection.last : null,
          side: selection ? selection.side : "new",
          severity: severity.value,
          message: message.value,
          suggestion: suggestion ? suggestion.value : null,
        });
        closeForm();
        await refresh(true);
      } catch (e) {
        error.textContent = errorText(e);
        save.disabled = false;
      }
    });
    if (selection) {
      let after = current.where.get(selection.side + ":" + selection.last);
      if (!after) return;
      while (after.nextSibling && after.nextSibling.classList.contains("finding-row")) after = after.nextSibling;
      const tr = el("tr", "form-row");
      const td = el("td");
      td.colSpan = 4;
      td.appendChild(form);
      tr.appendChild(td);
      after.after(tr);
    } else {
      const box = el("div", "file-form");
      box.appendChild(form);
      $("file-findings").prepend(box);
    }
    message.focus();
  }

  function closeForm() {
    for (const node of document.querySelectorAll(".form-row, .file-form")) node.remove();
    for (const node of document.querySelectorAll("#file-body tr.selected")) node.classList.remove("selected");
    if (state.current) state.current.selection = null;
  }

  // ------------------------------------------------------------------ updates

  async function refresh(force) {
    try {
      const { version } = await api("version");
      if (!force && version === state.version) return;
      await Promise.all([loadReview(), loadFindings()]);
      state.version = version;
      if (state.current && state.byPath.has(state.current.path)) {
        renderFileHead();
        placeFindings();
      }
    } catch (error) {
      say(errorText(error), true);
    }
  }

  async function switchView(view) {
    if (view === state.view) return;
    const before = state.view;
    state.view = view;
    try {
      say(view === "since" ? "Loading what changed since your last review…" : "");
      await Promise.all([loadReview(), loadFindings()]);
      say("");
    } catch (error) {
      state.view = before;
      say(errorText(error), true);
      await loadReview();
      return;
    }
    const path = state.current && state.current.path;
    if (path && state.byPath.has(path)) openFile(path);
    else {
      state.current = null;
      $("file").hidden = true;
      $("empty").hidden = false;
    }
  }

  function setMode(mode) {
    state.mode = mode;
    $("mode-unified").classList.toggle("on", mode === "unified");
    $("mode-split").classList.toggle("on", mode === "split");
    if (state.current) renderRows();
  }

  // ------------------------------------------------------------------ moving

  function step(delta) {
    const order = state.order;
    if (!order.length) return;
    const at = state.current ? order.indexOf(state.current.path) : -1;
    const next = at < 0 ? (delta > 0 ? 0 : order.length - 1) : at + delta;
    if (next >= 0 && next < order.length) openFile(order[next]);
  }

  function nextUnreviewed() {
    const order = state.order;
    const at = state.current ? order.indexOf(state.current.path) : -1;
    for (let k = 1; k <= order.length; k++) {
      const path = order[(at + k + order.length) % order.length];
      const f = state.byPath.get(path);
      if (f && f.state !== "reviewed" && f.state !== "excluded") {
        openFile(path);
        return;
      }
    }
    say("Every file shown is reviewed.");
  }

  function hunkStep(delta) {
    const current = state.current;
    if (!current || !current.hunks || !current.hunks.length) return;
    const main = $("main");
    const offset = $("file-head").offsetHeight + 4;
    const tops = current.hunks.map((tr) => tr.getBoundingClientRect().top - main.getBoundingClientRect().top - offset);
    let target = null;
    if (delta > 0) target = current.hunks.find((tr, i) => tops[i] > 1);
    else {
      for (let i = current.hunks.length - 1; i >= 0; i--) {
        if (tops[i] < -1) {
          target = current.hunks[i];
          break;
        }
      }
    }
    if (target) main.scrollTop += target.getBoundingClientRect().top - main.getBoundingClientRect().top - offset;
  }

  function toggleViewed() {
    const current = state.current;
    if (!current || state.readOnly) return;
    const f = state.byPath.get(current.path);
    if (!f || f.state === "excluded") return;
    setViewed(current.path, f.state !== "reviewed");
  }

  function onKey(event) {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) {
      if (event.key === "Escape") target.blur();
      return;
    }
    const actions = {
      n: () => step(1),
      p: () => step(-1),
      j: () => hunkStep(1),
      k: () => hunkStep(-1),
      u: () => nextUnreviewed(),
      v: () => toggleViewed(),
      s: () => setMode(state.mode === "split" ? "unified" : "split"),
      "?": () => ($("help").hidden = !$("help").hidden),
      Escape: () => {
        $("help").hidden = true;
        closeForm();
      },
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  }

  // ------------------------------------------------------------------ start

  async function start() {
    $("tree").addEventListener("scroll", drawTree, { passive: true });
    window.addEventListener("resize", drawTree);
    document.addEventListener("keydown", onKey);
    $("view-full").addEventListener("click", () => switchView("full"));
    $("view-since").addEventListener("click", () => switchView("since"));
    $("mode-unified").addEventListener("click", () => setMode("unified"));
    $("mode-split").addEventListener("click", () => setMode("split"));
    $("next-unreviewed").addEventListener("click", nextUnreviewed);
    $("help-button").addEventListener("click", () => ($("help").hidden = !$("help").hidden));
    $("file-body").addEventListener("click", (event) => {
      const td = event.target.closest("td.num");
      if (td && td.dataset.line && !state.readOnly) selectLine(td, event.shiftKey);
    });
    for (const b of document.querySelectorAll("[data-filter]")) {
      b.addEventListener("click", () => {
        state.filter = b.dataset.filter;
        for (const o of document.querySelectorAll("[data-filter]")) o.classList.toggle("on", o === b);
        buildTree();
      });
    }
    $("filter-text").addEventListener("input", (event) => {
      state.text = event.target.value.trim().toLowerCase();
      buildTree();
    });
    try {
      await Promise.all([loadReview(), loadFindings()]);
    } catch (error) {
      say(errorText(error), true);
      return;
    }
    document.body.dataset.ready = "1";
    window.diffchunkFirstRender = performance.now();
    const wanted = decodeURIComponent((window.location.hash.match(/^#file=(.*)$/) || [])[1] || "");
    if (wanted && state.byPath.has(wanted)) openFile(wanted);
    window.setInterval(() => refresh(false), POLL_MS);
  }

  start();
})();
