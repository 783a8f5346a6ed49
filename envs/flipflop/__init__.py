"""Flip Flop (a Tunk rummy variant): the batched core, its configuration and state."""

from envs.flipflop.config import FlipFlopConfig
from envs.flipflop.core import FlipFlopGame
from envs.flipflop.state import FlipFlopState

__all__ = ["FlipFlopConfig", "FlipFlopGame", "FlipFlopState"]
