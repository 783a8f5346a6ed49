"""``cardgym play``: play one seat of a game in the terminal against bots.

    cardgym play tripoli --players 4 --opponents heuristic --seat 0 --seed 7 --deals 2 --log game.jsonl
    cardgym play triolet --players 5 --opponents random heuristic random random
    cardgym play flipflop --players 3 --opponents random --option num_deals=3

You see what your seat may know — your hand, the public cards, chips and who is to act, never a hidden card — and
your legal actions, numbered: type the number or the action's name (``select 10♦``, ``select Td`` and ``select 10d``
are the same; suits may be written c d h s). Bad input is answered with a hint and changes nothing; ``?`` shows the
table again, ``q`` quits. The bots' moves and every public event are printed as they happen, and a summary closes
each deal. ``--deals K`` plays K episodes in a row (game ``k`` uses seed ``seed + k``); a game option such as
``num_deals=3`` makes each episode several deals. ``--log FILE`` records the games (``cardgym replay FILE``) in a
new file: an existing file is kept and the command stops before the first deal, unless ``--force`` overwrites it.
The end of the input (Ctrl-D) or Ctrl-C leaves the table like ``q``; the log then holds the game so far.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from envs.aec import CardGymEnv
from envs.gamelog import cards_text, public_view, seat_name
from envs.registry import GAMES, make_game
from training.cli_args import (
    MAX_SEED,
    CommandError,
    check_output_file,
    count,
    parse_options,
)
from training.human_seat import add_seat_options, bot_action, ctrl_c_stops, make_bots, open_table, opponent_specs
from training.limits import MAX_DEALS

UNITS = {"tripoli": "chips", "flipflop": "stakes", "triolet": "points"}
"""What a game's rewards count, for the summaries."""
QUIT = ("q", "quit", "exit")
SHOW = ("?", "help", "h")


class Quit(Exception):
    """The human asked to stop (``q``, Ctrl-C or the end of the input)."""


def normalise(text: str) -> str:
    """An action name or typed text reduced for matching: lower case, suits as letters, ``10`` as ``t``, no spaces
    or punctuation (``"select 10♦"`` and ``"Select Td"`` both give ``"selecttd"``)."""
    text = text.lower()
    for sym, letter in zip("♣♦♥♠", "cdhs", strict=True):
        text = text.replace(sym, letter)
    return re.sub(r"[^a-z0-9]", "", text.replace("10", "t"))


def parse_choice(text: str, legal: list[int], names: list[str]) -> int | str:
    """The action id chosen by ``text`` (a number 1..len(legal) or a legal action's name), or a hint (a ``str``)
    saying what to type instead."""
    text = text.strip()
    hint = (f"type a number from 1 to {len(legal)} or an action name such as '{names[0]}' "
            "('?' shows the table, 'q' quits)")
    if not text:
        return f"Please choose an action: {hint}."
    if re.fullmatch(r"[0-9]{1,9}", text):  # not str.isdigit(): '²' and '①' are digits to it, and int() refuses them
        k = int(text)
        if 1 <= k <= len(legal):
            return legal[k - 1]
        return f"{k} is not one of your options: {hint}."
    wanted = normalise(text)
    matches = [a for a, name in zip(legal, names, strict=True) if normalise(name) == wanted]
    if len(matches) == 1:
        return matches[0]
    return f"{text!r} is not one of your options: {hint}."


