"""``cardgym serve``: play one seat of a game in your browser against bots (a web page on this machine).

    cardgym serve --game tripoli --opponents heuristic --seed 7 --log game.jsonl     # then open the printed address
    cardgym serve --game triolet --players 3 --opponents search ppo:runs/triolet/model.zip --port 8800
    cardgym serve --game flipflop --opponents random --seat 2 --option num_deals=3

The page draws the table as your seat sees it — your hand, the public cards, every seat's chips and card count,
the board and the piles, the last move highlighted — never a card your seat has not seen (the same view as
``cardgym play``), and your legal actions as buttons. The bots (any agent spec, as for ``cardgym play``) move as
soon as it is their turn; the moves so far are listed beside the table. ``--log FILE`` records the games as they
go, in the log ``cardgym play --log`` writes (``cardgym replay FILE --verify``); an existing file is kept and
nothing starts, unless ``--force``. After a game, "new game" deals the next one (game ``k`` uses seed
``seed + k``). The server listens on 127.0.0.1 (this machine only) unless ``--host`` says otherwise; ``--port 0``
picks a free port. Ctrl-C stops it; the log then holds the games so far.
"""

from __future__ import annotations

import argparse
import errno
import logging
import signal
import socket

from werkzeug.serving import make_server

from envs.registry import GAMES, make_game
from training.browser_game import BrowserGame
from training.cli_args import CommandError, check_output_file, count, parse_options
from training.human_seat import add_seat_options, ctrl_c_stops, make_bots, open_table, opponent_specs
from training.serve_app import create_app

DEFAULT_PORT = 8765
MAX_PORT = 65535


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``; :class:`CommandError` (one line) when that cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as e:
        reason = ("the port is in use by another program; choose another --port (0: any free one)"
                  if e.errno == errno.EADDRINUSE else e.strerror or str(e))
        raise CommandError(f"cannot listen on {host}:{port}: {reason}") from None


def run(args: argparse.Namespace) -> None:
    game = make_game(args.game, num_players=args.players, **parse_options(args.game, args.option or []))
    specs = opponent_specs(game, args.seat, args.opponents)
    if args.log is not None:
        check_output_file(args.log, "--log", args.force)
    bots = make_bots(game, specs)
    sock = listen(args.host, args.port)  # before anything is written: a port in use changes nothing
    browser_game = BrowserGame(open_table(game, bots, args.log), args.seat, bots, args.seed)
    browser_game.deal()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    server = make_server(args.host, args.port, create_app(browser_game), fd=sock.fileno())
    sock.close()  # the server holds its own copy of the socket
    host, port = server.socket.getsockname()[:2]
    shown_host = f"[{host}]" if ":" in host else host
    print(f"cardgym serve: {game.name}, {game.num_players} players, you are player_{args.seat}; open "
          f"http://{shown_host}:{port}/ in a browser (Ctrl-C stops the server)", flush=True)
    ctrl_c_stops()  # Ctrl-C and SIGTERM stop the server
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        server.serve_forever()  # until Ctrl-C, which werkzeug's loop takes as the way to stop
    finally:
        server.server_close()
        browser_game.env.close()
    print("cardgym serve: stopped" + (f"; the games are in {args.log}" if args.log else ""), flush=True)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="play one seat of a game in your browser against bots",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=sorted(GAMES))
    add_seat_options(p)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=count(MAX_PORT, low=0), default=DEFAULT_PORT,
                   help=f"port to listen on (0 to {MAX_PORT}; 0: any free port; default {DEFAULT_PORT})")
    p.set_defaults(func=run)
