"""The search player at Flip Flop: the sampler against real deals (the seat's observation and the public history kept,
the real deal inside the constraint model), the same decision from the same view, legal play (docs/agents.md)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_agent
from agents.search import SearchAgent
from envs.flipflop.observation import SPEC
from envs.flipflop.sampler import FlipFlopSampler
from envs.registry import make_game
from envs.seatview import SeatView
from tests.search_helpers import random_shares, replay, same_view, seat_decisions
from training.evaluate import evaluate

GAME = make_game("flipflop", 4)
POLICY = make_agent("heuristic", GAME)
CARD_PLANES = ("hand", "flip_card", "shown", "pile", "pile_top", "pile_order", "in_run", "in_set", "taken_now",
               "spreads", "taken_by", "known")


def decisions(deck: np.ndarray, dealer: int, game=GAME, seat: int = 0):
    """Play a stacked deal with the heuristic at every seat; yield each decision of ``seat`` with a choice."""
    return seat_decisions(game, POLICY if game is GAME else make_agent("heuristic", game), deck, dealer, seat)


def seen_cards(view: SeatView) -> set[int]:
    """Every card that appeared in any card plane of any of the seat's observations."""
    hist = view.observations()
    seen: set[int] = set()
    for name in CARD_PLANES:
        lo, hi = SPEC.span(name)
        planes = hist[:, lo:hi].reshape(len(hist), -1, 52)
        seen |= set(np.flatnonzero(planes.any(axis=(0, 1))).tolist())
    return seen


def public_steps(lines: list[dict], steps: int) -> list[tuple]:
    lines = [line for line in lines if line["type"] == "step"][:steps]
    return [(line["seat"], line["name"], line["events"], line["rewards"]) for line in lines]


@pytest.mark.parametrize("seed", [0, 1])
def test_deals_equal_from_the_seat_give_the_same_decision(seed: int) -> None:
    deck, dealer = np.random.default_rng(seed).permutation(52), seed % 4
    checked = 0
    for point in decisions(deck, dealer):
        if checked >= 3:
            break
        unseen = sorted(set(range(52)) - seen_cards(point.view))
        rng = np.random.default_rng(seed)
        twin = None
        for _ in range(100):
            c1, c2 = rng.choice(unseen, 2, replace=False)
            other = deck.copy()
            i, j = int(np.flatnonzero(deck == c1)[0]), int(np.flatnonzero(deck == c2)[0])
            other[i], other[j] = c2, c1
            env = replay(GAME, other, dealer, point.actions)
            if env is not None and same_view(point.view, env.seat_view("player_0")) \
                    and not np.array_equal(env.state_.hands, point.state.hands):
                twin = env
                break
        if twin is None:
            continue
        a1, a2 = SearchAgent(GAME, playouts=40), SearchAgent(GAME, playouts=40)
        d1 = a1.act(point.obs, point.mask, np.random.default_rng(3), views=[point.view])
        d2 = a2.act(point.obs, point.mask, np.random.default_rng(3), views=[twin.seat_view("player_0")])
        assert d1.tolist() == d2.tolist() and a1.stats["searched"] == 1
        assert a1.stats["kept"] == a2.stats["kept"] and a1.stats["playouts"] == a2.stats["playouts"]
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("seed", [2, 3])
def test_every_sampled_deal_shows_the_seat_what_it_saw(seed: int) -> None:
    deck, dealer = np.random.default_rng(seed).permutation(52), seed % 4
    sampler = FlipFlopSampler(GAME, POLICY)
    differs = 0
    for point in decisions(deck, dealer):
        samples = sampler.sample([point.view], np.array([8]), np.array([seed]))
        assert samples.state is not None
        got = GAME.observe(samples.state, np.zeros(samples.state.batch_size, np.int64))
        assert (got == point.obs).all() and (samples.state.legal_action_mask == point.mask).all()
        assert (samples.state.hands[:, 0] == point.state.hands[0, 0]).all()
        differs += int((samples.state.hands[:, 1:] != point.state.hands[0, 1:]).any())
        real = public_steps(point.lines, len(point.actions))
        for deck_s, dealer_s, acts in zip(samples.decks[:3], samples.dealers[:3], samples.actions[:3], strict=False):
            again = replay(GAME, deck_s, int(dealer_s), acts)
            assert again is not None and same_view(point.view, again.seat_view("player_0"))
            assert public_steps(again.recorder.lines, len(acts)) == real
    assert differs > 0


