"""Golden playthroughs (as OpenSpiel's): whole games of every game, the even seats played by the game's heuristic
and the odd seats by uniformly random legal actions, each decision drawn from a generator seeded by (seed, step),
recorded as game logs in tests/golden/<game>.jsonl. tests/test_golden.py replays each committed log against the
core (``verify``) and plays the same games again, which must write the same file byte for byte: any change of
behaviour of a core shows as a diff of these files.

    python -m tests.golden          # regenerate after an intended change of rules (and bump the env's _vN)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import make_agent
from envs.aec import CardGymEnv
from envs.registry import GAMES, make_game

GOLDEN = Path(__file__).parent / "golden"
CASES: dict[str, list[tuple[int, dict[str, Any], int]]] = {
    "tripoli": [(4, {}, 1), (3, {"num_deals": 2, "pay_suit": "auction"}, 2), (6, {"cosmo": True}, 3),
                (5, {"final_round": "pots", "num_deals": 2}, 4)],
    "triolet": [(4, {}, 1), (3, {"faceup_sets": True, "show_failed_facedown": True}, 2), (7, {}, 3)],
    "flipflop": [(4, {}, 1), (3, {"num_deals": 3, "bankroll": 6}, 2), (5, {"declare_49_50": "first_turn"}, 3),
                 (2, {"auto_forced": False}, 4)],
}
"""Per game: (players, rule options, seed) of each recorded game."""


def play(game_name: str, path: Path) -> None:
    """Play the golden games of ``game_name`` into the log file ``path``."""
    texts = []
    for k, (n, options, seed) in enumerate(CASES[game_name]):
        part = path.with_name(f"{path.name}.{k}")
        env = CardGymEnv(make_game(game_name, n, **options), log_path=part)
        heuristic, uniform = make_agent("heuristic", env.game), make_agent("random", env.game)
        env.reset(seed=seed)
        step = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None
            if not (term or trunc):
                bot = uniform if env.agent_name_mapping[agent] % 2 else heuristic
                rng = np.random.default_rng([seed, step])
                action = int(bot.act(obs["observation"][None], obs["action_mask"][None].astype(bool), rng)[0])
                step += 1
            env.step(action)
        env.close()
        texts.append(part.read_text())
        part.unlink()
    path.write_text("".join(texts))


def main() -> None:
    for name in GAMES:
        play(name, GOLDEN / f"{name}.jsonl")
        print(f"wrote {GOLDEN / f'{name}.jsonl'}")


if __name__ == "__main__":
    main()
