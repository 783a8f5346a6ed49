"""Who takes the seats of a training table (training/seats.py): the ``opponents`` list's learner, snapshots and fixed
agents, their shares, and the lists refused in one line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from training.config import RecipeError, TrainConfig, load_recipe
from training.seats import Seats, SeatsError, parse_seats


def test_the_weights_give_the_learner_the_snapshots_and_the_fixed_agents_their_shares():
    seats = parse_seats("learner=25, snapshots=5, zoo=8, styles:8=4, careless-styles:8=4, careless-bots:5=4")
    assert seats == Seats((("zoo", 8.0), ("styles:8", 4.0), ("careless-styles:8", 4.0), ("careless-bots:5", 4.0)),
                          learner=25.0, snapshots=5.0)
    # 50 in all: the learner 25 of 50 seats; the pool's 25 seats, 5 of them the snapshots' (a fifth)
    assert (seats.total, seats.opponent_share, seats.selfplay_share) == (50.0, 0.5, 0.2)
    one = parse_seats("heuristic, random=3")  # no learner: one learner seat per table, the pool at every other
    assert (one.learner, one.opponent_share, one.selfplay_share) == (0.0, 1.0, 0.0)
    assert parse_seats("learner=1,random=3").opponent_share == 0.75
    for selfplay in ("", "learner", "learner=2"):  # pure self-play: every seat the learner's
        assert (parse_seats(selfplay).opponent_share, parse_seats(selfplay).fixed) == (0.0, ())
    past = parse_seats("learner=3,snapshots=1")  # self-play against the learner's past selves: a quarter of the seats
    assert (past.opponent_share, past.selfplay_share, past.fixed) == (0.25, 1.0, ())


@given(st.floats(0, 100), st.floats(0, 100), st.lists(st.floats(0.01, 100), min_size=1, max_size=5))
def test_the_shares_add_up(learner, snapshots, fixed):
    spec = ",".join([f"learner={learner!r}", f"snapshots={snapshots!r}"] + [f"a{k}={w!r}" for k, w in enumerate(fixed)])
    seats = parse_seats(spec)
    total = learner + snapshots + sum(fixed)
    assert seats.opponent_share == pytest.approx(1 - learner / total)
    assert seats.opponent_share * seats.selfplay_share == pytest.approx(snapshots / total)
    assert 0 <= seats.selfplay_share < 1 and [w for _, w in seats.fixed] == fixed  # fixed weights above 0


@pytest.mark.parametrize(("spec", "message"), [
    ("learner=0", "need at least one positive weight"),
    ("learner=-1,zoo", "'learner=-1': the weight must be a finite non-negative number"),
    ("snapshots=nan,zoo", "'snapshots=nan': the weight must be a finite non-negative number"),
    ("zoo=x", "'zoo=x': the weight after '=' must be a number"),
    ("learner,zoo,learner=2", "'learner' is given twice"),
    ("zoo,,tight", "an empty name"),
    ("=3,zoo", "an empty name"),
])
def test_a_bad_list_is_refused_in_one_line(spec, message):
    with pytest.raises(SeatsError) as e:
        parse_seats(spec)
    assert message in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(RecipeError, match="opponent"):  # and by the config, before anything runs
        TrainConfig(opponents=spec)


@pytest.mark.parametrize("recipe", ["tripoli", "tripoli-strong", "triolet", "flipflop", "flipflop-strong"])
def test_every_recipe_gives_half_the_seats_to_the_learner_and_a_fifth_of_the_rest_to_its_snapshots(recipe):
    """The recipes' mix as docs/training.md gives it (the trainer's default is the Tripoli recipe's)."""
    seats = load_recipe(f"recipes/{recipe}.toml").seats
    assert (seats.opponent_share, seats.selfplay_share) == (0.5, 0.2)
    assert TrainConfig().opponents == load_recipe("recipes/tripoli.toml").opponents
