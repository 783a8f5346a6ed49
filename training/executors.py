"""Where shards of work run: in this process, in a local process pool, or as Ray tasks on one machine or a cluster.

A *shard* is a module-level function applied to a *task*, a frozen dataclass of plain values (game and agent specs,
seeds, indices): the same task gives the same result wherever it runs, so a league or an evaluation does not depend
on the executor. Workers build games and agents from their specs (:class:`TableSpec`), once per process.

- :class:`InProcess`: one shard after the other, here (the default).
- :class:`ProcessPool`: ``concurrent.futures.ProcessPoolExecutor`` with ``W`` workers, started by ``forkserver``
  (``spawn`` where there is none): no process inherits the parent's threads or open files.
- :class:`RayExecutor`: one Ray task per shard (``pip install 'cardgym[ray]'``), on a new local Ray instance, or on
  the cluster at an address (``auto``, ``host:6379``, ``ray://host:10001``) or ``RAY_ADDRESS``. Every node needs the
  same cardgym version (the shards check it), and the model files of ``ppo:`` agents at the same paths.

Ray token authentication (on by default for the local clusters ``ray.init()`` starts since Ray 2.59, for every
cluster from Ray 2.61; a cluster with it refuses clients without its token): this module keeps it on and never
disables it. An explicit ``RAY_AUTH_MODE`` (``token`` or ``disabled``) is used as it is. Otherwise a client with a
token (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``) runs in token mode, for a local cluster
as for a remote one (a token-mode client also reaches a cluster without authentication); a local cluster without any
token gets a fresh random one in this process's environment, inherited by the Ray processes it starts, where Ray
itself would write one to ``~/.ray/auth_token``. To join a cluster that uses tokens, bring its token
(``ray get-auth-token`` on the head prints it); a refused connection stops the run with one line.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib.metadata
import importlib.util
import multiprocessing
import os
import secrets
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Protocol, TypeVar

from envs.core.game import BatchedGame
from training.cli_args import count
from training.limits import MAX_WORKERS

T = TypeVar("T")
R = TypeVar("R")

RAY_INSTALL_HINT = "pip install 'cardgym[ray]'"


class ExecutorError(ValueError):
    """An executor that cannot start: Ray missing, a cluster that refuses the connection, a bad worker count."""


def cardgym_version() -> str:
    """The installed cardgym's version (``importlib.metadata``)."""
    try:
        return importlib.metadata.version("cardgym")
    except importlib.metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


@dataclasses.dataclass(frozen=True)
class TableSpec:
    """A game and its agents as specs a worker builds them from (``make_game`` and ``make_agent``)."""

    game: str
    """Game name (``envs.registry``)."""
    num_players: int
    """Table size."""
    options: tuple[tuple[str, Any], ...]
    """Rule options that differ from the defaults, as sorted ``(key, value)`` pairs."""
    agents: tuple[str, ...]
    """Agent specs (``agents.registry``), in the order the task indexes them."""
    version: str = dataclasses.field(default_factory=cardgym_version)
    """cardgym version of the process that made the spec; a worker with another version refuses it."""

    @classmethod
    def of(cls, game: BatchedGame, agents: Sequence[str]) -> TableSpec:
        """The spec of ``game`` with ``agents``."""
        return cls(game.name, game.num_players, tuple(sorted(game.changed_options().items())), tuple(agents))

    def build(self) -> tuple[BatchedGame, list[Any]]:
        """The game and the agents (cached per process: a worker builds each once)."""
        if self.version != cardgym_version():
            raise ExecutorError(
                f"this worker runs cardgym {cardgym_version()}, the run was started with {self.version}: install the "
                "same version on every node"
            )
        game = _build_game(self.game, self.num_players, self.options)
        return game, [_build_agent(self.game, self.num_players, self.options, spec) for spec in self.agents]


@functools.lru_cache(maxsize=16)
def _build_game(name: str, num_players: int, options: tuple[tuple[str, Any], ...]) -> BatchedGame:
    from envs.registry import make_game

    return make_game(name, num_players=num_players, **dict(options))


@functools.lru_cache(maxsize=64)
def _build_agent(name: str, num_players: int, options: tuple[tuple[str, Any], ...], spec: str) -> Any:
    from agents.registry import make_agent

    return make_agent(spec, _build_game(name, num_players, options))


class Executor(Protocol):
    """Runs ``fn`` on each task and yields ``(index, result)`` as the tasks finish, in any order."""

    description: str
    """How it runs, for messages ("in this process", "4 worker processes", "Ray at …")."""

    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[tuple[int, R]]: ...

    def close(self) -> None: ...


class InProcess:
    """Every task in this process, in order."""

    description = "in this process"

    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[tuple[int, R]]:
        for i, task in enumerate(tasks):
            yield i, fn(task)

    def close(self) -> None:
        pass


