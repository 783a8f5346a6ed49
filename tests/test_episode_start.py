"""No episode is over at reset (C13, F7, T30): after ``init`` every table waits on a decision, at every table size,
for thousands of seeds, with the options that used to end deals while dealing (a Flip Flop 49 or 50, a Cosmo deal
played out by forced moves). Through the PettingZoo face, api_test passes on seeds that deal a 49 or 50, and the
forced moves of each step reach every agent's ``infos`` (C8)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from envs import flipflop_v1
from envs.flipflop.actions import SUIT_POINTS
from envs.registry import make_game

SEEDS = 3000
CASES = (
    [("tripoli", n, {}) for n in range(2, 10)]
    + [("tripoli", n, {"cosmo": True}) for n in range(2, 10)]
    + [("triolet", n, {}) for n in range(3, 9)]
    + [("flipflop", n, {}) for n in range(2, 8)]
    + [("flipflop", n, {"declare_49_50": "first_turn"}) for n in (2, 7)]
    + [("flipflop", n, {"until_one_left": True, "max_deals": 1}) for n in (2, 7)]
)


def hand_totals(hands: np.ndarray) -> np.ndarray:
    """F2: the point total of each ace-low mask (any shape), one table look-up per suit."""
    return sum(SUIT_POINTS[(hands >> np.uint64(13 * k)) & np.uint64(0x1FFF)] for k in range(4))


@pytest.mark.parametrize(("game_name", "n", "options"), CASES, ids=[f"{g}-{n}p-{o}" for g, n, o in CASES])
def test_c13_f7_t30_nobody_is_done_after_reset(game_name: str, n: int, options: dict) -> None:
    game = make_game(game_name, num_players=n, **options)
    s = game.init(0, batch_size=SEEDS)
    assert not s.terminated.any() and not s.truncated.any()
    assert (s.current_player >= 0).all() and s.legal_action_mask.any(axis=1).all()


def test_f7_seeds_dealing_49_or_50_wait_on_the_claim() -> None:
    """About 1% of Flip Flop deals hold a 49 or 50: those tables wait on the claimant's ``claim 49/50``."""
    game = make_game("flipflop", num_players=7)
    s = game.init(0, batch_size=SEEDS)
    dealt = ((hand_totals(s.hands) == 49) | (hand_totals(s.hands) == 50)).any(axis=1)
    claim = game.action_id("claim 49/50")
    assert dealt.sum() > 20
    assert (s.legal_action_mask[dealt].sum(axis=1) == 1).all() and s.legal_action_mask[dealt, claim].all()
    assert not s.legal_action_mask[~dealt, claim].any()


def test_f7_api_test_on_a_seed_dealing_49_or_50() -> None:
    game = make_game("flipflop", num_players=7)
    totals = hand_totals(game.init(0, batch_size=SEEDS).hands)
    seed = int(np.flatnonzero(((totals == 49) | (totals == 50)).any(axis=1))[0])
    env = flipflop_v1.env(num_players=7)
    env.reset(seed=seed)
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    api_test(flipflop_v1.env(num_players=7), num_cycles=50)


def test_c8_forced_moves_are_in_every_agents_infos() -> None:
    """The PettingZoo face reports each step's forced moves (C8) to every agent, as the core lists them."""
    from envs import tripoli_v1

    env = tripoli_v1.env(num_players=4, spare_hand="none", poker_select="best")
    env.reset(seed=3)
    seen = 0
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        core = env.unwrapped.game.forced_moves(env.unwrapped.state_, 0)
        assert info["forced_moves"] == [{"agent": f"player_{m.seat}", "action": m.action, "name": m.name}
                                        for m in core]
        assert all(env.infos[a]["forced_moves"] == info["forced_moves"] for a in env.agents)
        seen += len(core)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    assert seen > 0  # Michigan runs are forced moves
