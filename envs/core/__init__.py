"""Code shared by every game: cards (C1–C3), counter-based randomness (C7), the poker evaluator, configuration
checking and the batched-game base class."""
