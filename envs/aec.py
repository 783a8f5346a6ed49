"""One PettingZoo AEC face for every cardgym game: the batched core of the game at batch size 1.

``CardGymEnv(game)`` wraps any :class:`~envs.core.game.BatchedGame`. Agents are ``player_0 … player_{n-1}``
(common.md C6). Each observation is ``{"observation": float32 vector, "action_mask": int8 vector}``; the mask is all
zeros for an agent whose turn it is not. Rewards (C11) of every step, forced moves included, go to every seat and
accumulate until that agent acts again, as in PettingZoo classic; chips moved while dealing (antes) come with the
first step's rewards, since PettingZoo has no rewards at reset. ``reset(seed, options)`` accepts
``options={"deck": [card ids in dealing order], "dealer": seat}`` to stack a deal, or ``options={"decks": [deck of
deal 1, deck of deal 2, …]}`` to stack the first deals of a multi-deal episode. As in Gymnasium, ``reset(seed=s)``
deals the table seeded ``s`` and a later ``reset()`` without a seed deals the next table drawn from ``s``
(:func:`envs.core.rng.episode_seeds`), so a run seeded once is reproducible (C7); a first reset without any seed
takes its seed from the operating system's entropy.

``step(action)`` takes an action id: a Python or numpy integer, or a 1-element integer array (what SB3's
``predict`` returns). Anything else — floats, bools, strings, arrays of another size, ids outside the action space —
raises :class:`~envs.core.game.IllegalActionError` with the env unchanged, as does an action the mask forbids.
Stepping, observing, ``last()`` or rendering before the first ``reset`` raises
:class:`~envs.core.checks.ResetNeededError`, and so does stepping once every agent of a finished episode has been
removed.

After every step (and reset) each agent's ``infos[agent]["forced_moves"]`` lists the moves the engine made because
they had no alternative (C8), in order: ``{"agent": "player_2", "action": 107, "name": "continue run (9♠)"}``.

``seat_views=True`` keeps every seat's :class:`~envs.seatview.SeatView` (its observations after each step and the
public actions of the deal): ``env.seat_view(agent)`` hands it to an agent that searches (``wants_seat_view``,
:func:`envs.core.agent.call_agent`).

``log_path="game.jsonl"`` (or ``env.recorder = GameRecorder(path)``) records every game as JSON Lines
(:mod:`envs.gamelog`); ``render_mode="html"`` makes ``render()`` return an HTML table of the cards, which is also
how the env shows in a notebook (``_repr_html_``), as the player to act sees it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core.checks import ArgumentError, ResetNeededError, check_int, is_int, show
from envs.core.game import BatchedGame, IllegalActionError
from envs.core.rng import episode_seeds, normalize_seeds
from envs.gamelog import GameRecorder
from envs.registry import env_version
from envs.seatview import SeatView, SeatViews

RESET_OPTIONS = ("deck", "decks", "dealer")


_TABLE_0 = np.zeros(1, np.int64)
"""The one table of the face's state."""


