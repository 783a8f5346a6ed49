"""One person's seat against agents: what ``cardgym play`` (the terminal) and ``cardgym serve`` (the browser) share.

:func:`opponent_specs` gives each other seat its agent spec, :func:`make_bots` builds the agents (any spec of
:func:`agents.registry.make_agent`), :func:`open_table` the env they play on, recording the games with a
:class:`~envs.gamelog.GameRecorder` (the log ``cardgym replay --verify`` reads), and :func:`bot_action` asks a bot
for its move, with its seat view if it wants one; :func:`ctrl_c_stops` lets the person stop it with Ctrl-C.
"""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import SPEC_HELP, make_agent
from envs.aec import CardGymEnv
from envs.core.agent import call_agent, wants_seat_view
from envs.core.game import BatchedGame
from envs.gamelog import GameRecorder
from training.cli_args import CommandError, integer, seed_int


def ctrl_c_stops() -> None:
    """Make Ctrl-C (SIGINT) raise ``KeyboardInterrupt`` in this process, also when a shell started it with SIGINT
    ignored (a program started in the background inherits that, and Python then installs no handler): a person at
    the keyboard drives ``cardgym play`` and ``cardgym serve`` and stops them with Ctrl-C. Only from the main
    thread, where Python lets a handler be set."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def add_seat_options(p: argparse.ArgumentParser) -> None:
    """The options of a person's seat at a table of bots, the same in ``cardgym play`` and ``cardgym serve``."""
    p.add_argument("--players", type=integer, default=4, help="table size (default 4)")
    p.add_argument("--opponents", nargs="+", default=["heuristic"], metavar="SPEC",
                   help=f"the bots: one spec for all, or one per other seat ({SPEC_HELP}; default heuristic)")
    p.add_argument("--seat", type=integer, default=0, help="your seat (default 0)")
    p.add_argument("--seed", type=seed_int, default=None,
                   help="seed of the first game (0 to 2**64 - 1; default: random)")
    p.add_argument("--log", default=None, metavar="FILE",
                   help="record the games as JSON Lines in FILE (a new file: an existing one is kept unless --force)")
    p.add_argument("--force", action="store_true", help="let --log overwrite an existing file")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a rule option of the game (repeatable)")


def opponent_specs(game: BatchedGame, seat: int, opponents: list[str]) -> dict[int, str]:
    """Seat → agent spec of every seat but ``seat``: one spec for all, or one per other seat in seat order;
    :class:`CommandError` for a seat the table lacks or a wrong number of specs."""
    if not 0 <= seat < game.num_players:
        raise CommandError(f"--seat must be a seat 0..{game.num_players - 1}, got {seat}")
    others = [s for s in range(game.num_players) if s != seat]
    specs = opponents if len(opponents) > 1 else opponents * len(others)
    if len(specs) != len(others):
        raise CommandError(f"give one opponent for all bots or one per bot ({len(others)}), got {len(specs)}")
    return dict(zip(others, specs, strict=True))


def make_bots(game: BatchedGame, specs: dict[int, str]) -> dict[int, Any]:
    """Seat → the agent its spec names (:class:`~agents.registry.AgentSpecError` for a bad spec)."""
    return {s: make_agent(spec, game) for s, spec in specs.items()}


def open_table(game: BatchedGame, bots: dict[int, Any], log: str | Path | None) -> CardGymEnv:
    """The env the person and ``bots`` play on (keeping seat views if a bot wants them), recording every game in
    ``log`` (``None``: in memory only; the file is created when the first game is dealt, its folder now)."""
    if log is not None:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
    env = CardGymEnv(game, seat_views=any(wants_seat_view(b) for b in bots.values()))
    env.recorder = GameRecorder(log)
    return env


def bot_action(env: CardGymEnv, bot: Any, seat: int, rng: np.random.Generator) -> int:
    """The action ``bot`` chooses at ``seat``, which is to act, from its observation (and seat view)."""
    agent = env.possible_agents[seat]
    obs = env.observe(agent)["observation"][None, :]
    mask = env.state_.legal_action_mask[:1].astype(bool)
    views = [env.seat_view(agent)] if wants_seat_view(bot) else None
    return int(np.asarray(call_agent(bot, obs, mask, rng, views))[0])
