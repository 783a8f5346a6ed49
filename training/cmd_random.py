"""``cardgym random``: play a batch of random legal games on the batched core and print a summary."""

from __future__ import annotations

import argparse
import time

import numpy as np

from envs.core.game import sample_legal
from envs.registry import GAME_CLASSES, make_game


def run(args: argparse.Namespace) -> None:
    game = make_game(args.game, num_players=args.players)
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    state = game.init(args.seed, batch_size=args.tables)
    returns = state.rewards.copy()
    decisions = 0
    while not state.done.all():
        decisions += int((~state.done).sum())
        game.step(state, sample_legal(state.legal_action_mask, rng))
        returns += state.rewards
    seconds = time.perf_counter() - t0
    print(f"{args.tables} random {args.game} games, {args.players} players: {decisions:,} decisions "
          f"in {seconds:.2f} s ({decisions / seconds:,.0f} decisions/s)")
    print("mean result per seat: " + ", ".join(f"player_{i} {m:+.3f}" for i, m in enumerate(returns.mean(axis=0))))
    print(f"terminated {int(state.terminated.sum())}, truncated {int(state.truncated.sum())}")
    print("one table at the end:\n" + game.render_table(state, 0, 0))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("random", help="play a batch of random legal games and print a summary")
    p.add_argument("--game", choices=sorted(GAME_CLASSES), default="tripoli")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--tables", type=int, default=1024)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run)
