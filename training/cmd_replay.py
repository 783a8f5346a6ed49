"""``cardgym replay``: print a game log deal by deal (``cardgym play --log``, ``CardGymEnv(log_path=...)``).

    cardgym replay game.jsonl            # every game of the file
    cardgym replay game.jsonl --game 2   # the second game only
    cardgym replay game.jsonl --verify   # also play each game again and check every line of the log against it

Exit status: 0 when every game printed (and, with ``--verify``, replayed exactly to its end); 1 when ``--verify``
finds a line the replayed game does not reproduce, or a log that stops before the game's end; 2 when the file is
not a readable, well-formed cardgym log (or ``--game`` is out of range). Each problem is one line on stderr naming
the file's line.
"""

from __future__ import annotations

import argparse
import sys

from envs.gamelog import LogError, VerifyError, read_log, verify
from training.cli_args import positive_int


def run(args: argparse.Namespace) -> None:
    try:
        logs = read_log(args.file)
        if args.game is not None and not 1 <= args.game <= len(logs):
            raise LogError(f"--game must be 1..{len(logs)} ({args.file} holds {len(logs)} games), got {args.game}")
        chosen = list(enumerate(logs, 1)) if args.game is None else [(args.game, logs[args.game - 1])]
        for k, log in chosen:
            if len(logs) > 1:
                print(f"######## game {k} of {len(logs)} ########")
            print(log.text(unicode=not args.ascii))
            if args.verify:
                verify(log)
                print(f"verified: the seed, the deck and the {len(log.steps)} logged actions reproduce every line "
                      "of the log, to the game's end")
            print()
    except VerifyError as e:
        print(f"cardgym replay: verification failed: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    except LogError as e:
        print(f"cardgym replay: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="print a game log deal by deal",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="a JSON Lines game log")
    p.add_argument("--game", type=positive_int, default=None, metavar="K", help="print only the K-th game of the file")
    p.add_argument("--verify", action="store_true",
                   help="replay each game and check every line of the log against it (exit status 1 if not)")
    p.add_argument("--ascii", action="store_true", help="suits as letters c d h s instead of symbols")
    p.set_defaults(func=run)
