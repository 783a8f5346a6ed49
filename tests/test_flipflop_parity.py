"""Core/reference parity for Flip Flop: the batched core and the slow reference (tests/reference/flipflop_ref.py)
play the same random games side by side — single deals and sessions, 2–7 players, seeded and stacked decks, small
F28 limits (``max_turns``, ``max_deals``) that cut deals and sessions off — and must agree at every step on the
player to act, the legal actions (by name), the rewards, termination and truncation (C13), the turn number, every
hand, every spread and its owner, the discard pile, the shown cards, the pots and the money. 2,400 games in all.
A quarter of the tables prefer taking the top discard, which makes long deals that reach ``max_turns``."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.game import sample_legal
from envs.flipflop import FlipFlopGame
from envs.flipflop import actions as T
from tests.reference.flipflop_ref import FlipFlopRef

# (players, options, games): 1,200 single deals, 480 fixed-length sessions, 240 sessions until one is left,
# 100 single deals asking for forced moves, 380 games with small F28 limits.
CASES = (
    [(n, {}, 200) for n in range(2, 8)]
    + [(n, {"num_deals": 3, "bankroll": 6}, 80) for n in range(2, 8)]
    + [(n, {"until_one_left": True, "bankroll": 3}, 40) for n in range(2, 8)]
    + [(n, {"auto_forced": False}, 50) for n in (3, 5)]
    + [(n, {"max_turns": t}, 60) for n, t in ((2, 1), (3, 2), (4, 7), (6, 12))]
    + [(n, {"num_deals": 6, "bankroll": 9, "max_turns": 25, "max_deals": 4}, 40) for n in (2, 5)]
    + [(n, {"until_one_left": True, "bankroll": 10, "max_turns": 30, "max_deals": 3, "auto_forced": False}, 30)
       for n in (3, 7)]
    + [(n, {"declare_49_50": "first_turn", "stake": 2.5}, 60) for n in (2, 4, 7)]
    + [(n, {"declare_49_50": "first_turn", "num_deals": 4, "bankroll": 8, "auto_forced": False}, 40) for n in (3, 5)]
)
TEN_POINT = [c for c in range(52) if c % 13 >= 8 and c % 13 != 12]  # 10, J, Q, K of every suit (F2)


def low_mask(cards) -> int:
    """Ace-low mask of reference cards."""
    return sum(1 << int(T.LOW_OF[c.id]) for c in cards)


def close(xs, ys) -> bool:
    """Amounts equal to 1e-9 (F3)."""
    return len(xs) == len(ys) and all(abs(x - y) < 1e-9 for x, y in zip(xs, ys, strict=True))


def assert_same(g: FlipFlopGame, s, b: int, ref: FlipFlopRef, names: list[str]) -> None:
    where = f"table {b} (seed {ref.seed})"
    assert (bool(s.terminated[b]), bool(s.truncated[b])) == (ref.terminated, ref.truncated), where
    assert close(s.rewards[b].tolist(), ref.rewards), (where, s.rewards[b], ref.rewards)
    assert close(s.bank[b].tolist(), ref.money), (where, s.bank[b], ref.money)
    assert close(s.pots[b].tolist(), [ref.pots["game"], ref.pots["flip"], ref.pots["flop"]]), where
    assert s.out[b].tolist() == ref.out, where
    assert int(s.shown[b]) == low_mask(ref.shown), where
    assert [(m.seat, m.name) for m in g.forced_moves(s, b)] == ref.forced_moves, where  # C8
    if ref.done:
        return
    assert int(s.current_player[b]) == ref.current, where
    assert int(s.turn_no[b]) == ref.turns, where
    assert sorted(names[a] for a in np.flatnonzero(s.legal_action_mask[b])) == ref.legal(), where
    assert [int(h) for h in s.hands[b]] == [low_mask(ref.hands[p]) for p in range(ref.n)], where
    owners = [0] * ref.n
    for sp in ref.spreads:
        owners[sp["owner"]] |= low_mask(sp["cards"])
    assert [int(m) for m in s.spreads[b]] == owners, where
    assert [int(c) for c in s.pile[b, : s.pile_len[b]]] == [int(T.LOW_OF[c.id]) for c in ref.discards], where



def test_f23_c7_core_matches_reference_with_a_stacked_deck_for_every_deal() -> None:
    """A stacked deck for each of the first three deals of a session (``init(decks=(B, 3, 52))``): core and reference
    deal the same cards at every deal and agree at every step."""
    n, games = 4, 40
    g = FlipFlopGame(n, num_deals=5, bankroll=12)
    names = g.action_names()
    rng = np.random.default_rng(23)
    seeds = rng.integers(0, 2**40, size=games).astype(np.uint64)
    decks = np.array([[rich_deck(rng) if k == 1 else rng.permutation(52) for k in range(3)] for _ in range(games)])
    s = g.init(seeds, decks=decks, dealers=np.zeros(games, np.int64))
    refs = [FlipFlopRef(n, int(seeds[b]), num_deals=5, bankroll=12, deck=decks[b].tolist(), dealer=0)
            for b in range(games)]
    while not s.done.all():
        actions = sample_legal(s.legal_action_mask, rng)
        was_done = s.done.copy()
        g.step(s, actions)
        for b in np.flatnonzero(~was_done):
            refs[b].step(names[actions[b]])
            assert_same(g, s, b, refs[b], names)
    assert max(ref.deals_done for ref in refs) >= 3


def rich_deck(rng: np.random.Generator) -> np.ndarray:
    """A deck whose first cards are mostly 10-point cards and 9s, so that dealt hands of 49 and 50 (F7, F8: one or
    several claimants, with ``first_turn`` some whose turn never comes) are frequent."""
    nines = [c for c in range(52) if c % 13 == 7]
    head = list(rng.permutation(TEN_POINT + nines)[:30])
    return np.array(head + list(rng.permutation(sorted(set(range(52)) - set(head)))))


@pytest.mark.parametrize(("n", "options", "games"), CASES, ids=[f"{n}p-{o}" for n, o, _ in CASES])
def test_c7_c13_f1_f28_core_matches_reference(n, options, games):
    g = FlipFlopGame(n, **options)
    names = g.action_names()
    rng = np.random.default_rng(1000 * n + games)
    seeds = rng.integers(0, 2**40, size=games).astype(np.uint64)
    # Half the tables start from a stacked deck and dealer (reset options), half from the seed alone.
    stacked = np.arange(games) % 2 == 0
    decks = np.array([rich_deck(rng) if b % 6 == 0 else rng.permutation(52) for b in range(games)])
    dealers = rng.integers(0, n, size=games)
    s = g.init(seeds, decks=decks, dealers=dealers)
    plain = g.init(seeds)
    s.put(np.flatnonzero(~stacked), plain.take(np.flatnonzero(~stacked)))
    refs = [
        FlipFlopRef(n, int(seeds[b]), deck=decks[b].tolist() if stacked[b] else None,
                    dealer=int(dealers[b]) if stacked[b] else None, **options)
        for b in range(games)
    ]
    for b, ref in enumerate(refs):
        assert_same(g, s, b, ref, names)
    drop_chance = rng.uniform(0.02, 0.3, size=games)
    takers = np.arange(games) % 4 == 1  # these tables draw the top discard whenever they may, and never drop
    drop_chance[takers] = 0.0
    while not s.done.all():
        mask = s.legal_action_mask.copy()
        mask[:, T.DROP] &= rng.random(games) < drop_chance
        take = takers & mask[:, T.DRAW_DISCARD : T.DISCARD].any(axis=1)
        mask[take, : T.DRAW_DISCARD] = False
        mask[~mask.any(axis=1)] = s.legal_action_mask[~mask.any(axis=1)]
        scores = rng.random(mask.shape)
        scores[~mask] = -1.0
        actions = scores.argmax(axis=1)
        was_done = s.done.copy()
        g.step(s, actions)
        assert not s.rewards[was_done].any()  # finished tables stay finished, with no reward
        for b in np.flatnonzero(~was_done):
            refs[b].step(names[actions[b]])
            assert_same(g, s, b, refs[b], names)
