"""Command line, training and evaluation."""
