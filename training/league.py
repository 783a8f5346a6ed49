"""Leagues: a field of agents ranked by duplicate deals over a seat-balanced schedule of lineups.

``run_league(LeagueConfig(game, num_players, agents, deals, seed), out=DIR, executor=...) -> LeagueResult``

- **Schedule** (:mod:`training.league_schedule`): lineups of ``n`` distinct agents out of ``A >= n``; every agent in
  the same number of lineups, every pair meeting, as evenly as possible; a pure function of ``(A, n, seed)``.
- **Deals**: deal group ``g`` is one table seed (``training.evaluate.group_seeds(seed, G)``) that *every* lineup plays
  in all ``n`` rotations (:func:`training.evaluate.play_duplicate`). Every agent thus plays the same cards, in every
  seat, and the deal group is the independent unit of every interval. ``deals`` counts episodes and is rounded up
  to whole groups: ``G = ceil(deals / (lineups * n))``.
- **Shards**: a lineup × a block of ``shard_groups`` deal groups, a task that is a pure function of the config and
  its index (the agents' random stream is ``default_rng([seed, lineup, block])``), run by any executor of
  :mod:`training.executors`. With ``out``, each finished shard is appended to ``league_<game>_<n>p.shards.jsonl``
  (after a header that fingerprints the config and the versions); a run with the same config and versions skips the
  shards already there, so an interrupted league continues where it stopped and ends with the same result.
- **Statistics** (:mod:`training.league_stats`): each agent's mean result per deal with a bootstrap 95% interval
  over deal groups, an OpenSkill Plackett–Luce rating from each deal's finishing order, and the pairwise payoff
  matrix with the ranking it implies.

The JSON (``league_<game>_<n>p.json``) holds the config, the schedule, the deal seeds, the agents with their specs and
versions, the environment and cardgym versions, every deal's result, the ratings and the matrix: a pure function of
the arguments (no timings), the same whichever executor played it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.checks import U64_MAX
from envs.logcheck import describe, is_amount
from envs.registry import env_version, make_game
from training.evaluate import UNITS, group_seeds, play_duplicate
from training.executors import Executor, InProcess, TableSpec
from training.league_report import league_table
from training.league_schedule import pair_meetings, schedule_lineups
from training.league_stats import LeagueStats, league_stats
from training.limits import MAX_DEALS, MAX_SHARD_GROUPS

RETURNS_LAYOUT = ("returns[g][r][i]: the return of the lineup's i-th agent in rotation r of deal group g, where it "
                  "sits at seat (i + r) % n")
"""How the per-deal results of a lineup are laid out in the JSON."""


class LeagueError(ValueError):
    """A league that cannot be played as asked: a bad config, an output folder holding another league or a finished
    one, a shard log that is not one of this league's (the message names its file and line)."""


@dataclasses.dataclass(frozen=True)
class LeagueConfig:
    """Everything a league's result depends on."""

    game: str
    """Game name (``envs.registry``)."""
    num_players: int
    """Seats per table."""
    agents: tuple[str, ...]
    """Agent specs (``agents.registry``), at least ``num_players`` and all different."""
    deals: int = 20_000
    """Episodes to play in all, rounded up to whole deal groups (each played by every lineup in every rotation)."""
    seed: int = 0
    """Seed of the schedule, the deals, the agents' random streams and the bootstrap."""
    options: tuple[tuple[str, Any], ...] = ()
    """Rule options of the game as ``(key, value)`` pairs (``TableSpec`` form: only values that are not defaults)."""
    shard_groups: int = 512
    """Deal groups per shard (a shard plays ``shard_groups * num_players`` tables of one lineup at once)."""
    bootstrap: int = 2000
    """Bootstrap resamples of the deal groups for the 95% intervals."""

    def validate(self) -> None:
        """Raise :class:`LeagueError` with one line naming the first bad field (counts within the bounds of
        :mod:`training.limits`, the seed 0..2**64 - 1)."""
        for name, low, high, allowed in (
            ("num_players", 1, None, "a positive integer"),
            ("deals", 1, MAX_DEALS, f"an integer from 1 to {MAX_DEALS:,}"),
            ("shard_groups", 1, MAX_SHARD_GROUPS, f"an integer from 1 to {MAX_SHARD_GROUPS:,}"),
            ("bootstrap", 1, None, "a positive integer"),
            ("seed", 0, U64_MAX, "an integer from 0 to 2**64 - 1"),
        ):
            value = getattr(self, name)
            if (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low
                    or (high is not None and value > high)):
                raise LeagueError(f"{name} must be {allowed}, got {value!r}")
        if isinstance(self.agents, str) or not all(isinstance(a, str) and a.strip() for a in self.agents):
            raise LeagueError(f"agents must be a list of agent specs, got {self.agents!r}")
        duplicates = sorted({a for a in self.agents if self.agents.count(a) > 1})
        if duplicates:
            raise LeagueError(f"each agent enters a league once; repeated: {' '.join(duplicates)}")
        if len(self.agents) < self.num_players:
            raise LeagueError(
                f"a league at {self.num_players} seats needs at least {self.num_players} different agents, got "
                f"{len(self.agents)}; to play fewer agents against each other use cardgym eval with repeated specs"
            )


