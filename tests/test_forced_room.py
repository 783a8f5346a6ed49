"""C8 with compiled kernels: a step that makes more forced moves than the report arrays hold stops, has the arrays
widened and goes on; the result is the same state, with every move reported, as with arrays wide enough."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.game import sample_legal
from envs.registry import make_game

CASES = [("tripoli", 3, {"cosmo": True, "num_deals": 6}), ("tripoli", 4, {}), ("triolet", 4, {}),
         ("triolet", 3, {"faceup_sets": True}), ("flipflop", 4, {})]


def _narrow(state, width: int) -> None:
    for name in ("forced_seat", "forced_action", "forced_card"):
        setattr(state, name, np.full((state.batch_size, width), -1, np.int64))


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_forced_moves_past_the_report_arrays_are_played_and_reported(name: str, n: int, options: dict) -> None:
    game = make_game(name, n, **options)
    wide, narrow = game.init(7, batch_size=64), game.init(7, batch_size=64)
    if name != "flipflop":  # a compiled core whose steps make at most forced_capacity moves is never narrowed
        narrow.forced_count[:] = 0
        _narrow(narrow, 1)
    rng, overflowed = np.random.default_rng(0), 0
    for _ in range(300):
        if wide.done.all():
            break
        actions = sample_legal(wide.legal_action_mask, rng)
        live = ~wide.done
        game.step(wide, actions, tables=live)
        game.step(narrow, actions, tables=live)
        overflowed += int((narrow.forced_count > 1).sum())
        for field in ("legal_action_mask", "rewards", "current_player", "terminated", "truncated", "forced_count"):
            np.testing.assert_array_equal(getattr(wide, field), getattr(narrow, field), err_msg=field)
        for t in range(64):
            assert game.forced_moves(wide, t) == game.forced_moves(narrow, t)
    if name != "flipflop":
        assert overflowed > 0  # the growth path ran
