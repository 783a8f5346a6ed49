"""Rule options of Flip Flop (shared/rules/flipflop.md); each field is one configuration key of the rules file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from envs.core.config import ConfigError, validate


@dataclass(frozen=True)
class FlipFlopConfig:
    """Flip Flop rule options. Defaults are the rules' defaults: one deal, no bankroll limit (F23).

    ``num_deals: int or until_one_left`` of F23 is two fields: ``num_deals`` (a fixed number of deals) and
    ``until_one_left`` (play until one player is left; then ``num_deals`` must keep its default 1).
    """

    game_name: ClassVar[str] = "flipflop"

    num_deals: int = field(default=1, metadata={"range": (1, 10_000)})
    """F23: deals in an episode; with more than one, pots carry, the dealer moves left and bankrolls apply."""
    until_one_left: bool = False
    """F23/F25: the session goes on until one player is left (no deal limit)."""
    bankroll: int = field(default=20, metadata={"range": (2, 1_000_000)})
    """F23: stakes each player starts a session with (used only in sessions, F24–F25)."""
    auto_forced: bool = True
    """C8: resolve decisions with exactly one legal action inside the step (False asks the agent for them)."""

    def __post_init__(self) -> None:
        validate(self)
        if self.until_one_left and self.num_deals != 1:
            raise ConfigError(
                f"flipflop: option until_one_left=True cannot be combined with num_deals={self.num_deals}; "
                "allowed: num_deals=1 (the default) with until_one_left=True, or until_one_left=False"
            )

    @property
    def session(self) -> bool:
        """Whether bankroll rules F24–F25 apply (more than one deal, F23)."""
        return self.until_one_left or self.num_deals > 1
