"""What each built-in experiment exports: one `Experiment` record (its module's
`EXPERIMENT`), read by the command line (`reproduce`, `list`), the reports and the tests
instead of attributes looked up on the module.

The record names the experiment, the paper and the part of it reproduced, how to run it
(`run`, the command-line options it takes and the check of their values, its default
seeds, whether it runs on a local Dask cluster by default), and what its report shows (the order of its variants, whether the generic bar
charts are drawn, its extra tables, its own figures). The claims are the run's own: each result's
`claims` lists every claim with its text and its verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Paper:
    """A paper as the experiment pages cite it: `AUTHORS, "TITLE", VENUE`."""

    authors: str
    title: str
    venue: str

    def citation(self) -> str:
        return f'{self.authors}, "{self.title}", {self.venue}'


LI_2013 = Paper("Y. Li", "Benefits and Practicality of Super-Packets",
                "UC Berkeley technical report UCB/EECS-2013-83, 2013")
GUO_MATTA_2001 = Paper("L. Guo, I. Matta", "The War Between Mice and Elephants", "ICNP 2001 (slides)")
JIN_2004 = Paper("G. Jin", "Packet Drop Avoidance for High-speed Network Transmission Protocol",
                 "LBNL (LBNL-53920), 2004")
WEI_HEGDE_LOW_2005 = Paper("D. X. Wei, S. Hegde, S. H. Low", "Burstiness Control for High Speed Long Distance TCP",
                           "PFLDnet 2005 (slides)")
BHANDARKAR_REDDY_2007 = Paper("S. Bhandarkar, A. L. N. Reddy", "Robustness to Packet Reordering in High-speed Networks",
                              "PFLDnet 2007 (slides)")
ALIZADEH_2010 = Paper("M. Alizadeh et al.", "Data Center TCP (DCTCP)", "SIGCOMM 2010")

#: An experiment's default number of seeds when it names none.
FALLBACK_DEFAULT_SEEDS = 10


@dataclass(frozen=True)
class Experiment:
    """A built-in experiment (`superpacket reproduce NAME`)."""

    #: The name `superpacket reproduce` takes.
    name: str
    #: The paper and the part of it reproduced ("section 4.2, Fig. 4a-c").
    paper: Paper
    part: str
    #: The module that holds the experiment (its docstring describes it).
    module: ModuleType
    #: run(seeds=..., **options) -> the result (variants, paper, claims, ...).
    run: Callable[..., dict[str, Any]]
    #: Seeds at full scale.
    default_seeds: int = FALLBACK_DEFAULT_SEEDS
    #: The options of `run` the command line may pass (`--quick` is "quick", `--q` "qs",
    #: `--duration` "duration_s"); any other is refused.
    options: tuple[str, ...] = ()
    #: Checks the options' values before anything runs (raises ValueError); takes the
    #: options it names.
    check_options: Callable[..., Any] | None = None
    #: `reproduce` runs the seeds on a local Dask cluster unless `--workers 0`.
    parallel_by_default: bool = False
    #: The variants in the experiment's own order (reports and figures follow it; a
    #: summary's keys are sorted).
    variants: Sequence[str] = ()
    #: The report draws the generic bar chart of each metric (else only its own figures).
    generic_bars: bool = True
    #: Extra report tables: the result's key -> (title, columns).
    report_tables: Mapping[str, tuple[str, list[str]]] = field(default_factory=dict)
    #: The report's own figures: "MODULE:FUNCTION" of a builder summary -> [ExpFigure] in
    #: superpacket.experiments.figures, imported only when a report draws them (matplotlib
    #: stays out of a run); None: the generic figures only.
    figures: str | None = None

    def figure_builder(self) -> Callable[[dict[str, Any]], list[Any]] | None:
        """The builder `figures` names, imported now; None without one."""
        if self.figures is None:
            return None
        module, _, function = self.figures.partition(":")
        builder: Callable[[dict[str, Any]], list[Any]] = getattr(import_module(module), function)
        return builder

    def summary(self) -> str:
        """The first line of the module's docstring (`superpacket list`)."""
        doc = (self.module.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""

    def citation(self) -> str:
        """The experiment page's **Paper:** line: the paper, then the part reproduced."""
        return f"{self.paper.citation()}; {self.part}."
