"""The optional parts of the install (``pyproject.toml``'s extras) and the one-line refusal when one is missing.

``pip install -e .`` gives the games, the bots, evaluation, leagues, logs, play, watch, replay and serve; the trainer
and the model-file agents (``ppo:PATH``) need torch and Stable-Baselines3, which come with ``cardgym[train]``. Code
that needs an extra imports it inside :func:`needs_extra`, so that a missing extra is one line naming it::

    with needs_extra("training"):
        from training.train import train
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

TRAIN = ("torch", "stable_baselines3", "sb3_contrib", "tyro")
EXTRAS = {"train": TRAIN, "rllib": ("ray", *TRAIN)}
"""Extra → the top-level modules it installs that the project imports (``rllib`` holds ``train``)."""


class MissingExtraError(ValueError):
    """What was asked for needs an extra that is not installed."""


@contextmanager
def needs_extra(what: str, extra: str = "train", error: type[BaseException] = MissingExtraError) -> Iterator[None]:
    """Run the block (the imports of ``what``); a module of ``extra`` that is not installed raises ``error`` with
    the one line ``<what> needs the <extra> extra: pip install -e ".[<extra>]"``. Any other missing module is a bug
    and is raised as it is."""
    try:
        yield
    except ModuleNotFoundError as e:
        if (e.name or "").partition(".")[0] not in EXTRAS[extra]:
            raise
        raise error(f'{what} needs the {extra} extra: pip install -e ".[{extra}]"') from e
