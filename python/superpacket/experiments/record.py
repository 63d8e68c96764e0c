"""What each built-in experiment exports: one `Experiment` record (its module's
`EXPERIMENT`), read by the command line (`reproduce`, `list`), the reports and the tests
instead of attributes looked up on the module.

The record names the experiment, the paper and the part of it reproduced, how to run it
(`run`, the command-line options it takes and the check of their values, its default
seeds, whether it runs on a local Dask cluster by default, what `--quick` makes of it),
the claims it judges (each with its own text, what it is judged on and the number its
verdict is shown beside), and what its report shows (the order of its variants, whether
the generic bar charts are drawn, its extra tables, its own figures).

The record declares the claims; a run judges them. Each claim in a result's `claims` is
made by its record's `Claim.result`: the claim's `id`, its text (the record's, with the
run's values where the text names one, such as a protocol or a load), whether it must
hold, the verdict and the numbers judged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from string import Formatter
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


@dataclass(frozen=True)
class Number:
    """The number a claim's verdict is shown beside (the report's "ours" column, the
    terminal's parenthesis after HOLDS): which keys of its judgements hold it and how it
    reads. The report reads these keys and no other; every judgement of the claim carries
    them (tests/record_check.py)."""

    #: The judgement's keys whose values `words` shows, in its order.
    keys: tuple[str, ...]
    #: str.format of the keys' values, in order ("ratio {:.2f}"); unused for a cut.
    words: str = "{}"
    #: The value (one key) is a cut in % against this ("droptail's"), positive when ours
    #: is the lower: read by its sign, "12.3 % below droptail's" or "4.5 % above
    #: droptail's"; the paper's cut (`paper_improvement_pct`) is read against it too.
    against: str | None = None
    #: The values are fractions, shown in % (multiplied by 100 before `words`).
    percent: bool = False


@dataclass(frozen=True)
class Claim:
    """A claim an experiment judges, as its record declares it.

    `text` is the claim's own text, as the paper or our specification states it; a
    `{name}` in it stands for a value the run fills in (a protocol, a load, a variant):
    such a claim is judged once per value the run covers, each judgement with its text.
    """

    #: Names the claim within its experiment; each judgement in a result carries it.
    id: str
    #: The claim's own text (str.format fields for the run's values).
    text: str
    #: What it is judged on, in words: the numbers its judgements carry.
    judges: str
    #: False for a claim shown beside the others (the paper's where our specification
    #: sets its own, a finding), not one our specification requires.
    must_hold: bool = True
    #: The number its verdict is shown beside; None: none (its judgements' numbers are
    #: all shown in the report's table).
    number: Number | None = None

    def fields(self) -> tuple[str, ...]:
        """The names `text` leaves to the run, in their order."""
        return tuple(dict.fromkeys(f for _, f, _, _ in Formatter().parse(self.text) if f))

    def shown(self) -> str:
        """`text` as the docs and `superpacket list --claims` show it: each field as
        `{name}`, without its number format."""
        return "".join(lit + ("" if f is None else f"{{{f}}}") for lit, f, _, _ in Formatter().parse(self.text))

    def result(self, fields: Mapping[str, Any] | None = None, /, **judged: Any) -> dict[str, Any]:
        """One judgement, as a result's `claims` holds it: {"id", "claim" (the text with
        `fields` filled in), "must_hold", then `judged` (the numbers judged and "holds",
        in the order given)}."""
        return {"id": self.id, "claim": self.text.format(**(fields or {})), "must_hold": self.must_hold, **judged}


@dataclass(frozen=True)
class Quick:
    """What `--quick` makes of an experiment: its small scale, declared once, read by its
    run (`quick=True`), `reproduce --quick`, the docs and the tests."""

    #: In words ("2 s contests").
    text: str
    #: The values the small scale sets, by name (a parameter of `run` where it is one).
    values: Mapping[str, Any] = field(default_factory=dict)
    #: The seeds run when none are named (None: the experiment's default_seeds).
    seeds: int | None = None


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
    #: What `--quick` makes of it (None: it has no small scale; "quick" is then not an option).
    quick: Quick | None = None
    #: The claims it judges, in the order a result lists them.
    claims: tuple[Claim, ...] = ()
    #: The regimes it runs (incast: paper and datacenter): the result holds the one asked
    #: for under `variants`, the others under `regimes`; the terminal tells each.
    regimes: tuple[str, ...] = ()
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

    def claim(self, id: str) -> Claim:
        """The declared claim named `id` (KeyError if none)."""
        for c in self.claims:
            if c.id == id:
                return c
        raise KeyError(f"{self.name}: no claim {id!r}")

    def figure_builder(self) -> Callable[[dict[str, Any]], list[Any]] | None:
        """The builder `figures` names, imported now; None without one."""
        if self.figures is None:
            return None
        module, _, function = self.figures.partition(":")
        builder: Callable[[dict[str, Any]], list[Any]] = getattr(import_module(module), function)
        return builder

    def summary(self) -> str:
        """What `superpacket list` shows: the module docstring's first paragraph as one line,
        up to where it turns to where its parameters come from ("; parameters from ...")."""
        doc = (self.module.__doc__ or "").strip().split("\n\n")[0]
        return " ".join(doc.split()).split("; parameters from")[0]

    def citation(self) -> str:
        """The experiment page's **Paper:** line: the paper, then the part reproduced."""
        return f"{self.paper.citation()}; {self.part}."
