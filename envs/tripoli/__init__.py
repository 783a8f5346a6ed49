"""Tripoli: the batched core (``core``, rules compiled in ``kernels``), its configuration (``config``), state
(``state``), action table (``actions``), observation (``observation``) and text pictures (``render``)."""

from envs.tripoli.config import TripoliConfig
from envs.tripoli.core import TripoliGame
from envs.tripoli.state import TripoliState

__all__ = ["TripoliConfig", "TripoliGame", "TripoliState"]
