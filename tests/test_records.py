"""Table records (envs/core/records.py): a compiled core's state fields are views of one record per table; what a
user writes through a field is what the kernels see, and a state whose fields were replaced, taken or copied is
bound to fresh records before a kernel runs, without changing a value."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from envs.core import records
from envs.core.game import sample_legal
from envs.registry import GAMES, game_class, make_game


def _played(name: str, tables: int = 16, moves: int = 6):
    game = make_game(name, 4)
    state, rng = game.init(3, batch_size=tables), np.random.default_rng(3)
    for _ in range(moves):
        game.step(state, sample_legal(state.legal_action_mask, rng), tables=~state.done)
    return game, state, rng


@pytest.mark.parametrize("name", list(GAMES))
def test_fields_are_views_of_one_record_per_table(name: str) -> None:
    game, state, _ = _played(name)
    rec, _, _ = game.kernel_args(state)
    assert rec.shape == (state.batch_size,) and rec.dtype.names
    for field in rec.dtype.names:
        view = getattr(state, field)
        assert np.shares_memory(view, rec) and view.shape[0] == state.batch_size
    assert state.terminated.dtype == np.bool_ and state.legal_action_mask.dtype == np.bool_


@pytest.mark.parametrize("name", list(GAMES))
def test_taken_copied_and_replaced_states_step_like_the_original(name: str) -> None:
    game, state, rng = _played(name)
    actions = sample_legal(state.legal_action_mask, rng)
    live = ~state.done
    expected = state.copy()
    game.step(state, actions, tables=live)
    sub = expected.take(np.arange(expected.batch_size))  # fields not bound to records yet
    replaced = expected.copy()
    replaced.current_player = replaced.current_player.copy()  # one field replaced by hand
    for other in (expected, sub, replaced):
        game.step(other, actions, tables=live)
        for field in ("legal_action_mask", "rewards", "current_player", "terminated", "truncated", "forced_count"):
            np.testing.assert_array_equal(getattr(other, field), getattr(state, field), err_msg=field)
        rec, _, _ = game.kernel_args(other)
        assert np.shares_memory(other.current_player, rec)  # bound to its records again


def test_writing_through_a_field_reaches_the_kernels() -> None:
    game = make_game("tripoli", 4)
    state = game.init(5, batch_size=2)
    state.terminated[1] = True  # a bool field: a uint8 record field viewed as bool
    state.current_player[1] = -1
    rec, _, _ = game.kernel_args(state)
    assert rec["terminated"].tolist() == [0, 1]
    game.step(state, sample_legal(state.legal_action_mask[:1], np.random.default_rng(0)), tables=np.array([0]))
    assert state.terminated[1] and state.current_player[1] == -1


def test_a_record_dtype_stores_booleans_as_bytes() -> None:
    rec, views = records.allocate(4, {"flag": (np.bool_, ()), "hands": (np.uint64, (3,))})
    assert rec.dtype["flag"] == np.uint8 and rec.dtype["hands"].shape == (3,)
    views["flag"][2] = True
    assert rec["flag"].tolist() == [0, 0, 1, 0] and views["flag"].dtype == np.bool_


@pytest.mark.parametrize("name", list(GAMES))
def test_a_field_replaced_after_a_step_reaches_the_kernels(name: str) -> None:
    """The kernel arguments kept on a state are dropped when a field is assigned: the next step reads the new one."""
    game, state, rng = _played(name)
    assert game.kernel_args(state) is game.kernel_args(state)  # kept between calls
    twin = state.copy()
    done = state.terminated.copy()
    done[0] = True  # table 0 finished, written into a new array
    state.terminated = done
    twin.terminated[0] = True  # the same, written through the field
    actions = sample_legal(state.legal_action_mask, rng)
    for s in (state, twin):
        game.step(s, actions)
    assert state.terminated[0] and np.shares_memory(state.terminated, game.kernel_args(state)[0])
    for field in ("legal_action_mask", "rewards", "current_player", "terminated", "forced_count"):
        np.testing.assert_array_equal(getattr(state, field), getattr(twin, field), err_msg=field)
    other = make_game(name, 4)  # another game object: its own arguments (its own rules)
    assert other.kernel_args(state)[1] is other._rules and game.kernel_args(state)[1] is game._rules


@pytest.mark.parametrize("name", list(GAMES))
def test_an_illegal_action_at_a_later_table_changes_no_table(name: str) -> None:
    """step checks every table's action before it plays any (one compiled pass, envs/core/play.py)."""
    game, state, rng = _played(name)
    live = np.flatnonzero(~state.done)
    actions = sample_legal(state.legal_action_mask, rng)
    last = live[-1]
    actions[last] = int(np.flatnonzero(~state.legal_action_mask[last])[0])
    before = state.copy()
    with pytest.raises(ValueError, match=f"at table {last}"):
        game.step(state, actions)
    for field in ("legal_action_mask", "rewards", "current_player", "terminated", "forced_count"):
        np.testing.assert_array_equal(getattr(state, field), getattr(before, field), err_msg=field)


VARIANTS = {
    "tripoli": [{"max_bid": 100, "bet_limit": 100},
                {"max_bid": 1, "bet_limit": 1, "max_raises": 0, "auto_forced": False}],
    "triolet": [{"faceup_sets": True, "auto_forced": False}, {"max_turns": 7}],
    "flipflop": [{"num_deals": 3, "bankroll": 6}, {"declare_49_50": "first_turn"}],
}
"""Rule options that change the action table, the deal or the episode, beside the defaults."""


@pytest.mark.parametrize("name", list(GAMES))
def test_every_table_size_and_rule_variant_shares_one_kernel_signature(name: str) -> None:
    """Seat fields are stored for the largest table and Tripoli's legal mask for its largest action table, so the
    kernels' arguments have one numba type whatever the table size and options: a game compiles once, not once per
    variant (a sweep over ``max_bid`` or table sizes would otherwise spend half a minute compiling each)."""
    assert set(VARIANTS) == set(GAMES)
    cls = game_class(name)
    signatures = set()
    for n in range(cls.min_players, cls.max_players + 1):
        for options in [{}, *VARIANTS[name]]:
            game = make_game(name, n, **options)
            state = game.init(3, batch_size=2)
            signatures.add(tuple(str(numba.typeof(arg)) for arg in game.kernel_args(state)))
            assert state.legal_action_mask.shape == (2, game.num_actions)  # the state shows the game's own actions
    assert len(signatures) == 1
