"""`superpacket report DIR`: report.md, report.html and figures/ (PNG and SVG) for

- a run folder (`superpacket run FILE --out DIR`: flows/links/queue_series .parquet,
  summary.json, scenario.toml),
- a sweep folder (`superpacket sweep ... --out DIR`: sweep.json and hive-partitioned runs),
- a reproduce folder (`superpacket reproduce NAME --out DIR`: summary.json in the experiments'
  layout).

Every number and figure is computed from the folder's data (never a literal); means over
seeds carry their interval with n beside it (experiments.common.mean_ci95: a 95 % CI
clipped to the metric's range from 3 seeds, the min-max below). A reproduce report is
verdict-first: its scale, the claims, the figures, then the tables. report.html is
self-contained: the PNGs are inlined as base64, no external URL, and a small script
records on <body> how many images decoded (the test reads it back in headless Chromium).

The package's parts: `folders` (the report of each kind of folder), `doc` (a report's
blocks rendered to Markdown and HTML), `figures` (the figures any report draws),
`figure_kit` (what the experiments' own figures share) and `verdicts` (a claim's
verdict and the scale it was judged at).
"""

from __future__ import annotations

from superpacket.reports.doc import FOLD_ROWS, Doc, ci_text, interval_note, num
from superpacket.reports.folders import MAX_FLOW_BARS, ReportError, report

__all__ = ["FOLD_ROWS", "MAX_FLOW_BARS", "Doc", "ReportError", "ci_text", "interval_note", "num", "report"]
