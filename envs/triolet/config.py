"""Rule options of Le triolet (docs/triolet.md); each field is one configuration key of the rules file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from envs.core.config import validate


@dataclass(frozen=True)
class TrioletConfig:
    """Le triolet rule options. Defaults are the rules' defaults."""

    game_name: ClassVar[str] = "triolet"

    faceup_sets: bool = False
    """L12: a player on their face-up cards may play several face-up cards of one rank together (Palace style)."""
    max_turns: int = field(default=1000, metadata={"range": (1, 1_000_000)})
    """L16: the episode is truncated after this many turns of the play phase. A turn is one move on the pile — a
    play (from hand, face-up or face-down), a pick-up, forced or chosen; playing again after a burn is a new turn.
    Swap-phase decisions (L4) are not turns."""
    show_failed_facedown: bool = False
    """L13: a turned face-down card that cannot be played goes into the hand face down, known only to its owner
    (False, the source), or is shown to every player (True, as some tables play)."""
    auto_forced: bool = True
    """C8: resolve decisions with exactly one legal action inside the step (False asks the agent for them)."""

    def __post_init__(self) -> None:
        validate(self)
