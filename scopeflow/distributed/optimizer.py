"""``DistributedOptimizer``: any TF1 optimizer, with gradients averaged over the workers."""

from __future__ import annotations

from scopeflow.distributed import _world
from scopeflow.distributed.ops import allreduce, grouped_allreduce
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.train.optimizer import Optimizer

__all__ = ["DistributedOptimizer"]


class DistributedOptimizer(Optimizer):
    """Wraps ``optimizer`` so that ``compute_gradients`` (and so ``minimize``) returns the
    gradients averaged over all workers, as Horovod's ``DistributedOptimizer``.

    Dense gradients go through one ``MpiAllreduce`` op that packs them into buffers of
    up to ``fusion_threshold`` bytes (tensor fusion: a few large messages per step, not
    one per variable). ``IndexedSlices`` gradients (``embedding_lookup``, ``gather``) are
    gathered: every worker's values and indices, concatenated, which adds up to the
    averaged dense gradient while staying sparse; ``sparse_as_dense=True`` densifies them
    and fuses them with the rest instead.

    Args:
      optimizer: the optimizer that applies the averaged gradients.
      name: defaults to ``"Distributed" + optimizer.get_name()``.
      use_locking: kept for Horovod's signature (the wrapped optimizer's own is used).
      average: False sums the gradients instead.
      sparse_as_dense: densify ``IndexedSlices`` gradients before reducing them.
      fusion_threshold: the largest fused buffer, in bytes (0: one message per gradient).

    >>> import scopeflow.distributed as sfd
    >>> _ = sfd.init()
    >>> opt = sfd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.1))
    >>> opt.get_name()
    'DistributedGradientDescent'
    """

    def __init__(self, optimizer, name=None, use_locking=False, average=True,
                 sparse_as_dense=False, fusion_threshold=_world.FUSION_THRESHOLD):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"DistributedOptimizer wraps a tf.train.Optimizer, got "
                            f"{type(optimizer).__name__}")
        super().__init__(use_locking, name or "Distributed" + optimizer.get_name())
        self._optimizer = optimizer
        self._average = bool(average)
        self._sparse_as_dense = bool(sparse_as_dense)
        self._fusion_threshold = int(fusion_threshold)

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's ``(gradient, variable)`` pairs, each gradient reduced
        over the workers (None stays None)."""
        grads_and_vars = self._optimizer.compute_gradients(*args, **kwargs)
        world = _world.get_world("DistributedOptimizer.compute_gradients")
        if world.size == 1:
            return grads_and_vars  # as Horovod: nothing to average
        with name_scope(self._name + "_Allreduce"):
            return self._reduce(grads_and_vars)

    def _reduce(self, grads_and_vars):
        grads = [g for g, _ in grads_and_vars]
        if self._sparse_as_dense:
            grads = [convert_to_tensor(g) if isinstance(g, IndexedSlices) else g
                     for g in grads]
        dense = [i for i, g in enumerate(grads)
                 if g is not None and not isinstance(g, IndexedSlices)]
        reduced = list(grads)
        if dense:
            out = grouped_allreduce([grads[i] for i in dense], average=self._average,
                                    fusion_threshold=self._fusion_threshold)
            for i, g in zip(dense, out):
                reduced[i] = g
        for i, g in enumerate(grads):
            if isinstance(g, IndexedSlices):
                reduced[i] = allreduce(g, average=self._average)
        return [(g, v) for g, (_, v) in zip(reduced, grads_and_vars)]

    # -- everything else is the wrapped optimizer's --------------------------------------
    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._optimizer.apply_gradients(grads_and_vars, global_step=global_step,
                                               name=name)

    def get_slot(self, var, name):
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def variables(self):
        return self._optimizer.variables()
