"""``cardgym replay``: print a game log deal by deal (``cardgym play --log``, ``CardGymEnv(log_path=...)``).

    cardgym replay game.jsonl            # every game of the file
    cardgym replay game.jsonl --game 2   # the second game only
    cardgym replay game.jsonl --verify   # also play the log again and check it reproduces every step
"""

from __future__ import annotations

import argparse

from envs.gamelog import LogError, read_log, replay
from training.cli_args import positive_int


def run(args: argparse.Namespace) -> None:
    logs = read_log(args.file)
    if args.game is not None and args.game > len(logs):
        raise LogError(f"--game must be 1..{len(logs)} ({args.file} holds {len(logs)} games), got {args.game}")
    chosen = list(enumerate(logs, 1)) if args.game is None else [(args.game, logs[args.game - 1])]
    for k, log in chosen:
        if len(logs) > 1:
            print(f"######## game {k} of {len(logs)} ########")
        print(log.text(unicode=not args.ascii))
        if args.verify:
            replay(log)
            print(f"verified: the seed, the deck and the {len(log.steps)} logged actions reproduce every step")
        print()


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="print a game log deal by deal",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="a JSON Lines game log")
    p.add_argument("--game", type=positive_int, default=None, metavar="K", help="print only the K-th game of the file")
    p.add_argument("--verify", action="store_true", help="replay the log and check every step matches")
    p.add_argument("--ascii", action="store_true", help="suits as letters c d h s instead of symbols")
    p.set_defaults(func=run)
