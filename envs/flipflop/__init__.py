"""Flip Flop (a Tunk rummy variant): the batched core (``core``, rules compiled in ``kernels``), its configuration
(``config``), state (``state``), card layout and action table (``actions``), observation (``observation``) and text
pictures (``render``)."""

from envs.flipflop.config import FlipFlopConfig
from envs.flipflop.core import FlipFlopGame
from envs.flipflop.state import FlipFlopState

__all__ = ["FlipFlopConfig", "FlipFlopGame", "FlipFlopState"]
