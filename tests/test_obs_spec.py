"""Declarative observations (envs/core/obs_spec.py): every game's SPEC is its observation, and the module docstrings
and the log view come from it."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from envs.core.obs_spec import Log, ObservationSpec, Piece, Seats
from envs.gamelog import public_view
from envs.registry import GAMES, env_version, make_game


@pytest.mark.parametrize("name", list(GAMES))
def test_spec_is_the_observation_and_documents_it(name: str) -> None:
    spec = importlib.import_module(f"envs.{name}.observation").SPEC
    game = make_game(name, make_game(name).max_players)
    assert spec.size == game.observation_size
    table = spec.table()
    assert table in importlib.import_module(f"envs.{env_version(name)}").__doc__
    assert table in importlib.import_module(f"envs.{name}.observation").__doc__
    assert "OBSERVATION_TABLE" not in importlib.import_module(f"envs.{env_version(name)}").__doc__
    assert all(len(line) <= 120 for line in table.splitlines())
    covered = np.zeros(spec.size, int)  # the pieces tile the observation exactly once
    for piece in spec.names:
        offset, stride, size = spec.offset(piece), spec.stride(piece), spec.size_of(piece)
        for j in range(spec.count(piece)):
            covered[offset + j * stride: offset + j * stride + size] += 1
    assert (covered == 1).all()
    view = public_view(name)
    assert all(0 <= f.offset < spec.size for f in (*view.fields, view.dealer))


def test_offsets_strides_and_views_of_a_small_spec() -> None:
    spec = ObservationSpec(
        Piece("hand", 52, "own hand", log=Log("hand", "cards", private=True)),
        Seats(3, Piece("chips", 1, "chips", log=Log("chips", "seat_values")), Piece("dealer", 1, "dealer",
                                                                                    log=Log("dealer", "seat_onehot"))),
        Piece("phase", 4, "phase"),
    )
    assert spec.size == 52 + 3 * 2 + 4
    assert (spec.offset("chips"), spec.stride("chips"), spec.offset("dealer"), spec.offset("phase")) == (52, 2, 53, 58)
    view = spec.public_view("T", 3, dealer="dealer", order=("chips",))
    assert [f.name for f in view.fields] == ["chips", "hand"] and view.dealer.stride == 2
    with pytest.raises(ValueError, match="interleaved"):
        spec.span("chips")
    with pytest.raises(ValueError, match="declared twice"):
        ObservationSpec(Piece("a", 1, "x"), Piece("a", 2, "y"))
    with pytest.raises(ValueError, match="without a log"):
        spec.public_view("T", 3, dealer="dealer", order=("phase",))
