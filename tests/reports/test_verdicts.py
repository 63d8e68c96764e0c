"""superpacket.reports.verdicts: a claim's number in words that agree with it in sign, the scale
of a result and when its verdicts are indicative. Expected texts written out by hand."""

import inspect

import pytest
from superpacket.experiments import EXPERIMENTS, short_long
from superpacket.reports import verdicts


def _number(experiment: str, claim: str):
    """What the record declares the claim's verdict is shown beside."""
    return EXPERIMENTS[experiment].claim(claim).number


def test_a_cut_reads_the_right_way_round():
    # incast's datacenter finding: superpacket's mean FCT lies above droptail's;
    # improvement_pct = (droptail - superpacket) / droptail x 100 = (1 - 8.968) x 100 = -796.8:
    # negative, so "above", and no minus sign beside the word
    c = {"id": "datacenter-regime", "claim": "superpacket mean FCT above droptail", "droptail_mean_fct_s": 1.0,
         "superpacket_mean_fct_s": 8.968, "improvement_pct": -796.8, "holds": True}
    assert verdicts.judged(c, _number("incast", "datacenter-regime")) == "796.8 % above droptail's"
    assert verdicts.judged(c, verdicts.number(EXPERIMENTS["incast"], c)) == "796.8 % above droptail's"
    # the paper regime: (0.40 - 0.2648) / 0.40 x 100 = 33.8 % below
    c = {"claim": "superpacket mean FCT at least 20 % below droptail", "droptail_mean_fct_s": 0.40,
         "superpacket_mean_fct_s": 0.2648, "improvement_pct": 33.8, "holds": True}
    assert verdicts.judged(c, _number("incast", "superpacket-fct-cut")) == "33.8 % below droptail's"
    # riops-web: against RED, the paper's cut beside ours
    c = {"claim": "RIO-PS short-flow response time below RED's", "red_s": 2.0, "riops_s": 1.5,
         "improvement_pct": 25.0, "paper_improvement_pct": 30.0, "holds": True}
    n = _number("riops-web", "short-response")
    assert verdicts.judged(c, n) == "25.0 % below RED's"
    assert verdicts.paper_side(c, n) == "30.0 % below RED's"
    # the medium flows' cut carries no RED key: the record says what it is against
    c = {"claim": "RIO-PS cuts the medium-flow response time by 20 % or more vs RED", "improvement_pct": 12.5,
         "paper_improvement_pct": [20.0, 40.0], "holds": False}
    n = _number("riops-web", "medium-response-cut")
    assert verdicts.judged(c, n) == "12.5 % below RED's"
    assert verdicts.paper_side(c, n) == "20 to 40 % below RED's"


def test_other_numbers_judged():
    assert verdicts.judged({"ratio": 3.374, "ratio_ci95": [2.061, 4.67]}, _number("jumbo", "jumbo-ratio")) == \
        "ratio 3.37, interval [2.06, 4.67]"
    assert verdicts.judged({"min_utilisation": 0.8123, "at": "q0.1"}, _number("dcr", "dcr-utilisation-floor")) == \
        "min utilisation 0.812 at q0.1"
    assert verdicts.judged({"max_change": 0.0312}, _number("dcr", "dcr-congestion-only")) == "largest change 3.1 %"
    assert verdicts.judged({"superpacket_round1_admitted": 6.0, "ideal_round1_admitted": 6.25},
                           _number("incast", "round1-admitted")) == \
        "superpacket 6.0, ideal 6.2 admitted in round 1"  # 6.25 -> "6.2": Python rounds half to even
    assert verdicts.judged({"ratio": 1.234}, _number("lion", "paced-vs-newreno")) == "ratio 1.23"


def test_only_the_declared_number_is_shown():
    """The report reads the keys the record names, whatever else a judgement carries: a
    claim that declares no number shows none, even with a "ratio" among its keys; a
    judgement of no known claim (an older summary without ids) shows none."""
    assert _number("threshold", "conservation") is None
    c = {"id": "conservation", "claim": "every run conserves packets", "ratio": 2.0, "holds": True}
    assert verdicts.judged(c, verdicts.number(EXPERIMENTS["threshold"], c)) == ""
    assert verdicts.number(EXPERIMENTS["threshold"], {"claim": "x", "ratio": 2.0}) is None
    assert verdicts.number(EXPERIMENTS["threshold"], {"id": "no-such-claim"}) is None
    assert verdicts.number(None, c) is None


@pytest.mark.parametrize("summary, quick, indicative, text", [
    # 10 seeds of 10, not quick: full scale
    ({"seeds": 10, "params": {"duration_s": {"value": 32.0, "source": "paper"}}}, False, False,
     "full scale: 10 seed(s) of the default 10; duration_s 32; took 61.5 s"),
    # 3 of 10 seeds: reduced, indicative
    ({"seeds": 3}, False, True, "reduced scale (verdicts indicative): 3 seed(s) of the default 10; took 61.5 s"),
    # --quick whatever the seeds
    ({"seeds": 10, "quick": True}, None, True,
     "quick scale (verdicts indicative): 10 seed(s) of the default 10; took 61.5 s"),
])
def test_scale(summary, quick, indicative, text):
    sc = verdicts.scale(summary, short_long.EXPERIMENT, quick=quick, wall_s=61.5)  # default 10 seeds
    assert sc["indicative"] is indicative
    assert verdicts.scale_text(sc) == text
    assert verdicts.verdict({"holds": False}, sc["indicative"]) == "fails" + (" (indicative)" if indicative else "")


def test_default_seeds():
    assert verdicts.default_seeds(EXPERIMENTS["dcr"]) == 2 and verdicts.default_seeds(EXPERIMENTS["jumbo"]) == 10
    assert verdicts.default_seeds(None) is None
    # each record's default is its run's default where run names one (seeds=None: the
    # experiment picks, 10 at full scale)
    for name, exp in EXPERIMENTS.items():
        d = inspect.signature(exp.run).parameters["seeds"].default
        assert exp.default_seeds == (10 if d is None else d), name


def test_the_papers_number_from_the_claims_text():
    assert verdicts.paper_side({"claim": "paper regime: ideal mean FCT at least 40 % below droptail (paper: 56 %)"}) \
        == "56 %"
    assert verdicts.paper_side({"claim": "x stays above 80 % (means over seeds; paper with DCR: 94.4-97.2 %)"}) \
        == "94.4-97.2 %"
    # "(paper, not a must-hold)" names no number
    assert verdicts.paper_side({"claim": "(paper, not a must-hold) RIO-PS total goodput >= RED's"}) == ""
