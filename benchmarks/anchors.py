"""The systems a user would pick instead of cardgym ("anchors"), played with random legal actions.

Every anchor function takes ``(seconds, seed)``, plays whole games until ``seconds`` of process CPU time
(``time.process_time``, the clock of :mod:`benchmarks.throughput`) have passed, and returns ``(decisions per second,
games per second)``. A decision is one action chosen by a player; chance events (deals) are not decisions but their
time counts. Each decision also produces what a learning agent needs to act: the acting player's observation and
its legal actions (PettingZoo: ``last()``; OpenSpiel: ``observation_tensor`` or, where a game has none,
``information_state_tensor``, and ``legal_actions``; RLCard: the state ``step`` returns). Resets are timed;
PettingZoo's ``reset`` is seeded once and unseeded afterwards, as in a user's loop.

The libraries are imported inside the functions, so this module imports without them; :data:`ANCHORS` names the
modules each anchor needs, so that a missing one is reported rather than run.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Anchor:
    """One anchor: how it is labelled, what it needs, and the function that measures it."""

    system: str
    """Library, as printed: ``"PettingZoo"``, ``"OpenSpiel"``, ``"RLCard"``."""
    game: str
    """The library's name of the game."""
    needs: tuple[str, ...]
    """Importable modules the measurement needs."""
    measure: Callable[[float, int], tuple[float, float]]


def _pettingzoo_rate(module: str, seconds: float, seed: int) -> tuple[float, float]:
    env = importlib.import_module(f"pettingzoo.classic.{module}").env()
    rng = random.Random(seed)
    env.reset(seed=seed)  # seeded once; a user's loop then resets unseeded (as cardgym's AEC row does)
    decisions, games, t0 = 0, 0, time.process_time()
    while time.process_time() - t0 < seconds:
        if games:
            env.reset()
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            decisions += action is not None
        games += 1
    elapsed = time.process_time() - t0
    return decisions / elapsed, games / elapsed


def _openspiel_rate(name: str, seconds: float, seed: int) -> tuple[float, float]:
    import pyspiel

    game = pyspiel.load_game(name)
    kind = game.get_type()
    tensor = "observation_tensor" if kind.provides_observation_tensor else "information_state_tensor"
    rng = random.Random(seed)
    decisions, games, t0 = 0, 0, time.process_time()
    while time.process_time() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights=probs)[0])
                continue
            getattr(state, tensor)(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
        state.returns()
        games += 1
    elapsed = time.process_time() - t0
    return decisions / elapsed, games / elapsed


def _rlcard_rate(name: str, seconds: float, seed: int) -> tuple[float, float]:
    import rlcard

    env = rlcard.make(name, config={"seed": seed})
    rng = random.Random(seed)
    decisions, games, t0 = 0, 0, time.process_time()
    while time.process_time() - t0 < seconds:
        state, _player = env.reset()
        while not env.is_over():
            state, _player = env.step(rng.choice(list(state["legal_actions"])))
            decisions += 1
        env.get_payoffs()
        games += 1
    elapsed = time.process_time() - t0
    return decisions / elapsed, games / elapsed


def pettingzoo_texas_holdem(seconds: float, seed: int = 0) -> tuple[float, float]:
    """PettingZoo classic ``texas_holdem_v4`` (limit hold'em, 2 players, over RLCard) through ``env()``."""
    return _pettingzoo_rate("texas_holdem_v4", seconds, seed)


def pettingzoo_leduc_holdem(seconds: float, seed: int = 0) -> tuple[float, float]:
    """PettingZoo classic ``leduc_holdem_v4`` (2 players, over RLCard) through ``env()``."""
    return _pettingzoo_rate("leduc_holdem_v4", seconds, seed)


def openspiel_gin_rummy(seconds: float, seed: int = 0) -> tuple[float, float]:
    """OpenSpiel ``gin_rummy`` (2 players) through pyspiel."""
    return _openspiel_rate("gin_rummy", seconds, seed)


def openspiel_hearts(seconds: float, seed: int = 0) -> tuple[float, float]:
    """OpenSpiel ``hearts`` (4 players, passing included) through pyspiel."""
    return _openspiel_rate("hearts", seconds, seed)


def openspiel_leduc_poker(seconds: float, seed: int = 0) -> tuple[float, float]:
    """OpenSpiel ``leduc_poker`` (2 players) through pyspiel."""
    return _openspiel_rate("leduc_poker", seconds, seed)


def rlcard_limit_holdem(seconds: float, seed: int = 0) -> tuple[float, float]:
    """RLCard ``limit-holdem`` (2 players)."""
    return _rlcard_rate("limit-holdem", seconds, seed)


def rlcard_gin_rummy(seconds: float, seed: int = 0) -> tuple[float, float]:
    """RLCard ``gin-rummy`` (2 players)."""
    return _rlcard_rate("gin-rummy", seconds, seed)


_PZ_NEEDS = ("pettingzoo.classic", "rlcard", "pygame")
ANCHORS: dict[str, Anchor] = {
    "pz-holdem": Anchor("PettingZoo", "texas_holdem_v4", _PZ_NEEDS, pettingzoo_texas_holdem),
    "pz-leduc": Anchor("PettingZoo", "leduc_holdem_v4", _PZ_NEEDS, pettingzoo_leduc_holdem),
    "os-gin": Anchor("OpenSpiel", "gin_rummy", ("pyspiel",), openspiel_gin_rummy),
    "os-hearts": Anchor("OpenSpiel", "hearts", ("pyspiel",), openspiel_hearts),
    "os-leduc": Anchor("OpenSpiel", "leduc_poker", ("pyspiel",), openspiel_leduc_poker),
    "rl-holdem": Anchor("RLCard", "limit-holdem", ("rlcard",), rlcard_limit_holdem),
    "rl-gin": Anchor("RLCard", "gin-rummy", ("rlcard",), rlcard_gin_rummy),
}
"""Anchors by short key (the column names of the ratio table)."""