class CardGymEnv(AECEnv):
    """A PettingZoo AEC environment over one table of a batched game core."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "html"], "is_parallelizable": False,
                                "render_fps": 1}

    def __init__(self, game: BatchedGame, render_mode: str | None = None, log_path: str | Path | None = None,
                 seat_views: bool = False) -> None:
        if not isinstance(game, BatchedGame):
            raise ArgumentError(f"game must be a game core (envs.registry.make_game, e.g. make_game(\"tripoli\")), "
                                f"got {show(game)}")
        if render_mode is not None and (not isinstance(render_mode, str)
                                        or render_mode not in self.metadata["render_modes"]):
            raise ArgumentError(f"render_mode must be None, 'human', 'ansi' or 'html', got {show(render_mode)}")
        if log_path is not None and not isinstance(log_path, (str, os.PathLike)):
            raise ArgumentError(f"log_path must be None or a file path (a str or a pathlib.Path), got {show(log_path)}")
        super().__init__()
        self.game = game
        self.recorder: GameRecorder | None = None if log_path is None else GameRecorder(log_path)
        """Records each game (JSON Lines, :mod:`envs.gamelog`) when set."""
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "name": env_version(game.name)}
        self.possible_agents = [f"player_{s}" for s in range(game.num_players)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        self._seat_rows = [np.full(1, s, np.int64) for s in range(game.num_players)]  # observe's seat argument
        self._action_row = np.zeros(1, np.int64)  # step's action argument
        obs_box = spaces.Box(-np.inf, np.inf, shape=(game.observation_size,), dtype=np.float32)
        mask_box = spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8)
        self._observation_space = spaces.Dict({"observation": obs_box, "action_mask": mask_box})
        self._observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self.state_ = None
        self._seeded: tuple[np.ndarray, int] | None = None  # (seed of the last seeded reset, unseeded resets since)
        if not isinstance(seat_views, (bool, np.bool_)):
            raise ArgumentError(f"seat_views must be True or False, got {show(seat_views)}")
        self._views = SeatViews(game) if seat_views else None

    # ----- spaces ------------------------------------------------------------------------------------------------
    def _seat(self, agent: str) -> int:
        """The seat of ``agent`` (``player_<seat>``)."""
        if not isinstance(agent, str) or agent not in self.agent_name_mapping:
            raise ArgumentError(f"agent must be one of {', '.join(self.possible_agents)}, got {show(agent)}")
        return self.agent_name_mapping[agent]

    def observation_space(self, agent: str) -> spaces.Dict:
        self._seat(agent)
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        self._seat(agent)
        return self._action_spaces[agent]

    # ----- episode -----------------------------------------------------------------------------------------------
    def _need_state(self, what: str) -> None:
        if self.state_ is None:
            raise ResetNeededError(f"{self.metadata['name']}: call reset() before {what}")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if options is not None and not isinstance(options, Mapping):
            raise ArgumentError(f"options must be None or a dict with keys {list(RESET_OPTIONS)}, got {show(options)}")
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            # PettingZoo passes option dicts through wrappers (its api_test sends {"options": 1}), so other keys are
            # not an error here; they are named so that a typo does not go unnoticed.
            warnings.warn(f"reset ignores unknown option(s) {unknown}; this env reads {list(RESET_OPTIONS)}",
                          stacklevel=2)
        deck = options.get("deck")
        if options.get("decks") is not None:
            if deck is not None:
                raise ArgumentError("options: give 'deck' (the first deal's) or 'decks' (one per deal), not both")
            deck = options["decks"]
            if isinstance(deck, (list, tuple, np.ndarray)) and np.ndim(deck) == 2:
                deck = np.asarray(deck)[None]  # one table, one deck per deal
        dealer = options.get("dealer")
        last = self.game.num_players - 1
        if dealer is not None:
            dealer = check_int(dealer, "options['dealer']", 0, last, allowed=f"a seat 0..{last}")
        if seed is not None or self._seeded is None:  # a seed, or the first reset (entropy from the system)
            base, episode = normalize_seeds(seed, 1).copy(), 0
            seeds = base
        else:
            base, episode = self._seeded[0], self._seeded[1] + 1
            seeds = episode_seeds(base, episode)
        if deck is None and dealer is None and self.state_ is not None:
            self.game.redeal(self.state_, _TABLE_0, seeds)  # the same deal as init(seeds), without new arrays
        else:
            self.state_ = self.game.init(seeds, decks=deck, dealers=dealer)
        self._seeded = (base, episode)
        self.agents = list(self.possible_agents)
        # Chips that change hands while dealing (antes) belong to the episode's return (C11), but PettingZoo has no
        # rewards at reset: they are reported with the first step's rewards (at once if the deal ends the episode).
        self._reset_rewards = self.state_.rewards[0].astype(float).copy()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        if bool(self.state_.terminated[0] | self.state_.truncated[0]):
            self.rewards = {a: float(self._reset_rewards[s]) for a, s in self.agent_name_mapping.items()}
            self._cumulative_rewards = dict(self.rewards)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._report_forced_moves()
        if self.recorder is not None:
            self.recorder.begin(self.game, self.state_, deck, dealer)
        if self._views is not None:
            self._views.begin(self.state_, _TABLE_0, _TABLE_0, [list(range(self.game.num_players))])
        self._sync_after_step()

    def _action_id(self, action: Any) -> int:
        """The action id in ``action``: an integer or a 1-element integer array (SB3's ``predict``)."""
        if isinstance(action, np.ndarray) and action.ndim <= 1 and action.size == 1:
            action = action.reshape(()).item() if action.dtype.kind in "iu" else action
        last = self.game.num_actions - 1
        if not (is_int(action) and 0 <= action <= last):
            raise IllegalActionError(
                f"{self.game.name}: action must be an action id 0..{last} (an int or a 1-element integer array), "
                f"got {show(action)}"
            )
        return int(action)

    def step(self, action: int | np.ndarray | None) -> None:
        self._need_state("step()")
        agent = self.agent_selection
        if not self.agents:
            raise ResetNeededError(f"{self.metadata['name']}: the episode is over and every agent is done; "
                                   "call reset() before step()")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._action_id(action)
        seat = int(self.state_.current_player[0])
        self._action_row[0] = action
        self.game.step(self.state_, self._action_row)
        if self.recorder is not None:
            self.recorder.record(self.state_, seat, action)
        if self._views is not None:
            self._views.record(self.state_, _TABLE_0, _TABLE_0, np.array([seat]), self._action_row)
        self._cumulative_rewards[agent] = 0.0
        step_rewards = self.state_.rewards[0]
        if self._reset_rewards is not None:  # the first step also reports the chips moved by the deal
            step_rewards = step_rewards + self._reset_rewards
            self._reset_rewards = None
        self.rewards = {a: float(step_rewards[s]) for a, s in self.agent_name_mapping.items()}
        self._accumulate_rewards()
        self._report_forced_moves()
        self._sync_after_step()
        if self.render_mode == "human":
            self.render()

    def _report_forced_moves(self) -> None:
        """C8: every agent's ``infos`` lists the forced moves of the last step (or of the reset), in order, as
        ``{"agent": "player_s", "action": id, "name": readable name}``."""
        moves = [{"agent": self.possible_agents[m.seat], "action": m.action, "name": m.name}
                 for m in self.game.forced_moves(self.state_, 0)]
        self.infos = {a: {"forced_moves": list(moves)} for a in self.agents}

    def _sync_after_step(self) -> None:
        if bool(self.state_.terminated[0]) or bool(self.state_.truncated[0]):
            term, trunc = bool(self.state_.terminated[0]), bool(self.state_.truncated[0])
            self.terminations = dict.fromkeys(self.agents, term)
            self.truncations = dict.fromkeys(self.agents, trunc)
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[int(self.state_.current_player[0])]

    # ----- observation -------------------------------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat(agent)
        self._need_state("observe()")
        obs = self.game.observe(self.state_, self._seat_rows[seat])[0]
        if seat == int(self.state_.current_player[0]):
            mask = self.state_.legal_action_mask[0].astype(np.int8)
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def seat_view(self, agent: str) -> SeatView:
        """The :class:`~envs.seatview.SeatView` of ``agent`` for the deal being played (needs ``seat_views=True``)."""
        seat = self._seat(agent)
        self._need_state("seat_view()")
        if self._views is None:
            raise ArgumentError("seat_view: this env keeps no seat views; build it with seat_views=True")
        return self._views.views(_TABLE_0, np.array([seat]))[0]

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._need_state("last()")
        if self.agent_selection not in self._cumulative_rewards:
            raise ResetNeededError(f"{self.metadata['name']}: the episode is over and every agent is done; "
                                   "call reset() before last()")
        return super().last(observe)

    def action_name(self, action: int) -> str:
        """Readable name of an action id ``0..num_actions-1``, e.g. ``"bet 3"``."""
        return self.game.action_name(action)

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to act."""
        self._need_state("legal_actions()")
        return [int(a) for a in np.flatnonzero(self.state_.legal_action_mask[0])]

    # ----- render ------------------------------------------------------------------------------------------------
    def render(self) -> str | None:
        self._need_state("render()")
        if self.render_mode is None:
            return None
        viewer = int(self.state_.current_player[0])
        if self.render_mode == "html":
            return self._repr_html_()
        text = self.game.render_table(self.state_, 0, None if viewer < 0 else viewer, unicode=True)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _repr_html_(self) -> str:
        """The table as an HTML table of its cards, as the player to act sees it (public only when it is over)."""
        from envs.html import table_html

        if self.state_ is None:
            return f"<p>{self.game.name}, {self.game.num_players} players (not reset yet)</p>"
        viewer = int(self.state_.current_player[0])
        return table_html(self.game, self.state_, 0, None if viewer < 0 else viewer)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper (what ``env()`` returns), with ``last``, ``agents`` and
    ``agent_selection`` handed straight to the env: the stock wrapper runs PettingZoo's ``last`` on itself and reads
    every attribute through two ``__getattr__`` levels, about eight times per decision. Same checks: before
    ``reset`` they raise what the stock wrapper raises."""

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self.env.agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.agent_selection

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)
