"""``cardgym replay``: print a game log deal by deal (``cardgym play --log``, ``CardGymEnv(log_path=...)``).

    cardgym replay game.jsonl            # every game of the file
    cardgym replay game.jsonl --game 2   # the second game only
    cardgym replay game.jsonl --verify   # also play each game again and check every line of the log against it
    cardgym replay game.jsonl --html game.html [--seat 2 | --seat public]   # a page that steps through the game

``--html`` replays the game to build the page, checking every line on the way as ``--verify`` does (the page of a
log that stops early goes as far as the log; with ``--verify`` too, the log must reach the game's end).

Exit status: 0 when every game printed or the page was written (and, with ``--verify``, replayed exactly to its
end); 1 when the replayed game does not reproduce a line of the log (``--verify``, ``--html``), or, with
``--verify``, when the log stops before the game's end; 2 when the file is not a readable, well-formed cardgym log
(or ``--game`` is out of range). Each problem is one line on stderr naming the file's line, the same for
``--verify`` and ``--html``; nothing is written then.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from envs.gamelog import GameLog, LogError, VerifyError, read_log, verify
from training.cli_args import CommandError, check_output_file, positive_int


def seat_arg(text: str) -> int | None:
    """``--seat``: a seat number, or ``public`` (the public view)."""
    if text.strip().lower() == "public":
        return None
    if not text.strip().isascii() or not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"must be a seat number or 'public', got {text!r}")
    return int(text)


def print_verified(log: GameLog) -> None:
    """``--verify``: check the whole game (:func:`envs.gamelog.verify`) and say so."""
    verify(log)
    print(f"verified: the seed, the deck and the {len(log.steps)} logged actions reproduce every line of the log, to "
          "the game's end")


def write_page(args: argparse.Namespace, logs: list[GameLog]) -> None:
    """``--html``: the page of the chosen game (``--game``, needed when the file holds several); nothing is written
    unless the replay reproduces every line (:func:`envs.replay_page.frames_of`)."""
    from envs.replay_page import replay_page

    if args.game is None and len(logs) > 1:
        raise CommandError(f"--html writes one game: {args.file} holds {len(logs)}, choose one with --game K")
    log = logs[(args.game or 1) - 1]
    n = log.header["num_players"]
    if args.seat is not None and not 0 <= args.seat < n:
        raise CommandError(f"--seat must be a seat 0..{n - 1} or 'public', got {args.seat}")
    if args.verify:
        print_verified(log)
    page = replay_page(log, args.seat)
    Path(args.html).write_text(page, encoding="utf-8")
    print(f"wrote {args.html}: open it in a browser (← → step through the game)")


def run(args: argparse.Namespace) -> None:
    if args.html is not None:
        check_output_file(args.html, "--html", args.force)
    try:
        logs = read_log(args.file)
        if args.game is not None and not 1 <= args.game <= len(logs):
            raise LogError(f"--game must be 1..{len(logs)} ({args.file} holds {len(logs)} games), got {args.game}")
        if args.html is not None:
            write_page(args, logs)
            return
        chosen = list(enumerate(logs, 1)) if args.game is None else [(args.game, logs[args.game - 1])]
        for k, log in chosen:
            if len(logs) > 1:
                print(f"######## game {k} of {len(logs)} ########")
            print(log.text(unicode=not args.ascii))
            if args.verify:
                print_verified(log)
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
    p.add_argument("--html", default=None, metavar="PAGE",
                   help="write a self-contained web page that steps through the game (buttons, arrow keys)")
    p.add_argument("--seat", type=seat_arg, default=0, metavar="S",
                   help="with --html: the seat whose view the page shows (default 0), or 'public'")
    p.add_argument("--force", action="store_true", help="let --html overwrite an existing file")
    p.set_defaults(func=run)
