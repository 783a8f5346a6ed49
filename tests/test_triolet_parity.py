"""Core/reference parity for Le triolet: random games over 3–8 players and both ``faceup_sets`` settings, the core
run batched, the plain reference (tests/reference/triolet_ref.py) one table at a time; at every step both must agree
on the player to act, the legal actions, the rewards and the end of the episode."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.game import sample_legal
from envs.triolet.core import TrioletGame
from tests.reference.triolet_ref import TrioletRef

CASES = [(n, sets, shown) for n in range(3, 9) for sets, shown in ((False, False), (True, True), (True, False))]
GAMES_PER_CASE = 120  # 18 cases → 2,160 games


@pytest.mark.parametrize(("num_players", "faceup_sets", "shown"), CASES)
def test_c12_l13_l17_core_matches_reference(num_players: int, faceup_sets: bool, shown: bool) -> None:
    """Every step: the player to act, the legal actions, the end, the rewards, and what every seat knows of every
    hand (L13 with and without ``show_failed_facedown``, L17)."""
    rng = np.random.default_rng(1000 * num_players + 10 * faceup_sets + shown)
    max_turns = int(rng.integers(40 * num_players, 500))  # quick, yet long enough for many endings
    game = TrioletGame(num_players, faceup_sets=faceup_sets, max_turns=max_turns, show_failed_facedown=shown)
    b = GAMES_PER_CASE
    decks = np.stack([rng.permutation(game.deck_ids()) for _ in range(b)])
    dealers = rng.integers(0, num_players, b)
    state = game.init(np.arange(b), decks=decks, dealers=dealers)
    refs = [TrioletRef(num_players, decks[t].tolist(), int(dealers[t]), faceup_sets, max_turns, shown)
            for t in range(b)]
    ended = 0
    while True:
        for t, ref in enumerate(refs):
            assert state.current_player[t] == ref.current_player, t
            assert set(np.flatnonzero(state.legal_action_mask[t]).tolist()) == ref.legal(), t
            assert state.terminated[t] == ref.terminated and state.truncated[t] == ref.truncated, t
            assert [(m.seat, m.action) for m in game.forced_moves(state, t)] == ref.forced, t  # C8
            known = state.known[t]
            assert all(known[p].tolist() == [ref.known[p][c] for c in range(52)] for p in range(num_players)), t
        if state.done.all():
            break
        actions = sample_legal(state.legal_action_mask, rng)
        game.step(state, actions)
        for t, ref in enumerate(refs):
            if ref.terminated or ref.truncated:
                assert not state.rewards[t].any()
                ref.forced = []
                continue
            expected = ref.step(int(actions[t]))
            assert all(abs(x - y) < 1e-12 for x, y in zip(state.rewards[t].tolist(), expected, strict=True)), t
            ended += ref.terminated
    assert ended > 0  # some games were won, not only cut off
