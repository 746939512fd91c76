"""``tf.train.SyncReplicasOptimizer``: synchronous data-parallel training with accumulators.

TF1's recipe, graph for graph: each worker's ``train_op`` applies its gradients to one
``ConditionalAccumulator`` per variable (``SparseConditionalAccumulator`` for
``IndexedSlices``), tagged with the worker's local step, then dequeues a token from the
shared ``sync_token_q`` and copies it into its local step. The chief's queue runner takes
the mean of ``replicas_to_aggregate`` gradients from every accumulator, applies it with the
wrapped optimizer (which bumps the global step) and enqueues ``max(total_num_replicas,
replicas_to_aggregate)`` tokens holding the new global step. Gradients tagged with an older
step than the accumulator's global step are dropped as stale.

Replicas here are threads (or successive runs) of one process sharing one Session: the
accumulators and the token queue are per-session resources found by ``shared_name``, as
TF's are per-server resources; there is no cluster to place them on.
"""

from __future__ import annotations

from scopeflow.framework.graph import GraphKeys, Tensor, control_dependencies, device, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.ops.control_flow.control_flow_ops import group, no_op
from scopeflow.ops.data_flow.accumulator_ops import (
    ConditionalAccumulator,
    SparseConditionalAccumulator,
)
from scopeflow.ops.data_flow.queue_ops import FIFOQueue
from scopeflow.ops.math.reduction_ops import fill
from scopeflow.ops.state.state_ops import assign
from scopeflow.platform import tf_logging as logging
from scopeflow.state.variables import VariableV1, global_variables, report_uninitialized_variables
from scopeflow.train.optimizer import Optimizer
from scopeflow.train.queue_runner import QueueRunner
from scopeflow.train.session_manager import _ready
from scopeflow.train.session_run_hook import SessionRunHook

__all__ = ["SyncReplicasOptimizer"]


class SyncReplicasOptimizer(Optimizer):
    """Aggregates ``replicas_to_aggregate`` replicas' gradients before each update.

    ``total_num_replicas`` (default ``replicas_to_aggregate``) may exceed it (backup
    workers, whose late gradients are dropped as stale) or fall short of it (workers then
    run several steps per update; the chief must seed enough tokens, see
    ``get_init_tokens_op``).
    """

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None,
                 variable_averages=None, variables_to_average=None, use_locking=False,
                 name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        logging.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
                     replicas_to_aggregate, total_num_replicas)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._gradients_applied = False
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list = []

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's gradients, left per replica so they can be clipped first."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Builds the accumulate / take / apply / token graph; returns the worker's train op.

        The returned op applies this replica's gradients and waits for a token; the update
        itself runs in the chief's queue runner (``get_chief_queue_runner``).
        """
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        local_anchor = no_op()
        with device(local_anchor.device):
            self._local_step = VariableV1(
                initial_value=0, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = report_uninitialized_variables(global_variables())
        with name_scope(None, self._name):
            train_ops, aggregated, var_list = self._accumulate(grads_and_vars)
            with device(global_step.device), name_scope(""):
                update_op = self._opt.apply_gradients(zip(aggregated, var_list), global_step)
            train_op = self._token_ops(train_ops, update_op, global_step)
            for accum, dev in self._accumulator_list:
                with device(dev):
                    chief_init_ops.append(accum.set_global_step(global_step,
                                                                 name="SetGlobalStep"))
            self.chief_init_op = group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def _accumulate(self, grads_and_vars):
        """One accumulator per gradient: its apply op (a train op) and its take op."""
        train_ops, aggregated, var_list = [], [], []
        for grad, var in grads_and_vars:
            var_list.append(var)
            with device(var.device):
                if grad is None:
                    aggregated.append(None)
                    continue
                if isinstance(grad, Tensor):
                    accum = ConditionalAccumulator(grad.dtype, shape=var.get_shape(),
                                                   shared_name=var.name + "/grad_accum")
                    train_ops.append(accum.apply_grad(grad, local_step=self._local_step))
                    aggregated.append(accum.take_grad(self._replicas_to_aggregate))
                else:
                    if not isinstance(grad, IndexedSlices):
                        raise ValueError("Unknown grad type!")
                    accum = SparseConditionalAccumulator(
                        grad.dtype, shape=(), shared_name=var.name + "/grad_accum")
                    train_ops.append(accum.apply_indexed_slices_grad(
                        grad, local_step=self._local_step))
                    aggregated.append(accum.take_indexed_slices_grad(
                        self._replicas_to_aggregate))
                self._accumulator_list.append((accum, var.device))
        return train_ops, aggregated, var_list

    def _token_ops(self, train_ops, update_op, global_step):
        """The token queue, the worker's dequeue-and-copy op, and the chief's queue runner."""
        with device(global_step.device), name_scope(""):
            queue = FIFOQueue(-1, global_step.dtype.base_dtype, shapes=(),
                              name="sync_token_q", shared_name="sync_token_q")
            self._sync_token_queue = queue
        with device(global_step.device), name_scope(""):
            with control_dependencies(train_ops):
                token = queue.dequeue()
            train_op = assign(self._local_step, token)
            with control_dependencies([update_op]):
                tokens = fill([self._tokens_per_step], global_step)
                sync_op = queue.enqueue_many((tokens,))
            if self._variable_averages is not None:
                with control_dependencies([sync_op]), name_scope(""):
                    sync_op = self._variable_averages.apply(self._variables_to_average)
            self._chief_queue_runner = QueueRunner(queue, [sync_op])
        return train_op

    def get_chief_queue_runner(self):
        """The chief's QueueRunner: take the mean gradients, apply them, enqueue tokens."""
        if self._gradients_applied is False:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's slot."""
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables (not this optimizer's local step)."""
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        """The wrapped optimizer's slot names."""
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """An op that seeds the token queue with ``num_tokens`` copies of the global step.

        ``-1`` means ``replicas_to_aggregate``; fewer than ``replicas_to_aggregate -
        total_num_replicas`` could never finish the first step and are refused.
        """
        if self._gradients_applied is False:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(f"Too few tokens to finish the first step: {num_tokens} (given) "
                             f"vs {tokens_needed} (needed)")
        if num_tokens > 0:
            with device(self._global_step.device), name_scope(""):
                tokens = fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """A hook that runs the init ops (and, on the chief, the queue runner) at session start."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(SessionRunHook):
    """Runs the local (or chief) init op, seeds tokens and starts the chief's queue runner."""

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if opt._gradients_applied is False:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before "
                             "using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        """Checks the model is initialized, then runs the init ops and starts the runner."""
        ok, msg = _ready(self._ready_for_local_init_op, session,
                         "Model is not ready for SyncReplicasOptimizer local init.")
        if not ok:
            raise RuntimeError("Init operations did not make model ready for "
                               "SyncReplicasOptimizer local_init. Init op: "
                               f"{self._local_init_op.name}, error: {msg}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
