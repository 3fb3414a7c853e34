"""The style sheet of the ``html`` export, inlined into the page.

Severity colours always come with the severity written out (``MAJOR``), so a
reader who does not see the colours loses nothing; the print and narrow-screen
rules keep the diff readable.
"""

from __future__ import annotations

#: Badge colours (text is white on them) and the light tint of a finding's card.
SEVERITY_COLOURS = {
    "blocker": ("#8c1b13", "#fbe9e7"),
    "major": ("#c2410c", "#fff1e6"),
    "minor": ("#8a6100", "#fff8db"),
    "nit": ("#1f5fa8", "#eaf2fc"),
    "question": ("#6b3fa0", "#f3edfb"),
}
STATE_COLOURS = {
    "reviewed": "#1a7f37",
    "seen": "#1f5fa8",
    "unseen": "#57606a",
    "changed": "#b35900",
    "excluded": "#8c959f",
}

_BASE = """
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,
"Noto Sans","DejaVu Sans",sans-serif;color:#1f2328;background:#fff}
h1{font-size:22px;margin:0 0 12px}h2{font-size:18px;margin:28px 0 10px;border-bottom:1px solid #d0d7de;
padding-bottom:4px}
code,pre,table.diff td{font-family:ui-monospace,"SFMono-Regular","DejaVu Sans Mono",Menlo,Consolas,
monospace;font-size:12.5px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}
dl.facts dt{color:#57606a}dl.facts dd{margin:0;overflow-wrap:anywhere}
table.counts,table.files{border-collapse:collapse;margin:6px 0}
table.counts th,table.counts td,table.files th,table.files td{border:1px solid #d0d7de;
padding:3px 9px;text-align:left}
table.counts td{text-align:right}table.files td.num{text-align:right;white-space:nowrap}
table.files td:first-child{overflow-wrap:anywhere}
.sev,.state{display:inline-block;border-radius:10px;padding:0 7px;font-size:11px;font-weight:700;
letter-spacing:.03em;color:#fff;white-space:nowrap}
.state{font-weight:600}
.note{color:#57606a}
ol.index{padding-left:22px}ol.index li{margin:2px 0}
details.file{border:1px solid #d0d7de;border-radius:6px;margin:12px 0}
details.file>summary{cursor:pointer;padding:6px 10px;background:#f6f8fa;border-radius:6px;
overflow-wrap:anywhere}
details.file[open]>summary{border-bottom:1px solid #d0d7de;border-radius:6px 6px 0 0}
.file-body{padding:0}
.file-note{padding:8px 12px;color:#57606a}
table.diff{border-collapse:collapse;width:100%}
table.diff td{padding:0 8px;vertical-align:top;white-space:pre-wrap;overflow-wrap:anywhere}
table.diff td:nth-child(1),table.diff td:nth-child(2){width:1%;min-width:44px;text-align:right;
color:#6e7781;white-space:nowrap;user-select:none}
table.diff tr.a td{background:#e6ffec}table.diff tr.a td:nth-child(-n+2){background:#ccffd8}
table.diff tr.d td{background:#ffebe9}table.diff tr.d td:nth-child(-n+2){background:#ffd7d5}
table.diff tr.h td{background:#ddf4ff;color:#57606a}
table.diff tr.m td,table.diff tr.e td{color:#57606a;background:#f6f8fa}
table.diff tr.f td{background:#fff;padding:6px 10px;white-space:normal;font-family:inherit;
font-size:14px;text-align:left;color:inherit;width:auto}
.card{border:1px solid #d0d7de;border-left-width:5px;border-radius:6px;padding:6px 10px;margin:6px 0}
.card-head{font-size:13px;color:#57606a}
.card .msg{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0;color:#1f2328}
.card pre{background:#f6f8fa;border-radius:4px;padding:6px 8px;margin:4px 0;white-space:pre-wrap;
overflow-wrap:anywhere}
.card .label{font-size:12px;color:#57606a;font-weight:600}
.card.outdated{border-style:dashed;opacity:.85}
.status{font-weight:700;color:#57606a;text-transform:uppercase;font-size:11px}
footer{margin-top:32px;color:#57606a;font-size:12px}
@media print{details.file{break-inside:avoid-page}body{padding:0}}
@media (max-width:700px){body{padding:12px}}
"""


#: The background of the words a changed line changed (class ``chg``), as on the review page.
WORD_COLOURS = {"a": "#abf2bc", "d": "#ff9c95"}


def _syntax_rules() -> list[str]:
    """Pygments' colours of its token classes on the spans of a diff table (the review
    page's, :func:`diffchunk.review.export.highlight.style_css`), without its comments and its
    rules for other elements."""
    from .highlight import style_css

    rules = []
    for line in style_css("table.diff").splitlines():
        if line.startswith("table.diff ."):
            # On spans only: the rows' own classes (c, d, m, x...) are Pygments' too.
            rule = line.split(" /*", 1)[0].replace(" { ", "{").replace(" }", "}")
            rules.append("table.diff span." + rule.removeprefix("table.diff ."))
    return rules


def style_sheet() -> str:
    """The page's CSS: the base rules, a class per severity and per review state, and
    the syntax and word colours of the diff lines."""
    rules = [_BASE.strip()]
    rules += _syntax_rules()
    for row, colour in WORD_COLOURS.items():
        rules.append(f"table.diff tr.{row} span.chg{{background:{colour};border-radius:2px}}")
    for severity, (strong, tint) in SEVERITY_COLOURS.items():
        rules.append(f".sev-{severity}{{background:{strong}}}")
        rules.append(f".card.sev-{severity}{{border-left-color:{strong};background:{tint}}}")
    for state, colour in STATE_COLOURS.items():
        rules.append(f".state-{state}{{background:{colour}}}")
    return "\n".join(rules)
