"""Tripoli: configuration (``config``), action ids (``actions``) and the batched core (``core``)."""
