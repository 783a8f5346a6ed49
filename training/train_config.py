"""The settings of a training run (:mod:`training.train`), kept free of heavy imports so the CLI starts fast."""

from __future__ import annotations

import dataclasses
from typing import Any

from agents.registry import anchor_names, check_anchor_weights
from training.keep import KEEP_RULES

LEAGUE_MEASURES = ("stakes", "deals")
"""What the league weighs its members by (:attr:`TrainConfig.league_by`)."""


@dataclasses.dataclass
class TrainConfig:
    """Everything a training run depends on (``results.json`` records it)."""

    game: str = "tripoli"
    """Game name (envs.registry)."""
    engine: str = "sb3"
    """``sb3``: MaskablePPO in this process (:mod:`training.train`); ``rllib``: RLlib's PPO on Ray
    (:mod:`training.rllib_train`)."""
    env_runners: int = 1
    """With ``rllib``: RLlib env runners (Ray actors), each stepping ``tables / env_runners`` tables."""
    players: int = 4
    """Table size."""
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Rule options of the game (its config dataclass)."""
    opponents: str = "heuristic"
    """Opponent pool: comma-separated agent specs, each optionally ``spec=weight`` (``heuristic=3,random=1``)."""
    whole_table: float = 0.0
    """The share of tables where one draw from the pool plays every opponent seat (a field of copies of one agent,
    as in the evaluation); the other tables draw each seat apart."""
    selfplay: bool = False
    """Add frozen snapshots of the learner to the opponent pool, playing its most likely legal action as the closing
    table's snapshot fields do: the policy PPO starts from, then one every ``selfplay_every`` learner decisions (at
    the first evaluation past it)."""
    selfplay_every: int = 500_000
    """With self-play: learner decisions between snapshots."""
    selfplay_share: float = 0.5
    """With self-play: the share of opponent seats given to the snapshots."""
    max_snapshots: int = 5
    """With self-play: snapshots kept (the oldest is dropped)."""
    league: bool = False
    """Re-weight the opponent pool at every periodic evaluation towards the members the learner is furthest from
    beating (prioritised fictitious self-play, :mod:`training.opponent_pool`); each evaluation then covers every
    member."""
    league_floor: float = 0.05
    """With the league: the least share of its prior weight a member keeps, however well the learner does."""
    league_power: float = 2.0
    """With the league: the power of ``1 - ahead`` in a member's factor (:func:`training.opponent_pool.league_weight`;
    larger moves the seats more sharply to the members the learner handles worst)."""
    league_by: str = "stakes"
    """With the league: how far the learner is from beating a member, ``"stakes"``: its share of what its results
    and the heuristic's differ by (:attr:`training.evaluate.FieldAdvantage.ahead`), or ``"deals"``: its share of the
    deals where they differ (:attr:`~training.evaluate.FieldAdvantage.won`)."""
    imitate: int = 1_500_000
    """Teacher decisions to clone before PPO (training.imitation; at most half the time budget; 0: start PPO from
    a random policy)."""
    imitate_teacher: str = "heuristic"
    """The agent cloned by the imitation warm start."""
    imitate_epochs: int = 3
    """Passes over each chunk of demonstrations."""
    imitate_tables: int = 1024
    """Games played at once for each chunk of demonstrations (about 40 decisions each in 4-player Tripoli)."""
    total_steps: int = 50_000_000
    """Learner decisions to train for (the time budget usually stops the run first)."""
    time_budget: float = 600.0
    """Seconds of training, imitation included (the final evaluation comes on top); 0 for no limit."""
    seed: int = 0
    """Seed of the tables, the network initialisation and the evaluations."""
    out: str = "runs/tripoli"
    """Output folder."""
    tables: int = 1024
    """Tables stepped at once (the VecEnv's num_envs)."""
    n_steps: int = 16
    """Learner decisions per table per rollout (rollout size = tables * n_steps)."""
    batch_size: int = 4096
    n_epochs: int = 4
    learning_rate: float = 3e-4
    anneal_lr: float = 0.0
    """The share of the PPO phase, at its end, over which the learning rate decays linearly from
    ``learning_rate`` to 0 (the phase ends with ``total_steps`` or ``time_budget``, whichever comes first): the final
    policy then comes out of small last updates rather than wherever the last full-size update left it. 0: a
    constant rate; 1: decay from the start."""
    gamma: float = 1.0
    """No discount: a deal is short and its chips are what counts."""
    gae_lambda: float = 0.95
    ent_coef: float = 0.003
    clip_range: float = 0.2
    reward_scale: float = 0.1
    """Rewards handed to PPO are chips times this."""
    features_dim: int = 256
    """Units of the input layer shared by the policy and the value network (agents.ppo.SymlogFeatures)."""
    hints: bool = False
    """Append the game's hint features (:mod:`agents.hints`: in Tripoli hand strength, equity and pot odds; in Flip
    Flop its hand total against the opponents' estimated totals) to the policy's input; the model file records
    them."""
    anchor: str = ""
    """Anchor the policy to this agent (:mod:`agents.anchor`: ``heuristic``, or one of the game's
    :data:`agents.registry.ANCHOR_BOTS`, Flip Flop's ``reader``): its action logits are the network's plus
    ``anchor_weight`` on the agent's action, and PPO trains the network as a residual; ``""`` for none. With an
    anchor, the imitation warm start fits the critic only."""
    anchor_weight: float = 4.0
    """With an anchor: the logit bonus of the anchor's action."""
    anchor_kind_weights: dict[str, float] = dataclasses.field(default_factory=dict)
    """With an anchor: another bonus where the anchor's action is of one of these kinds (action kind → bonus, the
    kinds of :func:`envs.core.game.action_kind`, e.g. ``{"draw stock": 1.5}``); ``anchor_weight`` elsewhere."""
    net_arch: tuple[int, ...] = (128,)
    """Hidden layers of the policy head and of the value head, after the shared input layer."""
    eval_every: int = 100_000
    """Learner decisions between evaluations against the heuristic."""
    eval_deals: int = 2_000
    """Deals of each periodic evaluation."""
    background_eval: bool = False
    """Play the periodic evaluations in a second process while PPO goes on (:mod:`training.background_eval`; the
    same results, taken into account one evaluation later); for a machine with a core to spare."""
    final_deals: int = 10_000
    """Deals of the closing evaluation in each field."""
    fields: str = "zoo,heldout"
    """Fields of the closing table, comma-separated agent specs, each played by ``players - 1`` copies; ``zoo``
    stands for every bot of the game's zoo (``cardgym agents``), ``heldout`` for the styles of
    :mod:`agents.heldout` that no training pool names."""
    snapshot_fields: int = 2
    """Earlier snapshots of the learner added to the closing table's fields (the policy PPO started from, then
    evenly spaced up to half-way); 0 for none."""
    keep: str = "last"
    """The policy the run saves as ``model.zip`` and closes on: ``"last"``, or ``"best"``, the periodic evaluation of
    the second half whose worst opponent family is best among those that beat the heuristic (:mod:`training.keep`;
    the final policy is then also saved as ``last.zip``)."""
    checkpoint_every: int = 500_000
    """Learner decisions between checkpoints."""
    resume: str | None = None
    """A checkpoint (or model) to continue from."""
    threads: int = 1
    """torch threads (0: torch's default; one is faster on a busy 2-core machine)."""
    progress: bool = True
    """Show a progress bar."""

    def __post_init__(self) -> None:
        """Refuse settings of the opponent pool, league and evaluation that cannot work, with one clear line."""
        checks = (
            ("whole_table", 0 <= self.whole_table <= 1, "a probability in [0, 1]"),
            ("selfplay_share", 0 <= self.selfplay_share < 1, "in [0, 1)"),
            ("selfplay_every", self.selfplay_every >= 1, "at least 1"),
            ("max_snapshots", self.max_snapshots >= 1, "at least 1"),
            ("league_floor", 0 < self.league_floor <= 1, "in (0, 1]"),
            ("league_power", 0 < self.league_power < float("inf"), "a positive finite number"),
            ("league_by", self.league_by in LEAGUE_MEASURES, f"one of {', '.join(LEAGUE_MEASURES)}"),
            ("keep", self.keep in KEEP_RULES, f"one of {', '.join(KEEP_RULES)}"),
            ("reward_scale", self.reward_scale > 0, "positive"),
            ("eval_every", self.eval_every >= 1, "at least 1"),
            ("eval_deals", self.eval_deals >= 1, "at least 1"),
            ("final_deals", self.final_deals >= 1, "at least 1"),
            ("snapshot_fields", self.snapshot_fields >= 0, "0 or more"),
            ("learning_rate", self.learning_rate > 0, "positive"),
            ("anneal_lr", 0 <= self.anneal_lr <= 1, "between 0 and 1"),
            ("ent_coef", self.ent_coef >= 0, "0 or more"),
            ("anchor", self.anchor in ("", *anchor_names(self.game)),
             f"\"\" or one of {', '.join(anchor_names(self.game))} for {self.game}"),
        )
        for name, ok, allowed in checks:
            if not ok:
                raise ValueError(f"{name} must be {allowed}, got {getattr(self, name)!r}")
        check_anchor_weights(self.anchor_weight, self.anchor_kind_weights)
        if self.anchor_kind_weights and not self.anchor:
            raise ValueError("anchor_kind_weights needs an anchor")
