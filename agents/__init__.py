"""Agents that play from observations and legal-action masks."""