@pytest.mark.parametrize("n", [2, 4, 6])
def test_the_real_deal_always_fits_the_constraint_model(n: int) -> None:
    game = make_game("flipflop", n)
    sampler = FlipFlopSampler(game, make_agent("heuristic", game))
    for seed in range(5):
        deck, dealer = np.random.default_rng(50 + seed).permutation(52), seed % n
        for seat in (0, 1):
            for point in decisions(deck, dealer, game=game, seat=seat):
                model = sampler.model(point.view)
                assert model.error is None
                slot = np.empty(52, np.int64)
                slot[deck] = model.slot_of_position
                known = model.fixed >= 0
                assert (model.fixed[known] == slot[known]).all()
                assert ((model.domain >> slot) & 1).all()
                _, ok, *_ = sampler._replay([point.view], deck[None], np.array([dealer]), np.zeros(1, np.int64),
                                            [np.random.default_rng(0)])
                assert ok[0]


def test_search_plays_flipflop_legally() -> None:
    result = evaluate(GAME, [make_agent("search:16", GAME)] + [make_agent("heuristic", GAME)] * 3, deals=8,
                      batch_size=8)
    assert result.decisions > 0
    sessions = make_game("flipflop", 3, num_deals=2)
    agent = make_agent("search:8", sessions)
    assert agent.why_not is not None  # sessions are not sampled: the heuristic plays
    evaluate(sessions, [agent] + [make_agent("heuristic", sessions)] * 2, deals=3, batch_size=3)


def test_the_compiled_rollout_plays_as_the_heuristic_step_by_step() -> None:
    state = GAME.init(np.arange(24, dtype=np.uint64))
    rng = np.random.default_rng(0)
    for _ in range(int(rng.integers(0, 12))):  # a few random moves first: the rollouts start mid-deal
        live = np.flatnonzero(~state.done)
        GAME.step(state, make_agent("random", GAME).act(None, state.legal_action_mask[live], rng), tables=live)
    compiled, stepped = state.copy(), state.copy()
    POLICY.rollout(compiled, np.arange(24))
    while not stepped.done.all():
        live = np.flatnonzero(~stepped.done)
        sub = stepped.take(live)
        GAME.step(stepped, POLICY.act(GAME.observe(sub, sub.current_player), sub.legal_action_mask, rng), tables=live)
    assert np.array_equal(compiled.bank, stepped.bank) and np.array_equal(compiled.hands, stepped.hands)
    assert compiled.done.all() and (compiled.turn_no == stepped.turn_no).all()


@pytest.mark.parametrize(("field", "random_like"), [("random", True), ("patient", False)])
def test_the_other_seats_models_follow_their_play(field: str, random_like: bool) -> None:
    from agents.search import RANDOM_PRIOR

    agent = make_agent("search:40", GAME)
    assert [t.name for t in agent.types[:-1]] == ["heuristic", "early", "patient", "dumper", "builder"]
    assert agent.types[-1] is None and agent.types[agent.own_style].name == "heuristic"
    shares = random_shares(GAME, agent, make_agent(field, GAME), 6)
    # one deal of a random player says little (it soon drops): the posterior leaves the prior, in the right direction
    assert shares and (np.mean(shares) > 1.5 * RANDOM_PRIOR if random_like else np.mean(shares) < RANDOM_PRIOR)


def test_the_switch_bar_rises_with_the_candidates() -> None:
    from statistics import NormalDist

    from agents.search import SWITCH_Z, switch_z

    bars = [switch_z(k) for k in range(2, 10)]
    assert bars[0] == pytest.approx(SWITCH_Z) and all(a < b for a, b in zip(bars, bars[1:], strict=False))
    tail = 1 - NormalDist().cdf(SWITCH_Z)  # the chance that one of k - 1 null candidates passes is one's chance
    for k, z in zip(range(2, 10), bars, strict=True):
        assert 1 - NormalDist().cdf(z) ** (k - 1) == pytest.approx(tail)
    assert SearchAgent(GAME, playouts=8).family_wise
    assert not SearchAgent(make_game("tripoli", 4), playouts=8).family_wise
