"""``cardgym watch``: watch bots (or trained agents) play a game move by move, as a spectator sees it.

    cardgym watch tripoli --agents heuristic tight ppo:runs/tripoli/distilled/model.zip random --deals 2 --delay 0.5
    cardgym watch triolet --players 3 --agents heuristic --reveal

One agent spec for every seat, or one per seat. Every move is printed as it happens — the forced ones too, one line
each — with the public events it causes and a summary at the end of each deal; a spectator sees what the table shows
(a secret choice such as a Tripoli poker selection appears as ``select (hidden)``). ``--reveal`` also shows, before
each move, the table as the player to act sees it (their hand included) and names secret choices. ``--delay S``
pauses S seconds after each move; ``--log FILE`` records the games (``cardgym replay FILE``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from agents.registry import SPEC_HELP, make_agent
from envs.aec import CardGymEnv
from envs.core.agent import wants_seat_view
from envs.gamelog import GameRecorder, seat_name
from envs.registry import GAMES, make_game
from training.cli_args import (
    MAX_SEED,
    CommandError,
    check_output_file,
    count,
    integer,
    number_upto,
    parse_options,
    seed_int,
)
from training.cmd_play import TerminalGame
from training.limits import MAX_DEALS, MAX_DELAY


class _Revealed:
    """A game's public view that names secret choices (``--reveal``)."""

    def __init__(self, view: Any) -> None:
        self._view = view

    def public_action_name(self, name: str) -> str:
        return name

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._view, attr)


class Spectator(TerminalGame):
    """Every seat is an agent; the output is what a spectator sees (``reveal``: and each acting player's view)."""

    def __init__(self, env: CardGymEnv, bots: dict[int, Any], seed: int | None, unicode: bool, reveal: bool,
                 delay: float) -> None:
        super().__init__(env, -1, bots, seed, unicode=unicode)
        self.reveal, self.delay = reveal, delay
        if reveal:
            self.view = _Revealed(self.view)

    def bot_action(self, seat: int) -> int:
        if self.reveal:
            self.say(f"\n[{seat_name(seat)} sees]")
            self.say(self.game.render_table(self.env.state_, 0, seat, unicode=self.unicode))
        return super().bot_action(seat)

    def report(self) -> None:
        super().report()
        if self.delay:
            time.sleep(self.delay)


def run(args: argparse.Namespace) -> None:
    game = make_game(args.game, num_players=args.players, **parse_options(args.game, args.option or []))
    n = game.num_players
    specs = args.agents if len(args.agents) > 1 else args.agents * n
    if len(specs) != n:
        raise CommandError(f"give one agent spec for every seat or one per seat ({n}), got {len(specs)}")
    if args.seed is not None and args.seed + args.deals - 1 > MAX_SEED:
        raise CommandError(f"--seed: game k plays seed + k, which must stay below 2**64; got --seed {args.seed} "
                           f"with --deals {args.deals}")
    if args.log is not None:
        check_output_file(args.log, "--log", args.force)
    bots = {s: make_agent(spec, game) for s, spec in enumerate(specs)}
    if args.log is not None:
        Path(args.log).parent.mkdir(parents=True, exist_ok=True)
    env = CardGymEnv(game, seat_views=any(wants_seat_view(b) for b in bots.values()))
    env.recorder = GameRecorder(args.log)
    spectator = Spectator(env, bots, args.seed, unicode=not args.ascii, reveal=args.reveal, delay=args.delay)
    seats = ", ".join(f"{seat_name(s)} is {spec}" for s, spec in enumerate(specs))
    spectator.say(f"{game.name}, {n} players: {seats}")
    try:
        for k in range(args.deals):
            if args.deals > 1:
                spectator.say(f"\n######## Game {k + 1} of {args.deals} ########")
            spectator.play(None if args.seed is None else args.seed + k)
    except KeyboardInterrupt:
        spectator.say("\nStopped.")
    finally:
        env.close()
    if args.deals > 1:
        spectator.say(f"\nTotal over the games ({spectator.unit}): "
                      + ", ".join(f"{seat_name(s)} {round(r, 3):+g}" for s, r in enumerate(spectator.totals)))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("watch", help="watch agents play a game move by move, as a spectator",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--players", type=integer, default=4, help="table size (default 4)")
    p.add_argument("--agents", nargs="+", default=["heuristic"], metavar="SPEC",
                   help=f"one spec for every seat, or one per seat ({SPEC_HELP}; default heuristic)")
    p.add_argument("--seed", type=seed_int, default=None,
                   help="seed of the first game (0 to 2**64 - 1; default: random)")
    p.add_argument("--deals", type=count(MAX_DEALS), default=1,
                   help=f"episodes to watch in a row (1 to {MAX_DEALS:,}; default 1)")
    p.add_argument("--delay", type=number_upto(MAX_DELAY), default=0.0, metavar="S",
                   help=f"seconds to pause after each move (0 to {MAX_DELAY:g}; default 0)")
    p.add_argument("--reveal", action="store_true",
                   help="before each move, show the table as the player to act sees it; name secret choices")
    p.add_argument("--log", default=None, metavar="FILE", help="record the games as JSON Lines in a new FILE")
    p.add_argument("--force", action="store_true", help="let --log overwrite an existing file")
    p.add_argument("--ascii", action="store_true", help="suits as letters c d h s instead of symbols")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a rule option of the game (repeatable)")
    p.set_defaults(func=run)