@dataclasses.dataclass(frozen=True)
class LeaguePlan:
    """The schedule and its split into shards (derived from a config)."""

    lineups: tuple[tuple[int, ...], ...]
    """Agent indices of each lineup, in seat order for rotation 0."""
    groups: int
    """Deal groups every lineup plays."""
    shard_groups: int
    """Deal groups per shard."""

    @property
    def blocks(self) -> int:
        """Shards per lineup."""
        return math.ceil(self.groups / self.shard_groups)

    @property
    def shards(self) -> int:
        return len(self.lineups) * self.blocks

    def shard(self, index: int) -> tuple[int, int, int]:
        """``(lineup, first group, end group)`` of shard ``index`` (lineup-major)."""
        lineup, block = divmod(index, self.blocks)
        first = block * self.shard_groups
        return lineup, first, min(first + self.shard_groups, self.groups)


def plan_league(config: LeagueConfig) -> LeaguePlan:
    """The lineups of ``config`` and the number of deal groups each plays."""
    n = config.num_players
    lineups = tuple(schedule_lineups(len(config.agents), n, int(config.seed)))
    groups = math.ceil(int(config.deals) / (len(lineups) * n))
    return LeaguePlan(lineups, groups, int(config.shard_groups))


@dataclasses.dataclass(frozen=True)
class ShardTask:
    """One shard as plain values: what :func:`play_shard` needs, wherever it runs."""

    table: TableSpec
    """The game and the lineup's agent specs in seat order."""
    seeds: np.ndarray
    """The deal groups of the shard."""
    rng_key: tuple[int, int, int]
    """``(seed, lineup, block)``: the agents' random stream."""


def play_shard(task: ShardTask) -> tuple[np.ndarray, int]:
    """``(returns[g, r, i], decisions)`` of one shard (:func:`training.evaluate.play_duplicate`)."""
    game, agents = task.table.build()
    return play_duplicate(game, agents, task.seeds, np.random.default_rng(list(task.rng_key)))


@dataclasses.dataclass
class LeagueResult:
    """A finished league: its config, schedule, per-deal results and statistics."""

    config: LeagueConfig
    plan: LeaguePlan
    agent_info: list[dict[str, Any]]
    """Per agent: ``spec``, ``name`` and ``version`` (``None`` for an agent without one)."""
    deal_seeds: np.ndarray
    """(G,) table seed of each deal group."""
    returns: np.ndarray
    """(lineups, G, n, n) per-deal results, ``returns[l, g, r, i]`` as in :data:`RETURNS_LAYOUT`."""
    decisions: int
    """Decisions the agents took (all shards, the resumed ones included)."""
    stats: LeagueStats
    env_version: str
    cardgym_version: str
    seconds: float = 0.0
    """Wall time of this run (not part of the JSON)."""
    resumed_shards: int = 0
    """Shards read back from an earlier, interrupted run (not part of the JSON)."""

    @property
    def unit(self) -> str:
        return UNITS.get(self.config.game, "reward")

    @property
    def deals(self) -> int:
        """Episodes played."""
        return int(self.returns.shape[0] * self.returns.shape[1] * self.returns.shape[2])

    @property
    def names(self) -> list[str]:
        return [a["spec"] for a in self.agent_info]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: everything but the timings."""
        return {
            "game": self.config.game,
            "num_players": self.config.num_players,
            "options": dict(self.config.options),
            "env_version": self.env_version,
            "cardgym_version": self.cardgym_version,
            "config": {**dataclasses.asdict(self.config), "options": dict(self.config.options),
                       "agents": list(self.config.agents)},
            "unit": self.unit,
            "agents": self.agent_info,
            "schedule": {
                "lineups": [list(lineup) for lineup in self.plan.lineups],
                "lineup_agents": [[self.names[a] for a in lineup] for lineup in self.plan.lineups],
                "pair_meetings": pair_meetings(list(self.plan.lineups), len(self.names)).tolist(),
                "deal_groups": self.plan.groups,
                "deals": self.deals,
                "shard_groups": self.plan.shard_groups,
                "shards": self.plan.shards,
                "deal_seeds": [int(s) for s in self.deal_seeds],
            },
            "decisions": self.decisions,
            **self.stats.to_dict(self.names),
            "deal_results": {"layout": RETURNS_LAYOUT,
                      "returns": [self.returns[lineup].tolist() for lineup in range(len(self.plan.lineups))]},
        }

    def table(self) -> str:
        """The printed results: the ranking by rating, each agent's mean result and the payoff matrix."""
        return league_table(self)


