"""The experiments' own report figures, beside the experiments: one module per experiment
(`bc` for fast-burstiness and datatag, `pda` for mbs and lion, `dcr` for dcr and
dcr-multihop), each a builder `summary -> list[ExpFigure]` that redraws the paper's plots
from a reproduce folder's summary.json (never from literals). An experiment's record
names its builder (`Experiment.figures`); the builders load only when a report draws
them (they need matplotlib), and nothing registers itself on import.

Every builder returns `ExpFigure`s (superpacket.reports.figure_kit) that carry, beside
the matplotlib Figure, the arrays it plotted (`data`), so a test can compare them with
the summary.
"""
