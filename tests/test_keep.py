"""The rule that chooses the policy a run keeps (``--keep best``, :mod:`training.keep`), on learning curves written by
hand."""

from __future__ import annotations

import pytest

from training.keep import best_point, family_of, worst_family


def point(steps: int, advantage: float, ci95: float, fields: dict[str, float] | None = None) -> dict:
    """A learning-curve point: the heuristic field's advantage and interval, and each league field's advantage."""
    out = {"steps": steps, "advantage": advantage, "ci95": ci95}
    if fields:
        out["fields"] = {name: {"advantage": value, "ci95": 0.1} for name, value in fields.items()}
    return out


def test_family_of_groups_members_and_snapshots_and_leaves_named_bots_alone():
    assert family_of("careless-style:3") == "careless-style"
    assert family_of("style:0") == family_of("style:7") == "style"
    assert family_of("self@1500160") == family_of("self@0") == "self"
    assert family_of("heuristic") == "heuristic" and family_of("heldout:noisy") == "heldout:noisy"
    assert family_of("ppo:runs/x/model.zip") == "ppo:runs/x/model.zip"  # a spec with a colon is not a family
    assert family_of("module:pkg.mod:Bot") == "module:pkg.mod:Bot"


def test_the_worst_family_is_the_lowest_mean_over_its_members():
    p = {"steps": 1, "advantage": 0.2, "ci95": 0.1,
         "fields": {"heuristic": {"advantage": 0.2}, "style:0": {"advantage": -0.3}, "style:1": {"advantage": 0.5},
                    "careless-bot:0": {"advantage": -0.1}, "careless-bot:1": {"advantage": -0.05},
                    "self@100": {"advantage": 0.4}}}
    # style: (-0.3 + 0.5) / 2 = +0.1; careless-bot: (-0.1 - 0.05) / 2 = -0.075; heuristic +0.2; self +0.4
    assert worst_family(p) == pytest.approx(-0.075)
    assert worst_family({"steps": 1, "advantage": 0.35, "ci95": 0.1}) == 0.35  # no league: its heuristic field


def test_best_keeps_the_best_worst_family_of_the_second_half_among_policies_that_beat_the_heuristic():
    curve = [
        point(0, 0.0, 0.0, {"heuristic": 0.0, "random": 0.0}),
        point(100, 0.9, 0.3, {"heuristic": 0.9, "random": 0.8}),  # best worst family of all, but in the first half
        point(600, 0.0, 0.0, {"heuristic": 0.0, "random": 0.0}),  # still plays like the heuristic: ties are not kept
        point(700, 0.6, 0.3, {"heuristic": 0.6, "random": 0.3, "careless-bot:0": 0.1, "careless-bot:1": 0.2}),
        point(800, 0.2, 0.3, {"heuristic": 0.2, "random": 0.9}),  # best worst family, but does not beat the heuristic
        point(900, 0.8, 0.3, {"heuristic": 0.8, "random": 0.5, "careless-bot:0": -0.2, "careless-bot:1": 0.1}),
        point(1000, 0.7, 0.3, {"heuristic": 0.7, "random": 0.5, "careless-bot:0": 0.3, "careless-bot:1": -0.3}),
    ]
    # worst families: 700 careless-bot +0.15, 900 careless-bot -0.05, 1000 careless-bot 0.0
    assert curve[best_point(curve, start=0)]["steps"] == 700
    # the PPO phase started at 600: its second half starts at 800, so 700 is no longer a candidate
    assert curve[best_point(curve, start=600)]["steps"] == 1000


def test_a_tie_goes_to_the_later_evaluation_and_no_candidate_keeps_the_last():
    curve = [point(0, 0.0, 0.0), point(600, 0.5, 0.2), point(800, 0.5, 0.2), point(1000, 0.1, 0.2)]
    assert best_point(curve, start=0) == 2
    # a run stopped by its step count evaluates twice at its last count (before and after its last update)
    twice = [point(0, 0.0, 0.0), point(1000, 0.5, 0.2), point(1000, 0.5, 0.2)]
    assert best_point(twice, start=0) == 2
    none_beat = [point(0, 0.0, 0.0), point(600, 0.1, 0.2), point(1000, -0.4, 0.2)]
    assert best_point(none_beat, start=0) == 2