def json_text(data: Any, indent: str = "") -> str:
    """JSON with one item per line, except that lists of plain values (one deal's results, a seed list, a matrix
    row) stay on one line."""
    inner = indent + " "
    if isinstance(data, dict) and data:
        items = [f"{inner}{json.dumps(str(k))}: {json_text(v, inner)}" for k, v in data.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(data, list) and any(isinstance(v, (dict, list)) for v in data):
        return "[\n" + ",\n".join(inner + json_text(v, inner) for v in data) + f"\n{indent}]"
    return json.dumps(data)


def league_files(out: Path, config: LeagueConfig) -> dict[str, Path]:
    """The files of a league in ``out``: ``json``, ``png`` and ``shards`` (the JSON Lines of finished shards)."""
    stem = f"league_{config.game}_{config.num_players}p"
    return {"json": out / f"{stem}.json", "png": out / f"{stem}.png", "shards": out / f"{stem}.shards.jsonl"}


class ShardLog:
    """The JSON Lines file of finished shards: a header line (the run's fingerprint), then one line per shard.
    Nothing is written before the first shard finishes."""

    def __init__(self, path: Path, fingerprint: dict[str, Any], plan: LeaguePlan, n: int) -> None:
        self.path, self.fingerprint, self.plan, self.n = path, fingerprint, plan, n
        self._fresh = True  # the next append starts the file
        self._valid_bytes: int | None = None  # where the records read back end (a line cut short may follow)

    def read(self) -> dict[int, tuple[np.ndarray, int]]:
        """The shards already played, each line checked field by field against the plan (:func:`shard_record`); a
        last line cut short by an interruption does not count (that shard is played again). Raises
        :class:`LeagueError` if the file belongs to another league, or naming the file, the line and the field if a
        line is not a shard of this one."""
        data = self.path.read_bytes() if self.path.exists() else b""
        data = data[:data.rfind(b"\n") + 1]
        lines = data.decode(errors="replace").splitlines()
        if not lines:
            return {}
        try:
            old = json.loads(lines[0])["fingerprint"]
        except (ValueError, RecursionError, KeyError, TypeError):  # not JSON, or not a header
            old = None
        if old != self.fingerprint:
            differ = "not a shard log" if not isinstance(old, dict) else ", ".join(_differences(old, self.fingerprint))
            raise LeagueError(
                f"{self.path} holds the shards of another league ({differ}); use --force to start again or another "
                "--out"
            )
        done: dict[int, tuple[np.ndarray, int]] = {}
        read_at: dict[int, int] = {}
        for number, line in enumerate(lines[1:], start=2):
            try:
                index, returns, decisions = shard_record(_json_line(line), self.plan, self.n)
                if index in done:
                    raise LeagueError(f"shard {index} again (it is on line {read_at[index]} already)")
            except LeagueError as e:
                raise LeagueError(f"{self.path}, line {number}: {e}") from None
            done[index], read_at[index] = (returns, decisions), number
        self._fresh, self._valid_bytes = False, len(data)
        return done

    def append(self, index: int, returns: np.ndarray, decisions: int) -> None:
        """Record a finished shard (flushed and synced: it survives the process being killed)."""
        lineup, first, end = self.plan.shard(index)
        record = {"shard": index, "lineup": lineup, "groups": [first, end], "decisions": int(decisions),
                  "returns": returns.tolist()}
        if self._fresh:  # a new log, or --force: the header replaces whatever was there
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"fingerprint": self.fingerprint}) + "\n")
            self._fresh = False
        if self._valid_bytes is not None:
            with self.path.open("r+b") as f:
                f.truncate(self._valid_bytes)  # drop a line cut short by an interruption
            self._valid_bytes = None
        with self.path.open("ab") as f:
            f.write((json.dumps(record) + "\n").encode())
            f.flush()
            os.fsync(f.fileno())


