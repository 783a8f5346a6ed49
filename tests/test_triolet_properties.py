"""Property tests of the Le triolet core (hypothesis): every card is in exactly one place at every step, rewards
are zero-sum, nothing hidden leaks into an observation (L17, C12) and seeded games are the same at batch size 1 and
inside a batch of 1,024 (C7)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.core.cards import CARD_BITS, DECK_SIZE
from envs.core.game import sample_legal
from envs.triolet import multiset as ms
from envs.triolet.actions import deck_cards
from envs.triolet.core import TrioletGame
from tests.seeded import seeded_legal_actions

SETTINGS = settings(max_examples=8, suppress_health_check=[HealthCheck.too_slow])
IDS = np.arange(DECK_SIZE)


def _counts(cards: np.ndarray) -> np.ndarray:
    """(B, k) card identities (-1 = none) → (B, 52) copies of each."""
    return ((cards[..., None] == IDS) & (cards[..., None] >= 0)).sum(axis=-2)


def card_places(s) -> dict[str, np.ndarray]:
    """(B, 52) copies of each card in every place: hands, face-up, face-down, stock, pile, burned."""
    in_stock = np.arange(s.deck.shape[1]) >= s.stock_pos[:, None]
    return {
        "hand": s.hand.sum(axis=1),
        "faceup": _counts(s.faceup.reshape(s.batch_size, -1)),
        "facedown": _counts(s.facedown.reshape(s.batch_size, -1)),
        "stock": _counts(np.where(in_stock, s.deck, -1)),
        "pile": s.pile,
        "burned": s.burned,
    }


@SETTINGS
@given(n=st.integers(3, 8), sets=st.booleans(), seed=st.integers(0, 2**32))
def test_l1_cards_conserved_and_rewards_zero_sum_every_step(n, sets, seed):
    game = TrioletGame(n, faceup_sets=sets, max_turns=300)
    s = game.init(seed, batch_size=32)
    rng = np.random.default_rng(seed)
    deck = np.bincount(deck_cards(n) % 52, minlength=52)  # copies of each card identity (0, 1 or 2)
    returns = np.zeros((32, n))
    while not s.done.all():
        game.step(s, sample_legal(s.legal_action_mask, rng))
        returns += s.rewards
        assert (sum(card_places(s).values()) == deck).all()
        assert (s.known <= s.hand).all() and (s.hand >= 0).all()  # what is known of a hand is in it (L17)
        assert np.allclose(s.rewards.sum(axis=1), 0.0)
    won = s.terminated
    assert np.allclose(returns[won].max(axis=1), 1.0) and (returns[s.truncated] == 0).all()  # L16


def _hidden_places(s, t: int, viewer: int) -> list[tuple[str, int, int]]:
    """(kind, seat, index) of every card at table t hidden from ``viewer``: face-down cards (the viewer's own
    included), the stock, and the not publicly known cards of other hands."""
    n = s.hand.shape[1]
    out = [("facedown", seat, j) for seat in range(n) for j in range(3) if s.facedown[t, seat, j] >= 0]
    out += [("stock", -1, p) for p in range(int(s.stock_pos[t]), s.deck.shape[1])]
    for seat in range(n):
        if seat != viewer:
            free = s.hand[t, seat] - s.known[t, seat]
            out += [("hand", seat, c) for c in range(DECK_SIZE) for _ in range(int(free[c]))]
    return out


def _card_at(s, t, place) -> int:
    kind, seat, i = place
    return {"facedown": lambda: s.facedown[t, seat, i], "stock": lambda: s.deck[t, i], "hand": lambda: i}[kind]()


def _swap(s, t, a, b) -> None:
    """Exchange the cards at places ``a`` and ``b`` of table ``t``. Hand copies are all taken out before any is put
    back, so a swap between two cards of one hand never holds three copies of a card (the two-deck multiset holds
    at most two)."""
    ca, cb = int(_card_at(s, t, a)), int(_card_at(s, t, b))
    for (kind, seat, i), card in ((a, cb), (b, ca)):
        if kind == "facedown":
            s.facedown[t, seat, i] = card
        elif kind == "stock":
            s.deck[t, i] = card
    hands = [(place, new) for place, new in ((a, cb), (b, ca)) if place[0] == "hand"]
    for (_, seat, i), _new in hands:  # one copy of card i leaves that hand ...
        s.hand1[t, seat], s.hand2[t, seat] = ms.sub(s.hand1[t, seat], s.hand2[t, seat], CARD_BITS[i], np.uint64(0))
    for (_, seat, _i), new in hands:  # ... and the card it is swapped with takes its place
        s.hand1[t, seat], s.hand2[t, seat] = ms.add(s.hand1[t, seat], s.hand2[t, seat], CARD_BITS[new], np.uint64(0))


@SETTINGS
@given(n=st.integers(3, 8), seed=st.integers(0, 2**32), steps=st.integers(0, 120))
def test_l17_c12_swapping_hidden_cards_leaves_observations_unchanged(n, seed, steps):
    game = TrioletGame(n, faceup_sets=bool(seed % 2))
    s = game.init(seed, batch_size=16)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if s.done.all():
            break
        game.step(s, sample_legal(s.legal_action_mask, rng))
    checked = 0
    for t in range(16):
        for viewer in range(n):
            hidden = _hidden_places(s, t, viewer)
            if len(hidden) < 2:
                continue
            a, b = (hidden[i] for i in rng.choice(len(hidden), 2, replace=False))
            ca, cb = int(_card_at(s, t, a)), int(_card_at(s, t, b))
            if ca == cb:
                continue
            other = s.copy()
            _swap(other, t, a, b)
            seats = np.full(16, viewer)
            assert (game.observe(s, seats)[t] == game.observe(other, seats)[t]).all(), (a, b)
            checked += 1
    assert checked > 0


def _play(game, s, steps: int) -> list[np.ndarray]:
    trace = []
    for step in range(steps):
        trace.append(np.stack([s.current_player, s.turns, s.stock_pos, s.top, s.pile1.view(np.int64)]))
        game.step(s, seeded_legal_actions(s.legal_action_mask, s.seeds, step))
    trace.append(s.rewards.sum(axis=1, keepdims=True).T)
    return trace


def test_c7_same_seed_same_game_at_batch_1_and_1024():
    game = TrioletGame(5, faceup_sets=True)
    big = game.init(77, batch_size=1024)
    big_trace = _play(game, big, 100)
    for t in (0, 1, 500, 1023):
        one = game.init(77 + t, batch_size=1)
        one_trace = _play(game, one, 100)
        for a, b in zip(big_trace, one_trace, strict=True):
            assert (a[:, t] == b[:, 0]).all()
        for f in ("hand1", "hand2", "faceup", "facedown", "pile1", "burned1", "known1", "legal_action_mask", "dealer"):
            assert (getattr(big, f)[t] == getattr(one, f)[0]).all(), f
    assert len(set(big.dealer.tolist())) == 5  # C5: the dealer is drawn from each table's seed
