"""The settings of a training run, declared once: :class:`TrainConfig` (with PPO's own settings in :class:`PPOConfig`).

``cardgym train`` derives its command line from these dataclasses (:mod:`training.cmd_train`, with tyro: one flag per
field, its help the field's docstring) and reads recipes from TOML files of the same fields (:func:`load_recipe`;
``recipes/*.toml``, the PPO settings under ``[ppo]``). The defaults are the recommended recipe's
(``recipes/tripoli.toml`` repeats them). Budgets are learner decisions, so a recipe gives the same agent on any
machine for a given seed; ``minutes`` is only an optional cap. Kept free of heavy imports so the CLI starts fast.
"""

from __future__ import annotations

import dataclasses
import tomllib
import typing
from pathlib import Path
from typing import Any, Literal

from training.limits import MAX_DEALS, MAX_MINUTES, MAX_STEPS, MAX_TABLES, MAX_THREADS
from training.seats import Seats, SeatsError, parse_seats

MAX_ENV_RUNNERS = 64
"""RLlib's env-runner processes at most (``engine = "rllib:N"``)."""
MERGED = {"snapshot_every": "eval_every (every evaluation also saves a snapshot)",
          "env_runners": 'engine ("rllib:N" for N env runners)',
          "opponent_share": 'opponents (the learner\'s seats are its "learner=W" member)',
          "selfplay_share": 'opponents (the snapshots\' seats are its "snapshots=W" member)'}
"""Settings of earlier recipes that another one took over → that one: a recipe naming them is refused, saying so."""


class RecipeError(ValueError):
    """A recipe file or setting a user can fix (one line)."""


@dataclasses.dataclass
class PPOConfig:
    """PPO's own settings and the network's shape."""

    tables: int = 1024
    """Tables stepped at once."""
    rollout_steps: int = 16
    """Decisions per table between updates (a batch is about ``tables * rollout_steps`` decisions)."""
    learning_rate: float = 3e-4
    """Adam's learning rate."""
    epochs: int = 3
    """Passes over each batch."""
    minibatch_size: int = 4096
    """Decisions per gradient step (about)."""
    gamma: float = 1.0
    """Discount per decision of a seat."""
    gae_lambda: float = 0.95
    """GAE's lambda."""
    clip_coef: float = 0.2
    """The clip of the probability ratio."""
    ent_coef: float = 0.003
    """Weight of the entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient norm clip."""
    magnet_coef: float = 0.1
    """Weight of KL(policy || magnet) in the loss (:mod:`training.magnet`)."""
    magnet_stay: float = 0.9
    """Probability the magnet puts on its agent's action (the rest spread over the other legal ones)."""
    reward_scale: float = 0.1
    """Rewards are chips (points, stakes) times this."""
    features_dim: int = 256
    """Width of the shared input layer."""
    net_arch: tuple[int, ...] = (128,)
    """Hidden layers of each head."""
    advice_gain: bool = False
    """A learned number added to the advised action's logit (``agents.ppo.AdviceGain``; needs an advisor)."""
    threads: int = 1
    """Torch threads of the network's work (the update runs beside the collection, so 1 already keeps two cores busy;
    more than 1 on a busy machine only with ``OMP_WAIT_POLICY=PASSIVE``: waiting threads spin)."""


