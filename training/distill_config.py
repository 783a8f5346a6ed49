"""The settings of a run of expert iteration (``cardgym distill``, :mod:`training.distill`), declared once.

Kept free of heavy imports so the command line starts fast and installs without the training extra can show its
help."""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

from training.config import RecipeError
from training.limits import MAX_DEALS, MAX_WORKERS


class DistillError(RecipeError):
    """A distillation setting a user can fix (one line)."""


@dataclasses.dataclass
class DistillConfig:
    """One run of expert iteration: rounds of search from the student and distillation of the search into it."""

    game: Literal["tripoli", "triolet", "flipflop"] = "tripoli"
    """Game of the student."""
    players: int = 4
    """Seats at each table."""
    student: str = "trained"
    """The model file improved: ``trained`` (the agent that ships for the game) or a path to a model file."""
    playouts: int = 200
    """The teacher's search budget: playouts per decision (as ``search:N``)."""
    opponents: str = "zoo,styles:8,careless-styles:4,careless-bots:5"
    """The fields the teacher plays, each at every other seat of its own tables: the fixed agents of an
    ``opponents`` list (``zoo``, ``styles:N``, … as in ``cardgym train``; weights are ignored)."""
    deals: int = 2_000
    """Duplicate deals per field and round."""
    rounds: int = 1
    """Rounds of search and distillation; each searches from the model the round before made."""
    epochs: int = 4
    """Passes over each round's decisions."""
    learning_rate: float = 3e-4
    """Adam's learning rate."""
    final_deals: int = 4_000
    """Duplicate deals per field of the closing table, the student and the result against ``reference`` (0: none)."""
    reference: str = "best"
    """The agent the closing table measures against: ``best`` (the game's best bot, the search's rollout) or an
    agent spec (``heuristic`` for ``make train``'s goal)."""
    seed: int = 0
    """Seed of the collection's deals and of the fit."""
    workers: int = 2
    """Processes that play the collection's fields (1: this one)."""
    out: str = "runs/distill"
    """Output folder, new or empty."""

    def __post_init__(self) -> None:
        ints = [("players", 2, 8), ("playouts", 1, 100_000), ("deals", 1, MAX_DEALS), ("rounds", 1, 100),
                ("epochs", 1, 1_000), ("final_deals", 0, MAX_DEALS), ("seed", 0, 2**32 - 1),
                ("workers", 1, MAX_WORKERS)]
        for name, low, high in ints:
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise DistillError(f"{name} must be an integer from {low:,} to {high:,}, got {value!r}")
        rate = self.learning_rate
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not math.isfinite(rate) or not 0 < rate < 1:
            raise DistillError(f"learning_rate must be a number between 0 and 1, got {rate!r}")
        if self.game not in ("tripoli", "triolet", "flipflop"):
            raise DistillError(f"game must be tripoli, triolet or flipflop, got {self.game!r}")
        for name in ("student", "opponents", "reference", "out"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise DistillError(f"{name} must be given (a non-empty string)")
