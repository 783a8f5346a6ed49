"""One person's seat against bots, as the browser sees it (``cardgym serve``): the game, the bots' moves and what
the page may show.

The person's seat sees what ``cardgym play`` shows it and nothing more: the table drawn from that seat's observation
(:func:`envs.scene.scene`, :func:`envs.drawing.draw`: its hand, the public cards, chips; C12), the log's lines as it
may know them (:func:`envs.narration.line_html`: another seat's secret choice named ``select (hidden)``) and its
legal actions when it is to act. The log's header, which holds the whole deck, is never sent. The bots move as soon
as it is their turn (:func:`training.human_seat.bot_action`). Every game is recorded by the env's
:class:`~envs.gamelog.GameRecorder`, the same log ``cardgym play --log`` writes.

A posted move names the decision it answers (:attr:`BrowserGame.decision`), so a second click on an old page
changes nothing; a move that is not one of the person's legal actions now is refused with a :class:`MoveError`,
the game unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.aec import CardGymEnv
from envs.drawing import draw
from envs.gamelog import public_view, seat_name
from envs.html import colour_text
from envs.narration import highlight, line_html
from envs.scene import scene
from training.cli_args import MAX_SEED
from training.human_seat import bot_action


class MoveError(ValueError):
    """A posted move or request that the game cannot take now (one line; nothing changed)."""


class BrowserGame:
    """Seat ``seat`` played from a browser against ``bots`` on ``env`` (from :func:`training.human_seat.open_table`);
    game ``k`` (0, 1, …) is dealt from seed ``seed + k`` (``None``: random)."""

    def __init__(self, env: CardGymEnv, seat: int, bots: dict[int, Any], seed: int | None) -> None:
        self.env, self.game, self.seat, self.bots, self.seed = env, env.game, seat, bots, seed
        self.rng = np.random.default_rng(seed)
        self.view = public_view(self.game.name)
        self.games = 0
        self.decision = 0
        """Counts the person's decisions and the deals: a posted move must name the current one."""
        self._new_from = 1

    @property
    def over(self) -> bool:
        return bool(self.env.state_.done[0])

    def deal(self) -> None:
        """Deal the next game; the bots play until it is the person's turn or the game is over."""
        self.env.reset(seed=None if self.seed is None else (self.seed + self.games) % (MAX_SEED + 1))
        self.games += 1
        self.decision += 1
        self._new_from = 1
        self._bots_play()

    def new_game(self, decision: Any) -> None:
        """The person asks for the next game, which they may once this one is over."""
        self._check_decision(decision)
        if not self.over:
            raise MoveError("this game is not over yet: finish it first")
        self.deal()

    def act(self, action: Any, decision: Any) -> None:
        """The person's move: ``action`` (an action id) at decision ``decision``; then the bots play."""
        self._check_decision(decision)
        if self.over:
            raise MoveError("the game is over: ask for a new game")
        if not isinstance(action, int) or isinstance(action, bool):
            raise MoveError(f"an action is an integer id, got {str(action)[:40]!r}")
        if int(self.env.state_.current_player[0]) != self.seat or action not in self.env.legal_actions():
            raise MoveError(f"action {action} is not one of your legal actions now")
        self._new_from = len(self.env.recorder.lines)
        self.env.step(action)
        self.decision += 1
        self._bots_play()

    def _check_decision(self, decision: Any) -> None:
        if decision != self.decision:
            raise MoveError(f"this page is out of date (it answers decision {str(decision)[:20]}, the game is at "
                            f"{self.decision}): reload it")

    def _bots_play(self) -> None:
        state = self.env.state_
        while not bool(state.done[0]) and int(state.current_player[0]) != self.seat:
            seat = int(state.current_player[0])
            self.env.step(bot_action(self.env, self.bots[seat], seat, self.rng))

    def page_state(self) -> dict[str, Any]:
        """What the page shows now, as JSON: the drawn table with the last move highlighted, the game's moves so far
        (``new_from``: the first one since the person's last decision), the legal actions when it is the person's
        turn, the decision they answer and whether the game is over."""
        state, lines = self.env.state_, self.env.recorder.lines[1:]  # never the header: it holds the whole deck
        last = next((line for line in reversed(lines) if line["type"] in ("step", "deal")), None)
        yours = not self.over and int(state.current_player[0]) == self.seat
        legal = self.env.legal_actions() if yours else []
        return {
            "title": f"{self.view.title}, {self.game.num_players} players — you are {seat_name(self.seat)}",
            "table": draw(scene(self.game, state, self.seat), highlight(last, self.view, self.seat)),
            "moves": [line_html(line, self.view, self.seat) for line in lines],
            "new_from": self._new_from - 1,
            "legal": [{"action": int(a), "label": colour_text(self.game.action_name(int(a)))} for a in legal],
            "decision": self.decision,
            "over": self.over,
        }
