"""Sparse tensors' ops."""
