"""Rule options of Flip Flop (docs/flipflop.md); each field is one configuration key of the rules file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from envs.core.config import ConfigError, validate


@dataclass(frozen=True)
class FlipFlopConfig:
    """Flip Flop rule options. Defaults are the rules' defaults: one deal, no bankroll limit (F23), a deal cut after
    200 turns and a session after 1000 deals (F28).

    ``num_deals: int or until_one_left`` of F23 is two fields: ``num_deals`` (a fixed number of deals) and
    ``until_one_left`` (play until one player is left; then ``num_deals`` must keep its default 1).
    """

    game_name: ClassVar[str] = "flipflop"

    num_deals: int = field(default=1, metadata={"range": (1, 10_000)})
    """F23: deals in an episode; with more than one, pots carry, the dealer moves left and bankrolls apply."""
    until_one_left: bool = False
    """F23/F25: the session goes on until one player is left (or until ``max_deals``, F28)."""
    bankroll: int = field(default=20, metadata={"range": (2, 1_000_000)})
    """F23: stakes each player starts a session with (used only in sessions, F24–F25)."""
    max_turns: int = field(default=200, metadata={"range": (1, 1_000_000)})
    """F28: a deal still going after this many turns (F13's turns, counted over the deal; a drop is a turn) is cut
    off, and the cut truncates the episode, a session's too (C13): nothing more is settled."""
    max_deals: int = field(default=1000, metadata={"range": (1, 1_000_000)})
    """F28: a session that would go on after this many deals is truncated (C13), ``num_deals`` sessions included;
    a session the rules end after that deal (``num_deals`` reached, one player left) terminates."""
    declare_49_50: Literal["deal", "first_turn"] = "deal"
    """F7: a 49 or 50 is claimed before anybody plays (every claimant pooled, F8) or only at the start of the
    claimant's own first turn (one winner). The claim is a decision of the claimant's: its one legal action is asked
    even with ``auto_forced``, so no episode is over at reset."""
    stake: float = field(default=1.0, metadata={"positive": True})
    """F26: the money value of one stake; every reward is the change of money in stakes times ``stake``."""
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
