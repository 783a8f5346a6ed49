"""training/game_stats.py: every move watched on the batched core — lengths, rules that fire, chips by stage — and the
step watch of training/evaluate.py it stands on."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_agent
from agents.tripoli_heuristic import hand_value
from envs.core.cards import parse_card
from envs.core.checks import ArgumentError
from envs.registry import make_game
from envs.triolet.core import TrioletGame
from training.evaluate import duplicate_seats, group_seeds, play_duplicate, play_tables
from training.game_stats import WATCHES, every_move, paired_stages, play_stats


def _counts(stats, name: str) -> np.ndarray:
    return stats.events[name] if name in stats.events else stats.kind_counts[:, stats.kinds.index(name)]


class Counter:
    """A step watch that counts what it is shown."""

    def __init__(self) -> None:
        self.began, self.moves, self.rewards = 0, 0, 0.0

    def begin(self, state, rows) -> None:
        self.began += len(rows)
        self.rewards += float(state.rewards.sum())

    def before(self, state, rows, actions) -> None:
        self.moves += int((~state.done).sum())

    def after(self, state, rows) -> None:
        self.rewards += float(state.rewards.sum())


@pytest.mark.parametrize("name", ["tripoli", "triolet", "flipflop"])
def test_a_step_watch_sees_every_table_and_every_decision(name: str) -> None:
    game = make_game(name, 4)
    agents = [make_agent("random", game) for _ in range(4)]
    watch = Counter()
    seeds = np.arange(24, dtype=np.uint64)
    returns, decisions = play_tables(game, agents, duplicate_seats(4, 6), seeds, np.random.default_rng(0),
                                     watch=watch)
    assert watch.began == 24 and watch.moves == decisions
    assert watch.rewards == pytest.approx(returns.sum())
    again, _ = play_tables(game, agents, duplicate_seats(4, 6), seeds, np.random.default_rng(0))
    np.testing.assert_array_equal(returns, again)  # watching changes nothing


def test_play_stats_plays_every_move_and_counts_what_an_evaluation_counts() -> None:
    game = make_game("tripoli", 4)
    play = every_move(game)
    assert play.config.auto_forced is False and every_move(play) is play
    stats = play_stats(game, ["heuristic", "random", "tight", "random"], deals=80, seed=3)
    assert stats.episodes == 80 and stats.groups == 20
    agents = [make_agent(s, play) for s in ("heuristic", "random", "tight", "random")]
    seeds = group_seeds(3, 20)
    returns, decisions = play_duplicate(play, agents, seeds, np.random.default_rng([3, 0]))
    np.testing.assert_allclose(stats.by_agent(stats.returns), returns.mean(axis=1))
    assert stats.moves.sum() == decisions and stats.kind_counts.sum() == decisions
    assert (stats.choices <= stats.moves).all() and stats.agent_kinds.sum() == stats.choices.sum()


@pytest.mark.parametrize("name", ["tripoli", "triolet", "flipflop"])
def test_stages_add_up_to_the_returns(name: str) -> None:
    game = make_game(name, 5)
    stats = play_stats(game, ["random", "heuristic"] * 2 + ["random"], deals=100, seed=1)
    np.testing.assert_allclose(sum(stats.stages.values()), stats.returns, atol=1e-9)
    means = stats.stage_means()
    assert set(means) == set(stats.stages) and all(m.shape == (5,) for m, _ in means.values())
    swing = stats.stage_swing()
    assert all(mean >= 0 for mean, _ in swing.values())
    assert stats.table().count("\n") > 4


@pytest.mark.parametrize("options", [{}, {"paycards": "play"}, {"pay_suit": "auction"}], ids=str)
def test_tripoli_stages_and_events_follow_the_rules(options: dict) -> None:
    n = 4
    stats = play_stats(make_game("tripoli", n, **options), ["random", "heuristic", "aggressive", "random"], deals=200,
                       seed=7)
    sums = {name: flow.sum(axis=1) for name, flow in stats.stages.items()}
    ev = {name: _counts(stats, name) for name in (*stats.events, *stats.kinds)}
    np.testing.assert_array_equal(stats.stages["ante"], -9)  # T4: a chip on each of the nine spaces
    assert (ev["went out"] + ev["blocked"] == 1).all()  # T22/T23: one ending a deal
    assert (ev["showdown"] + ev["uncontested pot"] == 1).all()  # T15/T16
    stops = ev["stopped by the ace"] + ev["stopped by a card out of play"] + ev["stopped by a card played earlier"]
    np.testing.assert_array_equal(ev["lead"], stops + ev["went out"])  # every run ends at a stop or with a player out
    assert ev["stopped by the ace"].sum() > 0 and ev["stopped by a card out of play"].sum() > 0
    # the pay spaces paid n chips each (the ante), the sequence shared with a remainder that stays (T10)
    rest = sums["pay cards"] - n * (ev["pay cards paid"] + ev["king-queen paid"])
    assert ((rest > 0) == (ev["8-9-10 paid"] > 0)).all() and (rest >= 0).all() and (rest <= n).all()
    assert ev["pay cards paid"].max() <= 5 and ev["pay cards paid"].sum() > 0
    # the pot: its n antes and the bets, less a split's remainder; the kitty: its n antes and the suit's price
    assert ((sums["betting"] <= n) & (sums["betting"] > 0)).all()
    out = ev["went out"] == 1  # the player out takes the kitty; a blocked deal's cards are paid onto it (T22/T23)
    np.testing.assert_allclose(sums["Michigan"][out], n - sums["auctions"][out])
    assert (sums["Michigan"][~out] < 0).all()
    if options.get("pay_suit") != "auction":
        np.testing.assert_array_equal(sums["auctions"], 0)  # the spare hand's price goes to the dealer
        assert (ev["auction sold"] <= ev["auction"]).all() and ev["auction sold"].sum() > 0
    else:
        assert (sums["auctions"] <= 0).all() and sums["auctions"].min() < 0


def test_flipflop_stages_and_endings() -> None:
    n, stake = 4, 2.5
    stats = play_stats(make_game("flipflop", n, stake=stake), ["heuristic", "random", "patient", "early"], deals=200,
                       seed=2)
    sums = {name: flow.sum(axis=1) for name, flow in stats.stages.items()}
    endings = sum(stats.events[e] for e in ("49/50", "went out", "tunked out", "dropped and won",
                                            "dropped and caught", "stock exhausted", "cut off"))
    np.testing.assert_array_equal(endings, 1)  # F22: exactly one ending
    np.testing.assert_allclose(stats.stages["ante"], -3 * stake)  # F4: a stake into each pot
    settled = stats.events["cut off"] == 0
    np.testing.assert_allclose(sums["flip pot"][settled], n * stake)  # F9: the dealer holds a flip-suit card
    carried = stats.events["flop pot carried"] > 0
    np.testing.assert_allclose(sums["flop pot"][settled & ~carried], n * stake)  # F10
    np.testing.assert_allclose(sums["game pot"][settled], n * stake)
    assert stats.events["dropped and won"].sum() > 0 and stats.events["dropped and caught"].sum() > 0


def _triolet_watch(hands: dict[int, str], names: list[str]):
    """A Le triolet table dealt with ``hands`` (seat → cards; dealer 1), every move a step, watched while ``names``
    are played."""
    game = TrioletGame(4, auto_forced=False)
    front = [None] * 36
    for seat, text in hands.items():
        for i, c in enumerate(text.split()):
            front[9 * seat + 6 + i] = parse_card(c)
    spare = iter(c for c in game.cards if int(c) not in {x for x in front if x is not None})
    deck = game.stacked_deck([c if c is not None else int(next(spare)) for c in front])
    state = game.init(0, decks=deck[None], dealers=np.array([1]))
    watch = WATCHES["triolet"](game, np.tile(np.arange(4), (1, 1)), 4)
    rows = np.array([0])
    watch.begin(state, rows)
    for name in names:
        action = np.array([game.action_id(name)])
        watch.before(state, rows, action)
        game.step(state, action)
        watch.after(state, rows)
    return watch


def test_triolet_burns_by_a_ten_and_by_four_of_a_kind() -> None:
    ten = _triolet_watch({0: "Ac 3c 3d", 3: "Tc Kd 2h"}, ["ready"] * 4 + ["play 1×A", "play 1×10"])  # L8
    assert ten.event["burned by a 10"][0] == 1 and ten.event["burned by four of a kind"][0] == 0
    four = _triolet_watch({0: "7c 3c 3d", 3: "7d Kc Kd", 2: "7h Qc Qd", 1: "7s Jc Jd"}, ["ready"] * 4
                          + ["play 1×7"] * 4)  # L9, over four plays
    assert four.event["burned by four of a kind"][0] == 1 and four.event["burned by a 10"][0] == 0
    assert four.moves[0] == 8 and four.kind_counts[0, four.kinds.index("play")] == 4


def test_recorded_decisions_are_the_agents_own() -> None:
    game = make_game("tripoli", 4)
    acts = game.actions

    def betting(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return mask[:, acts.fold] | mask[:, acts.check]

    stats = play_stats(game, ["heuristic", "tight", "aggressive", "random"], deals=120, seed=0,
                       record=(betting, lambda obs: hand_value(obs)[1]))
    for agent, (features, actions) in enumerate(stats.recorded):
        assert features.shape == (len(actions), 1) and ((features >= 0) & (features <= 1)).all()
        kinds = {game.action_name(int(a)).split()[0] for a in actions}
        assert kinds <= {"check", "call", "fold", "bet", "raise"}, kinds
        betting_choices = sum(stats.agent_kinds[agent, stats.kinds.index(k)]
                              for k in ("check", "call", "fold", "bet", "raise"))
        assert len(actions) >= betting_choices  # forced betting moves are recorded too
    features, actions = stats.recorded[0]
    strong = features[:, 0] > 0.9
    bets = np.isin(actions, np.arange(acts.bet, acts.lead))  # the heuristic bets and raises its strong hands
    assert bets[strong].mean() > bets[~strong].mean()


def test_paired_stages_split_an_advantage_by_stage() -> None:
    game = make_game("tripoli", 4)
    base = play_stats(game, ["heuristic"] * 4, deals=160, seed=5)
    same = play_stats(game, ["heuristic"] * 4, deals=160, seed=5)
    assert all(mean == 0 for mean, _ in paired_stages(same, base).values())
    tight = play_stats(game, ["tight"] + ["heuristic"] * 3, deals=160, seed=5)
    parts = paired_stages(tight, base)
    assert sum(mean for name, (mean, _) in parts.items() if name != "total") == pytest.approx(parts["total"][0])
    with pytest.raises(ArgumentError, match="same game, rules, seed and deals"):
        paired_stages(tight, play_stats(game, ["heuristic"] * 4, deals=160, seed=6))


@pytest.mark.parametrize(("game", "agents", "fragment"), [
    (make_game("tripoli", 4, num_deals=2), ["random"] * 4, "one-deal episodes"),
    (make_game("flipflop", 3, until_one_left=True), ["random"] * 3, "one-deal episodes"),
    (make_game("tripoli", 4), ["random"] * 3, "needs 4 agents"),
    ("tripoli", ["random"] * 4, "game must be a game core"),
])
def test_bad_arguments_are_refused(game, agents, fragment: str) -> None:
    with pytest.raises(ArgumentError, match=fragment):
        play_stats(game, agents, deals=8)
