"""Agents by name: ``make_agent("heuristic", game)``.

Specs:

- a bot name of the game's zoo (:data:`agents.zoo.BOTS`; ``cardgym agents --game G`` lists them): ``random``
  (uniform over the legal actions), ``heuristic`` (the game's hand-written heuristic) and the playing styles;
- ``trained``: the agent trained for the game that ships with cardgym (``agents/models/<game>.zip``, a model file
  that names the env version it plays; :func:`trained_model`), where one does;
- ``ppo:path/to/model.zip``: a trained model (``agents.ppo.PPOAgent(game, path)``, imported only when asked for:
  it needs the ``train`` extra);
- ``style:K``: member K of the game's style family (:mod:`agents.styles`: a heuristic with parameters drawn inside
  the range of the zoo's styles), for diverse training pools; ``loose-style:K``: member K of its family of callers
  (calls looser than any zoo bot's, few and small bets); ``careless-style:K``: that member (the heuristic in
  a game without a family) playing a random legal action at a share of its decisions; ``careless-bot:K``: a zoo
  bot other than ``random`` (bot ``K mod n``) playing a random action at that share;
- ``search``, ``search:N``, ``search:Nms``: Monte-Carlo search over sampled deals (:mod:`agents.search`; games with a
  sampler): ``N`` playouts per decision (default 200) or ``N`` milliseconds per decision;
- ``module:Class``: any importable agent class, constructed as ``Class(game)``. Such a spec imports the module,
  which runs its code: that is its purpose (your own agent, in your own file), so use only modules you trust. As
  with ``python -m``, modules are found in the current directory too (``mybots:Bot`` is ``./mybots.py``): the
  current directory is put first on ``sys.path`` when such a spec is imported, if it is not on it already.

Every spec that names no agent, a module that cannot be imported, a class whose constructor fails, an object without
``act(obs, mask, rng)``, or an agent built for another game raises :class:`AgentSpecError` with one line.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

from agents.zoo import BOTS, bot_class
from envs.core.agent import Agent, check_agent
from envs.core.checks import ArgumentError, show
from envs.core.extras import needs_extra
from envs.core.game import BatchedGame

SPEC_HELP = ("a bot name (random, heuristic, … : cardgym agents --game G), search[:N|:Nms], ppo:path/to/model.zip "
             "or module:Class")


class AgentSpecError(ArgumentError):
    """An agent spec that names no agent, or an agent that cannot be built for this game."""


def _one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split())}"


def _cwd_on_path() -> None:
    """Put the current directory first on ``sys.path`` if it is not on it (what ``python -m`` does)."""
    cwd = os.getcwd()
    if "" not in sys.path and cwd not in sys.path:
        sys.path.insert(0, cwd)


def _import_class(path: str, spec: str) -> type:
    module_name, _, cls_name = path.partition(":")
    if module_name.endswith(".py"):
        raise AgentSpecError(f"agent {spec!r}: give the module name ({module_name[:-3]!r}), not the file name")
    if not all(part.isidentifier() for part in module_name.split(".")) or not cls_name.isidentifier():
        raise AgentSpecError(f"agent {spec!r}: a module:Class spec needs a module name and a class name, "
                             "e.g. mybots:Bot")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is not None and (module_name == e.name or module_name.startswith(e.name + ".")):
            raise AgentSpecError(f"agent {spec!r}: no module named {module_name!r}") from e
        raise AgentSpecError(f"agent {spec!r}: importing {module_name!r} failed: {_one_line(e)}") from e
    except Exception as e:  # the module's own code failed: report it on one line, the traceback stays chained
        raise AgentSpecError(f"agent {spec!r}: importing {module_name!r} failed: {_one_line(e)}") from e
    if not hasattr(module, cls_name):
        raise AgentSpecError(f"agent {spec!r}: module {module_name!r} has no attribute {cls_name!r}")
    cls = getattr(module, cls_name)
    if not callable(cls):
        raise AgentSpecError(f"agent {spec!r}: {module_name}.{cls_name} is not a class, got {show(cls)}")
    if isinstance(cls, type) and not callable(getattr(cls, "act", None)):
        raise AgentSpecError(f"agent {spec!r}: {cls.__name__} has no act(obs, mask, rng) method")
    return cls


def _build(cls: type, game: BatchedGame, spec: str) -> Agent:
    """``cls(game)``, checked: it must build, have ``act`` and be built for ``game``."""
    try:
        agent = cls(game)
    except Exception as e:
        raise AgentSpecError(f"agent {spec!r}: {getattr(cls, '__name__', cls)}({game!r}) failed: {_one_line(e)}") from e
    try:
        check_agent(agent, game, f"agent {spec!r}")
    except ArgumentError as e:
        raise AgentSpecError(str(e)) from None
    return agent


TRAINED_VERSIONS = {
    "tripoli": (3, "add9c472d4f9dd317fd6a2f639645f85a12022e7ef5a6c944974180dd3ccbb9f"),
    "triolet": (1, "20a240c584a51fcb98541fec836d4d31c3dd872c4e3f9624db4ebdad74851ae1"),
    "flipflop": (1, "932677dd9db3b05ab25683c01b9b3e2947289680b2177867ba218a3ee6903ddb"),
}
"""The behaviour version of the trained agent that ships for each game (``trained@vN`` in results) and the SHA-256
of its model file: a new model file is a new version (tests check the files against these)."""


def trained_model(game: str) -> Path:
    """Where the trained agent that ships for ``game`` is (the file may be absent: none ships yet)."""
    return Path(__file__).parent / "models" / f"{game}.zip"


def make_agent(spec: str, game: BatchedGame) -> Agent:
    """The agent named by ``spec`` (see the module docstring), built for ``game``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string ({SPEC_HELP}), got {show(spec)}")
    if not isinstance(game, BatchedGame):
        raise AgentSpecError(f"game must be a game core (envs.registry.make_game), got {show(game)}")
    spec = spec.strip()
    bots = BOTS.get(game.name, {})
    if spec in bots:
        return _build(bot_class(game.name, spec), game, spec)
    if spec == "trained":
        path = trained_model(game.name)
        if not path.is_file():
            raise AgentSpecError(f"agent 'trained': no trained agent ships for {game.name} yet")
        agent = make_agent(f"ppo:{path}", game)
        agent.name = "trained"
        agent.version = TRAINED_VERSIONS[game.name][0]
        return agent
    if spec.startswith("ppo:"):
        path = spec[len("ppo:"):]
        if not Path(path).is_file():
            raise AgentSpecError(f"agent {spec!r}: model file {path!r} not found")
        with needs_extra(f"agent {spec!r}: playing a model file", error=AgentSpecError):
            from agents.ppo import PPOAgent
        return PPOAgent(game, path)
    family, _, k = spec.partition(":")
    if family == "search":
        from agents.search import SAMPLERS, BudgetError, make_search

        if game.name not in SAMPLERS:
            raise AgentSpecError(f"agent {spec!r}: search has no sampler for {game.name} yet (it plays "
                                 f"{', '.join(SAMPLERS)})")
        try:
            return make_search(game, k if spec != "search" else None)
        except BudgetError as e:
            raise AgentSpecError(f"agent {spec!r}: {e}") from None
    if family in ("style", "loose-style", "careless-style", "careless-bot"):
        if not (k.isascii() and k.isdigit()):
            raise AgentSpecError(f"agent {spec!r}: a {family} player is {family}:K with an integer K ≥ 0, "
                                 f"e.g. {family}:3")
        from agents.styles import make_careless, make_careless_bot, make_loose, make_style

        build = {"style": make_style, "loose-style": make_loose, "careless-style": make_careless,
                 "careless-bot": make_careless_bot}[family]
        try:
            return build(game, int(k))
        except ValueError as e:
            raise AgentSpecError(f"agent {spec!r}: {e}") from None
    if ":" in spec:
        _cwd_on_path()
        return _build(_import_class(spec, spec), game, spec)
    raise AgentSpecError(
        f"unknown agent {spec!r}; known agents: {', '.join(bots)} (the {game.name} zoo), "
        + "search[:N|:Nms], ppo:path/to/model.zip or module:Class"
    )
