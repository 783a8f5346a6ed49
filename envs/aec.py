"""One PettingZoo AEC face for every cardgym game (design.md: the face is the core at batch size 1).

``CardGymEnv(game)`` wraps any :class:`~envs.core.game.BatchedGame`. Agents are ``player_0 … player_{n-1}``
(common.md C6). Each observation is ``{"observation": float32 vector, "action_mask": int8 vector}``; the mask is all
zeros for an agent whose turn it is not. Rewards (C11) of every step, forced moves included, go to every seat and
accumulate until that agent acts again, as in PettingZoo classic; chips moved while dealing (antes) come with the
first step's rewards, since PettingZoo has no rewards at reset. ``reset(seed, options)`` accepts
``options={"deck": [card ids in dealing order], "dealer": seat}`` to stack a deal.

``log_path="game.jsonl"`` (or ``env.recorder = GameRecorder(path)``) records every game as JSON Lines
(:mod:`envs.gamelog`); ``render_mode="html"`` makes ``render()`` return an HTML table of the cards, which is also
how the env shows in a notebook (``_repr_html_``), as the player to act sees it.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from envs.core.game import BatchedGame, IllegalActionError
from envs.gamelog import GameRecorder

RESET_OPTIONS = ("deck", "dealer")


def env_version(game_name: str) -> str:
    """The versioned environment name of a game (``tripoli_v0``): the AEC face's ``metadata["name"]``, recorded in
    results (leagues)."""
    return f"{game_name}_v0"


class CardGymEnv(AECEnv):
    """A PettingZoo AEC environment over one table of a batched game core."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "html"], "is_parallelizable": False,
                                "render_fps": 1}

    def __init__(self, game: BatchedGame, render_mode: str | None = None, log_path: str | Path | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported; allowed: None, 'human', 'ansi', 'html'")
        self.game = game
        self.recorder: GameRecorder | None = None if log_path is None else GameRecorder(log_path)
        """Records each game (JSON Lines, :mod:`envs.gamelog`) when set."""
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "name": env_version(game.name)}
        self.possible_agents = [f"player_{s}" for s in range(game.num_players)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        obs_box = spaces.Box(-np.inf, np.inf, shape=(game.observation_size,), dtype=np.float32)
        mask_box = spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8)
        self._observation_space = spaces.Dict({"observation": obs_box, "action_mask": mask_box})
        self._action_space = spaces.Discrete(game.num_actions)
        self._observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self.state_ = None

    # ----- spaces ------------------------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[agent]

    # ----- episode -----------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            # PettingZoo passes option dicts through wrappers (its api_test sends {"options": 1}), so other keys are
            # not an error here; they are named so that a typo does not go unnoticed.
            warnings.warn(f"reset ignores unknown option(s) {unknown}; this env reads {list(RESET_OPTIONS)}",
                          stacklevel=2)
        deck = options.get("deck")
        dealer = options.get("dealer")
        self.state_ = self.game.init(
            seed,
            batch_size=1,
            decks=None if deck is None else np.asarray(deck)[None, :],
            dealers=None if dealer is None else np.asarray([dealer]),
        )
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
        self.infos = {a: {} for a in self.agents}
        if self.recorder is not None:
            self.recorder.begin(self.game, self.state_, deck, dealer)
        self._sync_after_step()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or isinstance(action, bool) or not np.issubdtype(np.asarray(action).dtype, np.integer):
            raise IllegalActionError(f"{self.game.name}: action must be an integer action id, got {action!r}")
        seat = int(self.state_.current_player[0])
        self.game.step(self.state_, np.asarray([int(action)]))
        if self.recorder is not None:
            self.recorder.record(self.state_, seat, int(action))
        self._cumulative_rewards[agent] = 0.0
        step_rewards = self.state_.rewards[0] + self._reset_rewards
        self._reset_rewards = np.zeros_like(self._reset_rewards)
        self.rewards = {a: float(step_rewards[s]) for a, s in self.agent_name_mapping.items()}
        self._accumulate_rewards()
        self._sync_after_step()
        if self.render_mode == "human":
            self.render()

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
        seat = self.agent_name_mapping[agent]
        obs = self.game.observe(self.state_, np.asarray([seat]))[0]
        if seat == int(self.state_.current_player[0]):
            mask = self.state_.legal_action_mask[0].astype(np.int8)
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def action_name(self, action: int) -> str:
        """Readable name of an action id, e.g. ``"bet 3"``."""
        return self.game.action_name(int(action))

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to act."""
        return [int(a) for a in np.flatnonzero(self.state_.legal_action_mask[0])]

    # ----- render ------------------------------------------------------------------------------------------------
    def render(self) -> str | None:
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
