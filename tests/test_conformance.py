"""The conformance suite (envs/testing.py) on every game of the registry: C7, C9, C10/C11 and ``observe(out=)`` on
the core for every table size and the rule variants that change the flow, PettingZoo's ``api_test`` and
``seed_test`` on the AEC face. (C12 and parity need a game's own knowledge of its hidden places and a reference:
they live in tests/test_<game>_properties.py and tests/test_<game>_parity.py, on the suite's functions.)"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from envs import testing
from envs.registry import GAMES, env_version, make_game

TABLE_TOTAL = {
    "tripoli": lambda s: s.layout.sum(axis=1).astype(np.float64),  # C10: chips on the layout's spaces
    "triolet": None,  # no chips: rewards are zero-sum (L16)
    "flipflop": lambda s: s.pots.sum(axis=1),  # F3: money in the three pots
}
VARIANTS = {
    "tripoli": [{}, {"num_deals": 3}, {"pay_suit": "auction", "spare_hand": "none"}, {"auto_forced": False},
                {"final_round": "pots", "num_deals": 2}, {"cosmo": True}],
    "triolet": [{}, {"faceup_sets": True, "show_failed_facedown": True}, {"max_turns": 30}],
    "flipflop": [{}, {"num_deals": 3, "bankroll": 6}, {"declare_49_50": "first_turn", "auto_forced": False},
                 {"until_one_left": True, "bankroll": 4, "max_turns": 20, "max_deals": 3}],
}
CASES = [(name, n, options) for name in GAMES for options in VARIANTS[name]
         for n in range(make_game(name).min_players, make_game(name).max_players + 1, 3)]


def case_id(case) -> str:
    name, n, options = case
    return f"{name}-{n}p-" + (",".join(f"{k}={v}" for k, v in options.items()) or "default")


def test_every_game_has_variants() -> None:
    assert set(VARIANTS) == set(GAMES)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_core_conformance(case) -> None:
    name, n, options = case
    testing.check_game(make_game(name, n, **options), seed=len(case_id(case)), table_total=TABLE_TOTAL[name])


@pytest.mark.parametrize("name", list(GAMES))
def test_pettingzoo_api_and_seed(name: str) -> None:
    module = importlib.import_module(f"envs.{env_version(name)}")
    game = make_game(name)
    for n in (game.min_players, game.max_players):
        testing.check_pettingzoo(lambda n=n: module.env(num_players=n), num_cycles=150)


# ----- the suite catches broken games -------------------------------------------------------------------------------
def _broken(name: str, **overrides):
    """A game of the registry with some methods replaced, to show that each check can fail."""
    base = type(make_game(name))
    return type(f"Broken{base.__name__}", (base,), overrides)(4)


def test_suite_catches_a_leaking_chip() -> None:
    def _play(self, state, idx, actions):
        bad = type(self).__mro__[1]._play(self, state, idx, actions)
        state.rewards[idx, 0] += 1.0  # a chip from nowhere
        return bad

    with pytest.raises(AssertionError, match="not conserved"):
        testing.check_conservation(_broken("flipflop", _play=_play), 1, TABLE_TOTAL["flipflop"])


def test_suite_catches_an_observation_that_depends_on_the_batch() -> None:
    def _observe(self, state, seats, out):
        type(self).__mro__[1]._observe(self, state, seats, out)
        out[:, 0] += state.batch_size  # differs between a batch and a single table

    with pytest.raises(AssertionError, match="observation differs"):
        testing.check_same_seed_any_batch(_broken("triolet", _observe=_observe), 3, batch_size=8, tables=(0, 5))


def test_suite_catches_a_redeal_that_is_not_init() -> None:
    def _redeal(self, state, idx, seeds):
        type(self).__mro__[1]._redeal(self, state, idx, seeds + 1)

    with pytest.raises(AssertionError, match="re-dealt"):
        testing.check_same_seed_any_batch(_broken("tripoli", _redeal=_redeal), 5, batch_size=8, tables=(0, 5))


def test_suite_catches_an_observe_that_ignores_out() -> None:
    def _observe(self, state, seats, out):
        pass

    with pytest.raises(AssertionError, match="observe\\(out=\\) differs"):
        testing.check_observe_out(_broken("tripoli", _observe=_observe), 2, batch_size=4, steps=2)


# ----- agents: check_agent_conformance --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(GAMES))
def test_the_zoo_conforms(name: str) -> None:
    from agents.registry import make_agent
    from agents.zoo import BOTS

    game = make_game(name, 4)
    for spec in BOTS[name]:
        report = testing.check_agent_conformance(game, make_agent(spec, game), seed=3, tables=8)
        assert report.episodes == 8 and report.decisions >= report.choices > 0
        assert (report.reordered == report.calls) == (spec != "random")  # the random bot draws from rng, the rest not
        assert "conforms" in str(report)


class _Bot:
    """The first legal action; subclasses break the contract one way each."""

    name = "bot"

    def __init__(self, game) -> None:
        self.game = game

    def act(self, obs, mask, rng):
        return np.argmax(mask, axis=1)


class _Illegal(_Bot):
    def act(self, obs, mask, rng):
        return np.argmin(mask, axis=1)


class _Scribbler(_Bot):
    def act(self, obs, mask, rng):
        mask[:, 0] = True
        return np.argmax(mask, axis=1)


class _GlobalRandom(_Bot):
    def act(self, obs, mask, rng):
        return np.array([np.random.choice(np.flatnonzero(m)) for m in mask])


class _FirstRow(_Bot):
    """Answers every row from the first row's observation."""

    def act(self, obs, mask, rng):
        pick = np.argmax(mask, axis=1)
        legal = np.flatnonzero(mask[:, int(obs[0].sum()) % mask.shape[1]])
        pick[legal] = int(obs[0].sum()) % mask.shape[1]
        return pick


class _Floats(_Bot):
    def act(self, obs, mask, rng):
        return np.argmax(mask, axis=1).astype(np.float64)


@pytest.mark.parametrize(("bot", "fragment"), [
    (_Illegal, "illegal action"), (_Scribbler, "wrote into its obs or mask"),
    (_GlobalRandom, "the same rng state it gave other actions"), (_FirstRow, "changed with the order of the rows"),
    (_Floats, "one integer action id per row"),
])
def test_the_agent_check_catches_a_broken_agent(bot, fragment: str) -> None:
    game = make_game("tripoli", 4)
    with pytest.raises(AssertionError, match=fragment):
        testing.check_agent_conformance(game, bot(game), seed=1, tables=8)


def test_the_agent_check_gives_a_searching_agent_its_views() -> None:
    from agents.registry import make_agent

    game = make_game("flipflop", 3)
    report = testing.check_agent_conformance(game, make_agent("search:8", game), seed=2, tables=4)
    assert report.calls > 0 and report.reordered == 0  # it draws from rng at every call
