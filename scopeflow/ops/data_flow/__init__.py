"""Queues and ``count_up_to``, with their per-session resources."""