def _json_line(text: str) -> Any:
    """The JSON value of one line of a shard log; :class:`LeagueError` if it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise LeagueError(f"not JSON ({e.msg} at column {e.colno})") from None
    except (ValueError, RecursionError) as e:  # an integer of thousands of digits, deep nesting
        raise LeagueError(f"not JSON ({str(e).splitlines()[0] if str(e) else 'nested too deeply'})") from None


SHARD_FIELDS = ("shard", "lineup", "groups", "decisions", "returns")
"""The keys of a shard log line after the header, in the order :meth:`ShardLog.append` writes them."""


def _nested_numbers(value: Any, shape: tuple[int, ...]) -> bool:
    """``value`` is lists nested to ``shape`` of finite numbers (a bool is not a number)."""
    if not shape:
        return is_amount(value)
    return isinstance(value, list) and len(value) == shape[0] and all(_nested_numbers(v, shape[1:]) for v in value)


def shard_record(record: Any, plan: LeaguePlan, n: int) -> tuple[int, np.ndarray, int]:
    """``(shard index, returns[g, r, i], decisions)`` of one parsed shard log line, every field checked against
    ``plan`` (``n`` seats): exactly the keys :data:`SHARD_FIELDS`; ``shard`` an index of the plan; ``lineup`` and
    ``groups`` that shard's; ``decisions`` an integer ≥ 0; ``returns`` ``(groups, n, n)`` nested lists of finite
    numbers (a bool is no integer or number). Raises :class:`LeagueError` naming the first bad field (the caller
    adds the file and line)."""
    if not isinstance(record, dict):
        raise LeagueError(f"a shard record is a JSON object with {', '.join(SHARD_FIELDS)}; got {describe(record)}")
    missing = [k for k in SHARD_FIELDS if k not in record]
    unknown = [k for k in record if k not in SHARD_FIELDS]
    if missing or unknown:
        raise LeagueError(f"a shard record has the keys {', '.join(SHARD_FIELDS)}; "
                          + (f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(unknown)}"))

    def check(key: str, ok: bool, allowed: str) -> None:
        if not ok:
            raise LeagueError(f"{key!r} must be {allowed}, got {describe(record[key])}")

    index = record["shard"]
    check("shard", type(index) is int and 0 <= index < plan.shards, f"a shard index 0..{plan.shards - 1}")
    lineup, first, end = plan.shard(index)
    check("lineup", type(record["lineup"]) is int and record["lineup"] == lineup,
          f"{lineup}, the lineup of shard {index}")
    groups = record["groups"]
    check("groups", isinstance(groups, list) and [type(g) for g in groups] == [int, int] and groups == [first, end],
          f"[{first}, {end}], the deal groups of shard {index}")
    decisions = record["decisions"]
    check("decisions", type(decisions) is int and decisions >= 0, "an integer ≥ 0")
    shape = (end - first, n, n)
    check("returns", _nested_numbers(record["returns"], shape),
          f"{' × '.join(map(str, shape))} nested lists of finite numbers (deal group × rotation × agent)")
    return index, np.asarray(record["returns"], dtype=np.float64), decisions


def _differences(old: Any, new: Any, prefix: str = "") -> list[str]:
    """The keys (dotted) whose values differ between two fingerprints."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [d for k in sorted(set(old) | set(new), key=str)
                for d in _differences(old.get(k), new.get(k), f"{prefix}{k}.")]
    return [] if old == new else [f"{prefix.rstrip('.')} differs"]


