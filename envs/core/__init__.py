"""Code shared by every game: cards (C1–C3), counter-based randomness (C7), the poker evaluator, configuration
checking, the batched-game base class and the agent protocol."""
