"""Rule options of Tripoli (docs/tripoli.md); each field is one configuration key of the rules file."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import ClassVar, Literal

from envs.core.config import ConfigError, validate


@dataclass(frozen=True)
class TripoliConfig:
    """Tripoli rule options. Defaults are the rules' defaults."""

    game_name: ClassVar[str] = "tripoli"

    spare_hand: Literal["full", "swap_only", "none"] = "full"
    """T6/T8: what the dealer may do with the spare hand: keep, swap or auction it (full); keep or swap; nothing."""
    max_bid: int = field(default=20, metadata={"range": (1, 100)})
    """T7/T26: the highest bid allowed in an auction (bids are 1..max_bid chips)."""
    paycards: Literal["deal", "play"] = "deal"
    """T10/T11: pay cards paid on the deal (stage 1) or when played in the Michigan stage (Rummoli, T25)."""
    poker_select: Literal["choose", "best"] = "choose"
    """T12: players choose their five poker cards one at a time, or the engine picks each player's best five."""
    poker_opener: Literal["left_of_dealer", "dealer"] = "left_of_dealer"
    """T13: who opens the betting."""
    bet_limit: int = field(default=10, metadata={"range": (1, 100)})
    """T14: a bet or raise is 1..bet_limit chips."""
    max_raises: int = field(default=3, metadata={"range": (0, 20)})
    """T14: raises allowed after the opening bet; then only fold and call."""
    michigan_leader: Literal["poker_winner", "dealer", "left_of_dealer"] = "poker_winner"
    """T19: who makes the first lead of the Michigan stage."""
    first_lead: Literal["any", "lowest"] = "any"
    """T20: the first lead may be in any suit held, or must be the lowest card of the leader's hand."""
    lead_colours: Literal["any", "alternate"] = "any"
    """T20 (Cosmo): leads alternate colours, the first lead being the leader's lowest black card."""
    pay_suit: Literal["hearts", "auction"] = "hearts"
    """T26: hearts are the pay suit, or it is auctioned before the poker stage (implies paycards='play')."""
    sequence_start: int = field(default=8, metadata={"range": (2, 12)})
    """T27: lowest rank (face value; 11=J, 12=Q) of the three-card sequence space (8 → 8-9-10)."""
    dead_hand: Literal["hidden", "shown"] = "hidden"
    """T7: an auction winner's old hand is discarded face down (hidden) or face up, seen by every player (shown)."""
    cosmo: bool = False
    """T30: Cosmo — only the Michigan stage, pay suit and sequence drawn each deal, leads alternate colours."""
    num_deals: int = field(default=1, metadata={"range": (1, 1000)})
    """T28: deals in an episode; the layout carries over and the dealer moves left each deal."""
    final_round: Literal["poker", "pots", "share", "none"] = "poker"
    """T28: with num_deals > 1, how the layout is settled at the end: one final poker round for it all, one per
    pot (``final_pots``), shared equally, or not at all (the booleans True / False mean poker / none)."""
    final_pots: int = field(default=2, metadata={"range": (1, 9)})
    """T28: with ``final_round='pots'``, the number of pots the layout is divided into."""
    auto_forced: bool = True
    """C8: resolve decisions with exactly one legal action inside the step (False asks the agent for them)."""

    def __post_init__(self) -> None:
        if isinstance(self.final_round, bool):  # T28: the former booleans
            object.__setattr__(self, "final_round", "poker" if self.final_round else "none")
        validate(self)
        if self.final_pots != 2 and self.final_round != "pots":
            raise ConfigError(f"tripoli: option final_pots={self.final_pots!r} is used only with final_round='pots'")
        if self.cosmo:
            changed = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                       if f.name in COSMO_FIXED and getattr(self, f.name) != f.default]
            if changed:
                raise ConfigError(
                    f"tripoli: option(s) {', '.join(changed)} are not allowed with cosmo=True "
                    f"(Cosmo fixes {', '.join(COSMO_FIXED)}; T30)"
                )

    @property
    def pays_in_play(self) -> bool:
        """Whether the pay-card spaces are won during the Michigan stage (T11, T25; T26 and T30 imply it)."""
        return self.paycards == "play" or self.pay_suit == "auction" or self.cosmo

    @property
    def spare_phase(self) -> bool:
        """Whether a deal has a spare-hand phase (T6, T8; none with ``spare_hand='none'`` or Cosmo, T30)."""
        return self.spare_hand != "none" and not self.cosmo

    @property
    def alternate_leads(self) -> bool:
        """Whether Michigan leads alternate colours (T20 ``lead_colours='alternate'``; T30 Cosmo)."""
        return self.lead_colours == "alternate" or self.cosmo


COSMO_FIXED = ("spare_hand", "max_bid", "paycards", "pay_suit", "poker_select", "poker_opener", "bet_limit",
               "max_raises", "michigan_leader", "first_lead", "lead_colours", "sequence_start")
"""T30: the options that act only in stages 1–2 or that Cosmo fixes; refused with ``cosmo=True`` unless default."""
