"""cardgym environments: Tripoli, Le triolet and Flip Flop as PettingZoo AEC environments over batched cores.

Importing this package registers ``cardgym/tripoli-v1``, ``cardgym/triolet-v1`` and ``cardgym/flipflop-v1`` with
PettingZoo's registry, so ``pettingzoo.make("aec", "cardgym/tripoli-v1", num_players=5)`` works. The games and their
versions are listed once, in :mod:`envs.registry`.
"""

from pettingzoo import register as _register
from pettingzoo.env_registry.registration import aec_registry as _aec_registry

from envs.registry import GAMES, VERSIONS

for _game in GAMES:
    _id = f"cardgym/{_game}-v{VERSIONS[_game]}"
    if _id not in _aec_registry:
        _register("aec", _id, entry_point=f"envs.{_game}_v{VERSIONS[_game]}:env")