@dataclasses.dataclass
class TrainConfig:
    """One training run."""

    game: Literal["tripoli", "triolet", "flipflop"] = "tripoli"
    """Game to train on."""
    players: int = 4
    """Seats at each table."""
    decisions: int = 9_000_000
    """Learner decisions to train on (the budget; imitation comes on top)."""
    minutes: float = 0.0
    """Optional cap on the training's wall-clock minutes (0: none; the budget is ``decisions``)."""
    seed: int = 0
    """Seed of the weights, the tables and the samples."""
    out: str = ""
    """Folder for the model, checkpoint, snapshots, results and learning curve (``""``: ``runs/<game>``)."""
    opponents: str = "learner=25,snapshots=5,zoo=8,styles:8=4,careless-styles:8=4,careless-bots:5=4"
    """Who takes the seats of a new table, comma-separated ``spec=weight`` (:mod:`training.seats`): ``learner`` the
    policy in training, ``snapshots`` its snapshots, any other agent spec a fixed member of the pool (``zoo`` stands
    for the game's zoo, ``styles:N``, ``loose-styles:N``, ``careless-styles:N`` and ``careless-bots:N`` for N members
    of a family, sharing the weight; :mod:`training.opponent_pool`); every table keeps one learner seat."""
    exploiters: int = 0
    """Learner decisions between exploiter rounds (0: none): a best response to the learner, trained as long by
    ``cardgym exploit``'s method, joins the pool each round (:mod:`training.exploiters`)."""
    imitate: int = 300_000
    """Decisions of the magnet agent the fresh policy first imitates, so PPO starts where it plays (0: none)."""
    advisor: str = "heuristic"
    """A bot of the game's zoo whose action the network takes as an input (:mod:`agents.advice`; ``""``: none)."""
    magnet: str = "heuristic"
    """Agent spec of the first magnet (the KL term's reference) and the imitation's teacher (``""``: none)."""
    eval_every: int = 1_000_000
    """Learner decisions between evaluations; each evaluates the learner against the pool (setting its weights),
    saves a snapshot that joins the pool and becomes the magnet, and writes a checkpoint (0: none)."""
    eval_deals: int = 400
    """Duplicate deals per pool member in each evaluation."""
    final_deals: int = 4_000
    """Duplicate deals per field of the closing table."""
    resume: str = ""
    """A checkpoint (``out/checkpoint.zip``) to go on from, or a model file to start from (``model.zip`` of a run or of
    ``cardgym distill``: its network, a fresh optimiser and league; ``""``: a fresh run)."""
    engine: str = "cardgym"
    """``cardgym``: this project's learner; ``rllib``: RLlib's PPO on Ray with one env-runner process, ``rllib:N``
    with N from 1 to 64 (extra cardgym[rllib]; one learner seat per table, no imitation, snapshots or magnet)."""
    ppo: PPOConfig = dataclasses.field(default_factory=PPOConfig)
    """PPO's settings."""

    def __post_init__(self) -> None:
        check(self)

    @property
    def folder(self) -> Path:
        """Where the run writes: ``out``, or ``runs/<game>``."""
        return Path(self.out or f"runs/{self.game}")

    @property
    def seats(self) -> Seats:
        """Who takes the seats of a new table: ``opponents`` read (:mod:`training.seats`)."""
        return parse_seats(self.opponents)

    @property
    def env_runners(self) -> int:
        """RLlib's env-runner processes that ``engine`` asks for (0: the cardgym learner)."""
        return parse_engine(self.engine)


def parse_engine(engine: Any) -> int:
    """The env-runner processes ``engine`` asks for: 0 for ``cardgym``, 1 for ``rllib``, N for ``rllib:N``; raises
    :class:`RecipeError` (one line) for any other value."""
    if engine in ("cardgym", "rllib"):
        return 0 if engine == "cardgym" else 1
    count = engine.removeprefix("rllib:") if isinstance(engine, str) and engine.startswith("rllib:") else ""
    if not (count.isascii() and count.isdigit() and 1 <= int(count) <= MAX_ENV_RUNNERS):
        raise _bad("engine", engine, f"cardgym, rllib or rllib:N (N env runners from 1 to {MAX_ENV_RUNNERS})")
    return int(count)


def _bad(name: str, value: Any, allowed: str) -> RecipeError:
    return RecipeError(f"{name} must be {allowed}, got {value!r}")


def _int(cfg: Any, name: str, low: int, high: int, prefix: str = "") -> None:
    value = getattr(cfg, name)
    if type(value) is not int or not low <= value <= high:
        raise _bad(prefix + name, value, f"an integer from {low:,} to {high:,}")


def _float(cfg: Any, name: str, low: float, high: float, prefix: str = "", open_low: bool = False) -> None:
    value = getattr(cfg, name)
    ok = type(value) in (int, float) and (low < value if open_low else low <= value) and value <= high
    if not ok:
        raise _bad(prefix + name, value, f"a number in {'(' if open_low else '['}{low}, {high}]")


