"""``cardgym random``: play a batch of random legal games on the batched core and print a summary.

    cardgym random --game flipflop --players 3 --tables 4096 --seed 1 --option num_deals=3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from envs.core.game import sample_legal
from envs.registry import GAMES, make_game
from training.cli_args import count, integer, parse_options, seed_int
from training.limits import MAX_TABLES


def run(args: argparse.Namespace) -> None:
    game = make_game(args.game, num_players=args.players, **parse_options(args.game, args.option or []))
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
    print(f"{args.tables} random {args.game} games, {game.num_players} players: {decisions:,} decisions "
          f"in {seconds:.2f} s ({decisions / seconds:,.0f} decisions/s)")
    print("mean result per seat: " + ", ".join(f"player_{i} {m:+.3f}" for i, m in enumerate(returns.mean(axis=0))))
    print(f"terminated {int(state.terminated.sum())}, truncated {int(state.truncated.sum())}")
    print("one table at the end:\n" + game.render_table(state, 0, 0))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("random", help="play a batch of random legal games and print a summary",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(GAMES), default="tripoli")
    p.add_argument("--players", type=integer, default=4, help="table size (default 4)")
    p.add_argument("--tables", type=count(MAX_TABLES), default=1024,
                   help=f"games played at once (1 to {MAX_TABLES:,}; default 1024)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of the first table (0 to 2**64 - 1; default 0)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a rule option of the game (repeatable)")
    p.set_defaults(func=run)
