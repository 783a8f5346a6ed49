"""What the search tests of every game share: a deal played to each decision of one seat, a deal replayed, and two
seat views compared."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from envs.aec import CardGymEnv
from envs.core.agent import Agent
from envs.core.game import BatchedGame, BatchState
from envs.gamelog import GameRecorder
from envs.seatview import SeatView


@dataclasses.dataclass
class Point:
    """A decision of one seat, copied: the real state, the seat's view, its observation and mask, the actions so far
    and the game log's lines so far."""

    state: BatchState
    view: SeatView
    obs: np.ndarray
    mask: np.ndarray
    actions: list[int]
    lines: list[dict]


def seat_decisions(game: BatchedGame, policy: Agent, deck: np.ndarray, dealer: int, seat: int = 0,
                   limit: int | None = None) -> Iterator[Point]:
    """Play a stacked deal with ``policy`` at every seat (at most ``limit`` actions); at each decision of ``seat``
    with a choice yield a :class:`Point`."""
    env = replay(game, deck, dealer, [])
    actions: list[int] = []
    rng = np.random.default_rng(0)
    while not bool(env.state_.done[0]) and (limit is None or len(actions) < limit):
        s = int(env.state_.current_player[0])
        obs = env.observe(env.possible_agents[s])["observation"][None]
        mask = env.state_.legal_action_mask[:1].copy()
        if s == seat and mask.sum() > 1:
            yield Point(env.state_.copy(), copy.deepcopy(env.seat_view(env.possible_agents[s])), obs, mask,
                        list(actions), copy.deepcopy(env.recorder.lines))
        a = int(policy.act(obs, mask, rng)[0])
        actions.append(a)
        env.step(a)


def replay(game: BatchedGame, deck: np.ndarray, dealer: int, actions: list[int]) -> CardGymEnv | None:
    """The deal ``deck`` (``dealer`` dealing) with ``actions`` played, seat views and a game log kept (``None`` if
    an action is illegal)."""
    env = CardGymEnv(game, seat_views=True)
    env.recorder = GameRecorder(None)
    env.reset(options={"deck": deck.tolist(), "dealer": dealer})
    for a in actions:
        if bool(env.state_.done[0]) or not env.state_.legal_action_mask[0, a]:
            return None
        env.step(a)
    return env


def same_view(a: SeatView, b: SeatView) -> bool:
    """Whether two seat views hold the same facts: actors, actions, forced moves and observations."""
    return (a.actors == b.actors and a.actions == b.actions and a.forced == b.forced
            and np.array_equal(a.observations(), b.observations()))


def random_shares(game: BatchedGame, agent: Any, field: Agent, evidence: int) -> list[float]:
    """Six deals of ``agent`` (a search) at seat 0 against three copies of ``field``: at each of its decisions where
    a seat view holds at least ``evidence`` public actions of the others, the posterior probability of random play,
    averaged over the other seats."""
    from agents.search import type_posterior
    from training.evaluate import play_tables

    shares: list[float] = []
    act = agent.act

    def spy(obs, mask, rng, views=None):
        out = act(obs, mask, rng, views=views)
        for view in views:
            if len(view.cache.get("evidence", ())) >= evidence:
                post = type_posterior(view, game.num_players, len(agent.types))
                shares.append(float(post[np.arange(game.num_players) != view.seat, -1].mean()))
        return out

    agent.act = spy
    seats = np.array([[0] + [1] * (game.num_players - 1)] * 6)
    play_tables(game, [agent, field], seats, np.arange(6, dtype=np.uint64), np.random.default_rng(0))
    return shares