def check(cfg: TrainConfig) -> None:
    """Raise :class:`RecipeError` (one line) for a setting out of its range."""
    if cfg.game not in ("tripoli", "triolet", "flipflop"):
        raise _bad("game", cfg.game, "tripoli, triolet or flipflop")
    parse_engine(cfg.engine)  # raises for a bad one
    _int(cfg, "players", 2, 8)
    _int(cfg, "decisions", 1, MAX_STEPS)
    _float(cfg, "minutes", 0, MAX_MINUTES)
    _int(cfg, "seed", 0, 2**32 - 1)
    for name in ("exploiters", "imitate", "eval_every"):
        _int(cfg, name, 0, MAX_STEPS)
    _int(cfg, "eval_deals", 1, MAX_DEALS)
    _int(cfg, "final_deals", 0, MAX_DEALS)
    for name in ("out", "opponents", "advisor", "magnet", "resume"):
        if not isinstance(getattr(cfg, name), str):
            raise _bad(name, getattr(cfg, name), "a string")
    try:
        seats = parse_seats(cfg.opponents)
    except SeatsError as e:
        raise RecipeError(str(e)) from None
    if cfg.exploiters and not sum(w for _, w in seats.fixed):
        raise RecipeError("exploiters join the pool's fixed agents: give opponents a fixed agent with a positive "
                          "weight")
    if cfg.exploiters and any(c in str(cfg.folder) for c in ",="):
        raise RecipeError(f"exploiters: the out folder {str(cfg.folder)!r} cannot hold ',' or '=' (each round's best "
                          "response names a model file in it as its opponents)")
    if cfg.imitate and not cfg.magnet:
        raise RecipeError("imitate copies the magnet: give one (magnet = \"heuristic\") or imitate = 0")
    p = cfg.ppo
    if not isinstance(p, PPOConfig):
        raise _bad("ppo", p, "PPO's settings")
    _int(p, "tables", 1, MAX_TABLES, "ppo.")
    _int(p, "rollout_steps", 1, 4096, "ppo.")
    _int(p, "epochs", 1, 100, "ppo.")
    _int(p, "minibatch_size", 2, 1 << 22, "ppo.")
    _int(p, "features_dim", 1, 8192, "ppo.")
    _int(p, "threads", 1, MAX_THREADS, "ppo.")
    _float(p, "learning_rate", 0, 1, "ppo.")
    for name in ("gamma", "gae_lambda", "clip_coef"):
        _float(p, name, 0, 1, "ppo.")
    for name in ("ent_coef", "vf_coef", "magnet_coef"):
        _float(p, name, 0, 100, "ppo.")
    _float(p, "max_grad_norm", 0, 1e6, "ppo.", open_low=True)
    _float(p, "reward_scale", 0, 1e6, "ppo.", open_low=True)
    _float(p, "magnet_stay", 0, 0.999999, "ppo.", open_low=True)
    if type(p.advice_gain) is not bool:
        raise _bad("ppo.advice_gain", p.advice_gain, "true or false")
    if p.advice_gain and not cfg.advisor:
        raise RecipeError("ppo.advice_gain adds to the advised action's logit: give an advisor or advice_gain = false")
    if not isinstance(p.net_arch, tuple) or not all(type(w) is int and 1 <= w <= 8192 for w in p.net_arch):
        raise _bad("ppo.net_arch", p.net_arch, "a list of layer widths from 1 to 8192")


def _fields(cls: type) -> dict[str, Any]:
    return {f.name: typing.get_type_hints(cls)[f.name] for f in dataclasses.fields(cls)}


def _build(cls: type, table: dict[str, Any], where: str) -> Any:
    known = _fields(cls)
    merged = sorted(set(table) & set(MERGED)) if cls is TrainConfig else []
    if merged:
        raise RecipeError(f"{where}: setting {merged[0]!r} is gone: merged into {MERGED[merged[0]]}")
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise RecipeError(f"{where}: unknown setting {unknown[0]!r} (known: {', '.join(known)})")
    values = dict(table)
    if cls is TrainConfig and "ppo" in values:
        if not isinstance(values["ppo"], dict):
            raise RecipeError(f"{where}: ppo must be a table ([ppo])")
        values["ppo"] = _build(PPOConfig, values["ppo"], f"{where} [ppo]")
    if cls is PPOConfig and isinstance(values.get("net_arch"), list):
        values["net_arch"] = tuple(values["net_arch"])
    for name, value in values.items():  # TOML's integers are fine where a number is asked for
        if known[name] is float and type(value) is int:
            values[name] = float(value)
    return cls(**values)


def load_recipe(path: str | Path, cls: type = TrainConfig) -> Any:
    """The :class:`TrainConfig` of a recipe file: TOML with any of its fields (the rest keep their defaults) and
    PPO's under ``[ppo]``; another config dataclass ``cls`` likewise (its checks raising :class:`RecipeError`, e.g.
    :class:`training.distill_config.DistillConfig`). Raises :class:`RecipeError` (one line) for a missing or
    malformed file, an unknown setting or a value out of its range."""
    path = Path(path)
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecipeError(f"recipe {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RecipeError(f"recipe {path}: cannot read it ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise RecipeError(f"recipe {path}: not TOML ({e})") from None
    try:
        return _build(cls, table, f"recipe {path}")
    except TypeError as e:  # a value of the wrong kind where a dataclass is built
        raise RecipeError(f"recipe {path}: {e}") from None
    except RecipeError as e:
        raise RecipeError(str(e) if str(e).startswith("recipe ") else f"recipe {path}: {e}") from None


def to_toml(cfg: TrainConfig) -> str:
    """``cfg`` as a recipe (what :func:`load_recipe` reads back to an equal config)."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, tuple | list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(v)

    top = [f"{f.name} = {value(getattr(cfg, f.name))}" for f in dataclasses.fields(cfg) if f.name != "ppo"]
    ppo = [f"{f.name} = {value(getattr(cfg.ppo, f.name))}" for f in dataclasses.fields(cfg.ppo)]
    return "\n".join(top + ["", "[ppo]"] + ppo) + "\n"
