"""Assertions, printing, numeric checks and summaries."""
