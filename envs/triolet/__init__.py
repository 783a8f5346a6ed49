"""Le triolet: the batched core (``core``, rules compiled in ``kernels``), its configuration (``config``), state
(``state``, with two-plane card multisets in ``multiset``), cards and action table (``actions``), observation
(``observation``) and text pictures (``render``)."""

from envs.triolet.config import TrioletConfig
from envs.triolet.core import TrioletGame
from envs.triolet.state import TrioletState

__all__ = ["TrioletConfig", "TrioletGame", "TrioletState"]