class LeagueRun:
    """A league ready to play: arguments checked, agents built, the shards of an earlier run read back.

    ``LeagueRun(config, out, force)`` raises :class:`LeagueError` for bad arguments, when ``out`` holds another league
    (other arguments or versions) or a finished one, unless ``force`` (start again), or when its shard log is not
    one of this league's, and the errors of ``make_game`` and ``make_agent`` for bad options or agents; it writes
    nothing. :meth:`play` runs the shards left and returns the result."""

    def __init__(self, config: LeagueConfig, out: str | Path | None = None, force: bool = False) -> None:
        config.validate()
        game = make_game(config.game, num_players=config.num_players, **dict(config.options))
        self.table = TableSpec.of(game, config.agents)
        _, agents = self.table.build()  # refuses unknown agents before anything is played
        self.config = dataclasses.replace(config, agents=tuple(config.agents), options=self.table.options)
        self.agent_info = [
            {"spec": spec, "name": str(getattr(agent, "name", spec)), "version": getattr(agent, "version", None)}
            for spec, agent in zip(config.agents, agents, strict=True)
        ]
        self.plan = plan_league(self.config)
        self.env_version = env_version(config.game)
        fingerprint = json.loads(json.dumps({"config": dataclasses.asdict(self.config), "agents": self.agent_info,
                                             "env_version": self.env_version, "cardgym_version": self.table.version}))
        self.files = None if out is None else league_files(Path(out), self.config)
        self.log = None if self.files is None else ShardLog(self.files["shards"], fingerprint, self.plan,
                                                            config.num_players)
        self.done: dict[int, tuple[np.ndarray, int]] = {}
        if self.files is not None and not force:
            if not self.files["shards"].exists() and (self.files["json"].exists() or self.files["png"].exists()):
                raise LeagueError(f"{self.files['json'].parent} already holds a finished league "
                                  f"({self.files['json'].name}); use --force to play it again or another --out")
            self.done = self.log.read()
        self.resumed = len(self.done)

    def tasks(self) -> tuple[list[int], list[ShardTask]]:
        """The shards left to play and their tasks."""
        cfg, plan = self.config, self.plan
        seeds = group_seeds(int(cfg.seed), plan.groups)
        todo = [s for s in range(plan.shards) if s not in self.done]
        tasks = []
        for s in todo:
            lineup, first, end = plan.shard(s)
            specs = tuple(cfg.agents[a] for a in plan.lineups[lineup])
            tasks.append(ShardTask(dataclasses.replace(self.table, agents=specs), seeds[first:end],
                                   (int(cfg.seed), lineup, s % plan.blocks)))
        return todo, tasks

    def play(
        self, executor: Executor | None = None, progress: Callable[[int, int], None] | None = None
    ) -> LeagueResult:
        """Play the shards left on ``executor`` (default: in this process), logging each as it finishes, then
        compute the statistics and write the JSON. ``progress(done, total)`` is called after each shard."""
        t0 = time.perf_counter()
        cfg, plan, n = self.config, self.plan, self.config.num_players
        todo, tasks = self.tasks()
        for i, (returns, decisions) in (executor or InProcess()).map_unordered(play_shard, tasks):
            self.done[todo[i]] = (returns, decisions)
            if self.log is not None:
                self.log.append(todo[i], returns, decisions)
            if progress is not None:
                progress(len(self.done), plan.shards)
        all_returns = np.empty((len(plan.lineups), plan.groups, n, n))
        for s, (returns, _) in self.done.items():
            lineup, first, end = plan.shard(s)
            all_returns[lineup, first:end] = returns
        result = LeagueResult(
            config=cfg, plan=plan, agent_info=self.agent_info, deal_seeds=group_seeds(int(cfg.seed), plan.groups),
            returns=all_returns, decisions=sum(d for _, d in self.done.values()),
            stats=league_stats(all_returns, plan.lineups, len(cfg.agents), cfg.bootstrap, int(cfg.seed)),
            env_version=self.env_version, cardgym_version=self.table.version, resumed_shards=self.resumed,
        )
        if self.files is not None:
            self.files["json"].parent.mkdir(parents=True, exist_ok=True)
            self.files["json"].write_text(json_text(result.to_dict()) + "\n")
            self.files["png"].unlink(missing_ok=True)  # the caller plots this league, if it plots
            self.files["shards"].unlink(missing_ok=True)  # every result is in the JSON now
        result.seconds = time.perf_counter() - t0
        return result


def run_league(
    config: LeagueConfig,
    out: str | Path | None = None,
    executor: Executor | None = None,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> LeagueResult:
    """Play the league of ``config`` (or what is left of it in ``out``) and compute its statistics.

    ``out``: a folder for the shard log and the JSON (``None``: nothing is written, nothing resumed); see
    :class:`LeagueRun` for what it refuses. ``executor``: where the shards run (default: in this process)."""
    return LeagueRun(config, out, force).play(executor, progress)
