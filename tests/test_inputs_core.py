"""Bad input to the batched cores (envs/core/game.py, every game): ``init``, ``step(tables=...)``, ``observe``,
``action_name``, ``render_table`` and the rule options. Each refusal is one line naming the argument and leaves the
state bit-identical; the accepted forms (boolean masks, numpy integers, 64-bit seeds) do what they say."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from envs.core.checks import ArgumentError
from envs.core.config import ConfigError
from envs.core.game import BatchedGame, IllegalActionError, sample_legal
from envs.registry import make_game
from tests.input_helpers import GAMES, bad_arrays, not_integers, out_of_range, refused, same_arrays

B = 6
"""Tables in the batch of most tests."""
N = 3
"""Players: a table size every game allows."""
SETTINGS = settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _game(name: str) -> BatchedGame:
    return make_game(name, num_players=N)


def _state_with_finished_tables(game: BatchedGame, seed: int):
    """A batch of 16 tables: the first 8 as dealt, the last 8 played to the end by random legal play."""
    state = game.init(seed, batch_size=16)
    rng = np.random.default_rng(seed)
    while not state.done[8:].all():
        tables = 8 + np.flatnonzero(~state.done[8:])
        game.step(state, sample_legal(state.legal_action_mask[tables], rng), tables=tables)
    return state


# ----- step(tables=...) ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(seed=st.integers(0, 2**64 - 1), data=st.data())
def test_a_mask_steps_exactly_the_selected_tables(name: str, seed: int, data) -> None:
    game = _game(name)
    before = game.init(seed, batch_size=B)
    mask = np.asarray(data.draw(st.lists(st.booleans(), min_size=B, max_size=B)))
    actions = sample_legal(before.legal_action_mask, np.random.default_rng(seed % 2**32))
    full_width = data.draw(st.booleans())  # one action per table of the batch, or one per selected table
    after = before.copy()
    game.step(after, actions if full_width else actions[mask], tables=mask)
    for t in range(B):
        alone = before.take([t])
        if mask[t] and not alone.done[0]:
            game.step(alone, actions[t])
        elif mask[t]:
            alone.rewards[:] = 0.0  # a finished table is not played; its step rewards are zero
        assert same_arrays(after.take([t]), alone), t


@pytest.mark.parametrize("name", GAMES)
def test_not_done_mask_steps_exactly_the_unfinished_tables(name: str) -> None:
    game = _game(name)
    state = _state_with_finished_tables(game, seed=7)
    live = ~state.done
    assert live.any() and (~live).any()
    before = state.copy()
    actions = sample_legal(state.legal_action_mask, np.random.default_rng(1))
    game.step(state, actions[live], tables=~state.done)
    expected = before.copy()
    game.step(expected, actions[live], tables=np.flatnonzero(live))
    assert same_arrays(state, expected)
    for t in np.flatnonzero(~live):  # the finished tables did not move
        assert same_arrays(state.take([t]), before.take([t]))
    # read as indices, this mask would have been "tables 1, 0, 0, ...": the bug of issue 11, item 2
    assert not same_arrays(state.take(np.flatnonzero(live)), before.take(np.flatnonzero(live)))


def _bad_tables() -> st.SearchStrategy:
    return st.one_of(
        st.lists(st.floats(0, B - 1), min_size=1, max_size=B),  # floats, even whole ones
        st.lists(st.integers(-(2**63), -1), min_size=1, max_size=3),  # negative indices
        st.lists(st.integers(B, 2**63 - 1), min_size=1, max_size=3),  # past the batch
        st.integers(0, B - 1).map(lambda t: [t, t]),  # a table twice
        st.lists(st.booleans(), min_size=1, max_size=B - 1),  # a mask of the wrong length
        st.lists(st.booleans(), min_size=B + 1, max_size=2 * B),
        st.integers(0, B - 1),  # a bare int: not 1-D
        st.just(np.zeros((2, 2), dtype=np.int64)),
        st.just(np.ones((B, 1), dtype=bool)),
        st.text(min_size=1, max_size=3),
        st.just([2**64]),
        hnp.arrays(np.float32, B, elements=st.floats(0, 1, width=32)),
    )


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(tables=_bad_tables())
def test_bad_tables_refused_state_unchanged(name: str, tables) -> None:
    game = _game(name)
    state = game.init(3, batch_size=B)
    before = state.copy()
    refused(lambda: game.step(state, 0, tables=tables), ArgumentError, "tables must be", "boolean mask")
    assert same_arrays(state, before)


def _bad_actions() -> st.SearchStrategy:
    return st.one_of(
        not_integers(),
        bad_arrays(B),
        st.lists(st.integers(0, 3), min_size=B + 1, max_size=B + 3),
        st.just([2**64 + 1] * B),
    )


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(actions=_bad_actions())
def test_malformed_actions_refused_state_unchanged(name: str, actions) -> None:
    game = _game(name)
    state = game.init(5, batch_size=B)
    before = state.copy()
    refused(lambda: game.step(state, actions), ArgumentError, "actions must be")
    assert same_arrays(state, before)


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(action=out_of_range(0, 10_000).filter(lambda a: -(2**63) <= a < 2**64))
def test_action_ids_outside_the_space_are_illegal_state_unchanged(name: str, action: int) -> None:
    game = _game(name)
    state = game.init(5, batch_size=B)
    before = state.copy()
    assert action < 0 or action >= game.num_actions
    refused(lambda: game.step(state, np.full(B, action, dtype=np.uint64 if action >= 2**63 else np.int64)),
            IllegalActionError, f"action {action} is not legal", "legal actions: ")
    assert same_arrays(state, before)


# ----- observe -------------------------------------------------------------------------------------------------------
def _bad_seats() -> st.SearchStrategy:
    return st.one_of(not_integers(), out_of_range(0, N - 1), bad_arrays(B), st.just(np.ones(B, dtype=bool)),
                     st.lists(st.integers(0, N - 1), min_size=B + 1, max_size=B + 2),
                     st.lists(out_of_range(0, N - 1), min_size=B, max_size=B))


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(seats=_bad_seats())
def test_bad_seats_refused(name: str, seats) -> None:
    game = _game(name)
    state = game.init(11, batch_size=B)
    before = state.copy()
    refused(lambda: game.observe(state, seats), ArgumentError, "seats must be", f"0..{N - 1}")
    assert same_arrays(state, before)


@pytest.mark.parametrize("name", GAMES)
def test_seats_as_any_integer_type(name: str) -> None:
    game = _game(name)
    state = game.init(11, batch_size=B)
    seats = np.arange(B) % N
    expected = game.observe(state, seats)
    for form in (seats.tolist(), seats.astype(np.uint8), seats.astype(np.int32), tuple(seats.tolist())):
        np.testing.assert_array_equal(game.observe(state, form), expected)
    for one in (2, np.int64(2), np.uint16(2), np.asarray(2)):
        np.testing.assert_array_equal(game.observe(state, one), game.observe(state, np.full(B, 2)))
    rows = [game.observe(state.take([t]), int(seats[t]))[0] for t in range(B)]
    np.testing.assert_array_equal(np.stack(rows), expected)  # seat seats[t] at table t, not some other seat


# ----- init ----------------------------------------------------------------------------------------------------------
def _bad_seeds() -> st.SearchStrategy:
    return st.one_of(
        st.floats(allow_nan=True),
        st.text(max_size=4),
        st.booleans(),
        st.integers(max_value=-1),
        st.integers(min_value=2**64),
        hnp.arrays(np.float64, B, elements=st.floats(-1e19, -1)),  # wrapped to 2**64-1 once
        hnp.arrays(np.int64, B, elements=st.integers(-(2**63), -1)),
        st.lists(st.integers(0, 9), min_size=B + 1, max_size=B + 1),  # the wrong number of seeds
        st.just([]),
        st.just(np.zeros((B, 1), dtype=np.uint64)),
    )


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(seeds=_bad_seeds())
def test_bad_seeds_refused(name: str, seeds) -> None:
    game = _game(name)
    refused(lambda: game.init(seeds, batch_size=B), ArgumentError, "seeds must be", "2**64-1")


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(batch_size=st.one_of(st.integers(max_value=0), st.floats(), st.text(max_size=3), st.booleans()))
def test_bad_batch_size_refused(name: str, batch_size) -> None:
    refused(lambda: _game(name).init(1, batch_size=batch_size), ArgumentError, "batch_size must be a positive integer")
    seeds = np.ones(1, np.uint64)  # the array of seeds that takes the fast path when the batch size is good
    refused(lambda: _game(name).init(seeds, batch_size=batch_size), ArgumentError, "batch_size must be")


@pytest.mark.parametrize("name", GAMES)
def test_unsorted_and_repeated_table_indices_take_the_full_check(name: str) -> None:
    game = _game(name)
    state = game.init(1, batch_size=B)
    a = game.init(1, batch_size=B)
    game.redeal(state, np.array([4, 1], np.int64), np.array([7, 8], np.uint64))  # unsorted: still accepted
    game.redeal(a, np.array([1, 4], np.int64), np.array([8, 7], np.uint64))
    assert same_arrays(state, a)
    refused(lambda: game.redeal(state, np.array([2, 2], np.int64), 1), ArgumentError, "table 2 more than once")
    refused(lambda: game.redeal(state, np.array([1, B], np.int64), 1), ArgumentError, f"got table {B}")


@pytest.mark.parametrize("name", GAMES)
def test_all_64_bits_of_a_seed_are_kept(name: str) -> None:
    game = _game(name)
    top = 2**64 - 1
    state = game.init([top, 1, np.uint64(top - 1)])
    assert state.seeds.tolist() == [top, 1, top - 1]  # a list of Python ints is not rounded through float64
    assert game.init(top, batch_size=2).seeds.tolist() == [top, 0]  # s, s+1 wraps round
    single = game.init(np.uint64(top - 1))
    assert same_arrays(single, state.take([2]))


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(dealers=st.one_of(not_integers(), out_of_range(0, N - 1), bad_arrays(B)))
def test_bad_dealers_refused(name: str, dealers) -> None:
    refused(lambda: _game(name).init(1, batch_size=B, dealers=dealers), ArgumentError, "dealers must be")


@pytest.mark.parametrize("name", GAMES)
def test_dealers_as_numpy_integers(name: str) -> None:
    game = _game(name)
    assert (game.init(1, batch_size=B, dealers=np.int64(2)).dealer == 2).all()
    a = game.init(1, batch_size=B, dealers=np.full(B, 1, dtype=np.uint8))
    b = game.init(1, batch_size=B, dealers=1)
    assert same_arrays(a, b)


@pytest.mark.parametrize("name", GAMES)
def test_bad_decks_refused(name: str) -> None:
    game = _game(name)
    size = game.deck_size_for()
    deck = game.deck_ids()  # the card ids of the table's deck (Le triolet's stripped deck)
    for decks, word in [
        (deck.astype(np.float64), "decks must be"),  # floats, even of whole card ids
        (deck[:-1], "shape"),
        (np.stack([deck, deck]), "shape"),  # two decks for one table
        (np.concatenate([deck[:-1], deck[:1]]), "exactly once"),
        (deck.astype(str), "decks must be"),
        (deck.tolist() + [int(deck[0])], "shape"),
        ("deck", "decks must be"),
    ]:
        refused(lambda decks=decks: game.init(1, decks=decks), ArgumentError, word)
    game.init(1, decks=deck.astype(np.uint8 if size < 256 else np.int16))  # any integer dtype is a deck


# ----- action_name and render_table --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(action=st.one_of(not_integers(), out_of_range(0, 10_000), st.integers(-5, -1)))
def test_action_name_refuses_ids_outside_the_space(name: str, action) -> None:
    game = _game(name)
    refused(lambda: game.action_name(action), ArgumentError, "action must be", f"0..{game.num_actions - 1}")


@pytest.mark.parametrize("name", GAMES)
def test_action_name_takes_numpy_integers(name: str) -> None:
    game = _game(name)
    last = game.num_actions - 1
    assert game.action_name(np.int64(last)) == game.action_name(last) == game.action_names()[-1]
    refused(lambda: game.action_name(last + 1), ArgumentError, "action must be")


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(viewer=st.one_of(not_integers(), out_of_range(0, N - 1)), table=st.integers(0, B - 1))
def test_render_table_refuses_a_viewer_that_is_no_seat(name: str, viewer, table: int) -> None:
    game = _game(name)
    state = game.init(2, batch_size=B)
    before = state.copy()
    refused(lambda: game.render_table(state, table, viewer), ArgumentError, "viewer must be None", f"0..{N - 1}")
    assert same_arrays(state, before)


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(table=st.one_of(not_integers(), out_of_range(0, B - 1)))
def test_render_table_refuses_a_table_outside_the_batch(name: str, table) -> None:
    game = _game(name)
    state = game.init(2, batch_size=B)
    refused(lambda: game.render_table(state, table, None), ArgumentError, "table must be", f"0 to {B - 1}")


@pytest.mark.parametrize("name", GAMES)
def test_render_table_accepts_numpy_integers(name: str) -> None:
    game = _game(name)
    state = game.init(2, batch_size=B)
    assert game.render_table(state, np.int64(3), np.uint8(1)) == game.render_table(state, 3, 1)
    assert game.render_table(state, 3, 0, unicode=False) != game.render_table(state, 3, 0)
    refused(lambda: game.render_table(state, 3, None, unicode="no"), ArgumentError, "unicode must be")


# ----- rule options --------------------------------------------------------------------------------------------------
def _int_option(name: str) -> dataclasses.Field:
    game = _game(name)
    return next(f for f in dataclasses.fields(game.config) if isinstance(f.default, int)
                and not isinstance(f.default, bool))


@pytest.mark.parametrize("name", GAMES)
def test_numpy_scalars_are_plain_option_values(name: str) -> None:
    field = _int_option(name)
    lo, _ = field.metadata["range"]
    game = make_game(name, num_players=np.int64(N), **{field.name: np.int64(lo), "auto_forced": np.bool_(False)})
    value = getattr(game.config, field.name)
    assert value == lo and type(value) is int and game.config.auto_forced is False
    assert game.config == make_game(name, num_players=N, **{field.name: lo, "auto_forced": False}).config


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("bad", [True, np.bool_(True), 2.0, np.float64(2.0), "2", None, [2]])
def test_non_integers_refused_as_int_options(name: str, bad) -> None:
    field = _int_option(name)
    refused(lambda: make_game(name, num_players=N, **{field.name: bad}), ConfigError, f"option {field.name}=",
            "allowed: an integer from")


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("bad", [1, np.int64(1), 0.0, "True", None])
def test_non_bools_refused_as_bool_options(name: str, bad) -> None:
    refused(lambda: make_game(name, num_players=N, auto_forced=bad), ConfigError, "option auto_forced=",
            "allowed: True or False")


def test_numpy_strings_are_plain_literal_options() -> None:
    game = make_game("tripoli", num_players=N, spare_hand=np.str_("none"))
    assert type(game.config.spare_hand) is str and game.config.spare_hand == "none"
    refused(lambda: make_game("tripoli", spare_hand=np.str_("nope")), ConfigError, "option spare_hand='nope'")


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("bad", [2.0, "3", True, None, np.float64(3.0)])
def test_bad_num_players_refused(name: str, bad) -> None:
    refused(lambda: make_game(name, num_players=bad), ConfigError, "num_players")
