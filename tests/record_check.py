"""A result's claims against its experiment's record (superpacket.experiments.record):
each judgement names a claim the record declares, carries that claim's text (with the
run's values where the text leaves one to the run, and a run's note after "; ") and its
must-hold and the keys its declared number is read from, and judges it once per value;
every declared claim the run covers is judged.
The experiments' tests call it on the results they already make."""

from __future__ import annotations

import re
from collections import Counter
from string import Formatter
from typing import Any

from superpacket.experiments import EXPERIMENTS
from superpacket.experiments.record import Claim


def text_pattern(claim: Claim) -> re.Pattern[str]:
    """The claim's text as a pattern: each field stands for some text; a note may follow."""
    parts = [re.escape(lit) + ("" if f is None else ".+?") for lit, f, _, _ in Formatter().parse(claim.text)]
    return re.compile("".join(parts) + "(?:; .+)?", re.DOTALL)


def assert_claims_declared(result: dict[str, Any], not_judged: tuple[str, ...] = ()) -> None:
    """`not_judged`: ids of declared claims this run does not cover (a scale without their
    variants); every other declared claim must be judged."""
    exp = EXPERIMENTS[result["experiment"]]
    assert len({c.id for c in exp.claims}) == len(exp.claims), f"{exp.name}: two claims share an id"
    judged = result["claims"]
    for c in judged:
        d = exp.claim(c["id"])  # KeyError: a claim the record does not declare
        assert c["must_hold"] is d.must_hold, (exp.name, d.id)
        assert isinstance(c["holds"], bool), (exp.name, d.id)
        assert text_pattern(d).fullmatch(c["claim"]), (exp.name, d.id, c["claim"])
        if d.number is not None:  # the keys the report reads the shown number from
            missing = [k for k in d.number.keys if k not in c]
            assert not missing, (exp.name, d.id, missing)
        if not d.fields():  # a claim the run fills nothing in: its text as declared
            assert c["claim"] == d.text or c["claim"].startswith(f"{d.text}; "), (exp.name, d.id)
    # one judgement per claim and value: no two judgements with the same id and text (the
    # text names the values a claim is judged once per, so that a report's rows differ)
    twice = [k for k, n in Counter((c["id"], c["claim"]) for c in judged).items() if n > 1]
    assert not twice, (exp.name, twice)
    for d in exp.claims:
        n = sum(c["id"] == d.id for c in judged)
        if d.id in not_judged:
            assert n == 0, (exp.name, d.id)
        elif d.fields():
            assert n >= 1, f"{exp.name}: claim {d.id!r} not judged"
        else:
            assert n == 1, f"{exp.name}: claim {d.id!r} judged {n} times"
