"""cardgym environments: Tripoli, Le triolet and Flip Flop as PettingZoo AEC environments over batched numpy cores.

Importing this package registers ``cardgym/tripoli-v0``, ``cardgym/triolet-v0`` and ``cardgym/flipflop-v0`` with
PettingZoo's registry, so ``pettingzoo.make("aec", "cardgym/tripoli-v0", num_players=5)`` works.
"""

from pettingzoo import register as _register
from pettingzoo.env_registry.registration import aec_registry as _aec_registry

GAMES = ("tripoli", "triolet", "flipflop")
"""The games of the suite; ``envs.<game>_v0`` is the public module of each."""

for _game in GAMES:
    _id = f"cardgym/{_game}-v0"
    if _id not in _aec_registry:
        _register("aec", _id, entry_point=f"envs.{_game}_v0:env")