class ProcessPool:
    """A local pool of ``workers`` processes (``forkserver``, else ``spawn``)."""

    def __init__(self, workers: int) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ExecutorError(f"--workers must be a positive integer, got {workers!r}")
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        self.description = f"{workers} worker process{'es' if workers > 1 else ''}"
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)

    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[tuple[int, R]]:
        futures: dict[Future, int] = {self._pool.submit(fn, task): i for i, task in enumerate(tasks)}
        try:
            while futures:
                done, _ = wait(futures, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=futures.__getitem__):
                    yield futures.pop(future), future.result()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _default_token_path() -> Path:
    return Path.home() / ".ray" / "auth_token"


def prepare_ray_auth(local: bool, set_mode: bool) -> str:
    """Token authentication before ``ray.init``; returns where the token comes from, for messages.

    An explicit ``RAY_AUTH_MODE`` is left as it is. Otherwise, with a token (``RAY_AUTH_TOKEN``,
    ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``), or for a ``local`` cluster with a fresh random token put in
    this process's environment (inherited by the Ray processes it starts; nothing is written to disk), the mode
    becomes ``token`` when ``set_mode`` (Ray reads it when imported: only before the first ``import ray``; later,
    Ray >= 2.59 turns it on by itself for a local cluster). A token-mode client also connects to a cluster without
    authentication."""
    mode = os.environ.get("RAY_AUTH_MODE")
    if mode is not None:
        return f"RAY_AUTH_MODE={mode}"
    source = next((var for var in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH") if os.environ.get(var)), None)
    if source is None and _default_token_path().is_file():
        source = str(_default_token_path())
    if source is None:
        if not local:
            return "no token found"
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
        source = "a fresh token for this process"
    if set_mode:
        os.environ["RAY_AUTH_MODE"] = "token"
    return source


def _ray_installed() -> bool:
    """Whether ``import ray`` would work (without importing it: Ray reads its authentication mode on import)."""
    if "ray" in sys.modules:
        return sys.modules["ray"] is not None
    return importlib.util.find_spec("ray") is not None


class RayExecutor:
    """One Ray task per shard: on a new local Ray (``address`` None and no ``RAY_ADDRESS``) or on a cluster."""

    def __init__(self, address: str | None = None, num_cpus: int | None = None) -> None:
        if not _ray_installed():
            raise ExecutorError(f"--ray needs Ray, which is not installed: {RAY_INSTALL_HINT}")
        target = address or os.environ.get("RAY_ADDRESS") or None
        self._owned = not ("ray" in sys.modules and sys.modules["ray"].is_initialized())
        auth = prepare_ray_auth(local=target is None, set_mode="ray" not in sys.modules) if self._owned else ""
        import ray

        self._ray = ray
        if not self._owned:
            self.description = "the Ray instance this process is connected to"
            return
        where = "a local Ray" if target is None else f"the Ray cluster at {target}"
        self.description = f"{where} (token authentication: {auth})"
        local = {"num_cpus": num_cpus, "include_dashboard": False} if target is None else {}
        try:
            ray.init(address=target, logging_level="WARNING", **local)
        except (ConnectionError, RuntimeError, ValueError, ray.exceptions.AuthenticationError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            hint = ""
            if target is not None:
                hint = (" (a cluster with token authentication needs its token in RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH "
                        "or ~/.ray/auth_token: `ray get-auth-token` on the head prints it)")
            raise ExecutorError(f"--ray: cannot start or reach {where}: {first}{hint}") from None

    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[tuple[int, R]]:
        ray = self._ray
        remote = ray.remote(num_cpus=1)(fn)  # pure tasks: Ray may rerun one whose node died
        pending = {remote.remote(task): i for i, task in enumerate(tasks)}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    index = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayTaskError as e:  # the shard's own exception, without Ray's wrapping
                        cause = getattr(e, "cause", None)
                        raise (cause if isinstance(cause, Exception) else e) from None
                    yield index, result
        finally:
            for ref in pending:
                ray.cancel(ref)

    def close(self) -> None:
        if self._owned:
            self._ray.shutdown()


def make_executor(workers: int | None = None, ray: str | None = None) -> Executor:
    """The executor asked for: ``ray`` (``""`` for a local Ray or ``RAY_ADDRESS``, else an address) wins over
    ``workers`` (``None`` or 1: in this process)."""
    if ray is not None:
        return RayExecutor(ray or None)
    if workers is None or workers == 1:
        return InProcess()
    return ProcessPool(workers)


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """``--workers W | --ray [ADDRESS]`` (mutually exclusive)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--workers", type=count(MAX_WORKERS), default=None, metavar="W",
                       help=f"run the shards in W local worker processes (1 to {MAX_WORKERS}; default: in this "
                            "process)")
    group.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                       help="run the shards as Ray tasks: on a new local Ray, or on the cluster at ADDRESS (auto, "
                            f"host:6379, ray://host:10001) or RAY_ADDRESS ({RAY_INSTALL_HINT})")


def executor_from_args(args: argparse.Namespace) -> Executor:
    """The executor of parsed :func:`add_executor_arguments` arguments."""
    return make_executor(workers=args.workers, ray=args.ray)