class TerminalGame:
    """One human seat against bots on a :class:`CardGymEnv`; output through ``out``, input through ``ask``."""

    def __init__(self, env: CardGymEnv, seat: int, bots: dict[int, Any], seed: int | None, unicode: bool = True,
                 out: Callable[[str], None] = print, ask: Callable[[str], str] = input) -> None:
        self.env, self.game, self.seat, self.bots = env, env.game, seat, bots
        self.rng = np.random.default_rng(seed)
        self.unicode, self.out, self.ask = unicode, out, ask
        self.unit = UNITS.get(self.game.name, "points")
        self.totals = np.zeros(self.game.num_players)
        self.view = public_view(self.game.name)

    def _text(self, text: str) -> str:
        if self.unicode:
            return text
        for sym, letter in zip("♣♦♥♠", "cdhs", strict=True):
            text = text.replace(sym, letter)
        return text.replace("−", "-").replace("→", "->").replace("—", "-").replace("↔", "<->").replace("◀", "<")

    def say(self, text: str) -> None:
        self.out(self._text(text))

    def who(self, seat: int) -> str:
        return seat_name(seat) + (" (you)" if seat == self.seat else "")

    # ----- reporting what the recorder saw ---------------------------------------------------------------------------
    def report_forced(self, moves: list[dict]) -> None:
        """C8: every move the engine made because it had no alternative, in order, one line each (your own too)."""
        for m in moves:
            name = m["name"] if m["seat"] == self.seat else self.view.public_action_name(m["name"])
            self.say(f"  then {self.who(m['seat'])} (forced): {name}")

    def report(self) -> None:
        for line in self.env.recorder.last:
            kind = line["type"]
            if kind == "game" and any(line["rewards"]):
                self.say(f"{self.unit} while dealing: "
                         + ", ".join(f"{seat_name(s)} {round(r, 3):+g}" for s, r in enumerate(line["rewards"]) if r))
            elif kind == "deal":
                dealer = "" if line["dealer"] is None else f", dealer {self.who(line['dealer'])}"
                self.say(f"\n=== Deal {line['deal'] + 1}{dealer} ===")
                for e in line["events"]:
                    self.say(f"    {e['text']}")
                self.report_forced(line["forced"])
            elif kind == "step":
                name = line["name"] if line["seat"] == self.seat else self.view.public_action_name(line["name"])
                self.say(f"{self.who(line['seat'])}: {name}")
                self.report_forced(line["forced"])
                for e in line["events"]:
                    self.say(f"    {e['text']}")
                paid = ", ".join(f"{seat_name(s)} {round(r, 3):+g}" for s, r in enumerate(line["rewards"]) if r)
                if paid:
                    self.say(f"    {self.unit}: {paid}")
            elif kind == "deal_end":
                self.say(f"\n--- Summary of deal {line['deal'] + 1}: {self.unit} won this deal ---")
                for s, r in enumerate(line["returns"]):
                    self.say(f"    {self.who(s):<16} {round(r, 3):+g}")
                if line["shown"]:
                    self.say("    cards shown:")
                    for s, cards in line["shown"].items():
                        self.say(f"      {self.who(int(s)):<16} {cards_text(cards)}")
            elif kind == "result":
                end = "" if line["terminated"] else " (cut off at the turn limit)" if line["truncated"] else ""
                self.totals += np.asarray(line["returns"])
                self.say(f"\n*** Game over{end}: {self.unit} per seat ***")
                for s, r in enumerate(line["returns"]):
                    self.say(f"    {self.who(s):<16} {round(r, 3):+g}")

    # ----- the human's turn ------------------------------------------------------------------------------------------
    def show_table(self, legal: list[int]) -> None:
        self.say(f"\n------ {seat_name(self.seat)}, your turn ------")
        picture = self.game.render_table(self.env.state_, 0, self.seat, unicode=self.unicode)
        # The numbered list below replaces a core's own "legal: …" line.
        self.say("\n".join(line for line in picture.splitlines() if not line.startswith("legal: ")))
        self.say("Your options:")
        items = [f"{k:>3}) {self.game.action_name(a)}" for k, a in enumerate(legal, 1)]
        width = max(len(item) for item in items) + 2
        per_line = 1 if len(items) <= 12 else max(1, 96 // width)  # a long list in columns, read down
        rows = -(-len(items) // per_line)
        for r in range(rows):
            self.say("".join(item.ljust(width) for item in items[r::rows]).rstrip())

    def human_action(self) -> int:
        legal = self.env.legal_actions()
        names = [self.game.action_name(a) for a in legal]
        self.show_table(legal)
        while True:
            try:
                text = self.ask(self._text(f"Your move (1-{len(legal)}, a name, ? or q): "))
            except (EOFError, KeyboardInterrupt):
                raise Quit from None
            if text.strip().lower() in QUIT:
                raise Quit
            if text.strip().lower() in SHOW:
                self.show_table(legal)
                continue
            choice = parse_choice(text, legal, names)
            if isinstance(choice, int):
                return choice
            self.say(choice)

    def play(self, seed: int | None) -> None:
        """One episode."""
        self.env.reset(seed=seed)
        self.report()
        while not bool(self.env.state_.done[0]):
            seat = int(self.env.state_.current_player[0])
            self.env.step(self.human_action() if seat == self.seat else self.bot_action(seat))
            self.report()

    def bot_action(self, seat: int) -> int:
        """The move of the bot at ``seat`` (:func:`training.human_seat.bot_action`)."""
        return bot_action(self.env, self.bots[seat], seat, self.rng)


def run(args: argparse.Namespace) -> None:
    ctrl_c_stops()
    game = make_game(args.game, num_players=args.players, **parse_options(args.game, args.option or []))
    specs = opponent_specs(game, args.seat, args.opponents)
    if args.seed is not None and args.seed + args.deals - 1 > MAX_SEED:
        raise CommandError(f"--seed: game k plays seed + k, which must stay below 2**64; got --seed {args.seed} "
                           f"with --deals {args.deals}")
    if args.log is not None:
        check_output_file(args.log, "--log", args.force)
    bots = make_bots(game, specs)
    env = open_table(game, bots, args.log)
    tg = TerminalGame(env, args.seat, bots, args.seed, unicode=not args.ascii)
    tg.say(f"{game.name}, {game.num_players} players: you are {seat_name(args.seat)}; "
           + ", ".join(f"{seat_name(s)} is {spec}" for s, spec in specs.items()))
    played = 0
    try:
        for k in range(args.deals):
            if args.deals > 1:
                tg.say(f"\n######## Game {k + 1} of {args.deals} ########")
            tg.play(None if args.seed is None else args.seed + k)
            played += 1
    except (Quit, KeyboardInterrupt):  # 'q', the end of the input (Ctrl-D) or Ctrl-C, at a prompt or not
        tg.say("\nYou left the table.")
    finally:
        env.close()
    if played > 1:
        tg.say(f"\nTotal over {played} games ({tg.unit}): "
               + ", ".join(f"{tg.who(s)} {round(r, 3):+g}" for s, r in enumerate(tg.totals)))
    if args.log:
        tg.say(f"Game log written to {args.log} (cardgym replay {args.log})")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play one seat of a game in the terminal against bots",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", choices=sorted(GAMES))
    add_seat_options(p)
    p.add_argument("--deals", type=count(MAX_DEALS), default=1,
                   help=f"episodes to play in a row (1 to {MAX_DEALS:,}; default 1)")
    p.add_argument("--ascii", action="store_true", help="suits as letters c d h s instead of symbols")
    p.set_defaults(func=run)
