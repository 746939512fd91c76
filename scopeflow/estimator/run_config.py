"""``tf.estimator.RunConfig``: where and how often an Estimator saves, logs and summarises."""

from __future__ import annotations

import copy
import os

from scopeflow.train.cluster_spec import ClusterSpec

_USE_DEFAULT = object()
_DEFAULT_SAVE_CHECKPOINTS_SECS = 600


class TaskType:
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


def _check_positive(name, value, allow_none=True, allow_zero=False):
    if value is None and allow_none:
        return
    if value is None or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, given: {value}")


def _checkpoint_frequency(save_checkpoints_steps, save_checkpoints_secs):
    """TF's defaults: every 600 seconds when neither is given; both given is an error."""
    if save_checkpoints_steps == _USE_DEFAULT and save_checkpoints_secs == _USE_DEFAULT:
        return None, _DEFAULT_SAVE_CHECKPOINTS_SECS
    if save_checkpoints_secs == _USE_DEFAULT:
        return save_checkpoints_steps, None
    if save_checkpoints_steps == _USE_DEFAULT:
        return None, save_checkpoints_secs
    if save_checkpoints_steps is not None and save_checkpoints_secs is not None:
        raise ValueError("Can not provide both save_checkpoints_steps and "
                         "save_checkpoints_secs.")
    return save_checkpoints_steps, save_checkpoints_secs


def _check_one_machine(train_distribute, eval_distribute, experimental_distribute):
    if train_distribute is not None or eval_distribute is not None or \
            experimental_distribute is not None:
        raise NotImplementedError(
            "RunConfig(train_distribute/eval_distribute/experimental_distribute): "
            "distribution strategies are not implemented in scopeflow (it trains in one "
            "process; see docs/estimator.md)")
    if "TF_CONFIG" in os.environ and os.environ["TF_CONFIG"].strip() not in ("", "{}"):
        raise NotImplementedError(
            "RunConfig with TF_CONFIG (a cluster of ps/worker tasks): scopeflow's "
            "Estimator runs on one machine")


_REPLACEABLE = ("model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
                "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
                "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute",
                "device_fn", "protocol", "eval_distribute", "experimental_distribute",
                "experimental_max_worker_delay_secs", "session_creation_timeout_secs",
                "checkpoint_save_graph_def")


class RunConfig:
    """The run's configuration; one machine (``TF_CONFIG`` clusters are not read)."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_USE_DEFAULT, save_checkpoints_secs=_USE_DEFAULT,
                 session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 train_distribute=None, device_fn=None, protocol=None, eval_distribute=None,
                 experimental_distribute=None, experimental_max_worker_delay_secs=None,
                 session_creation_timeout_secs=7200, checkpoint_save_graph_def=True):
        save_checkpoints_steps, save_checkpoints_secs = _checkpoint_frequency(
            save_checkpoints_steps, save_checkpoints_secs)
        _check_one_machine(train_distribute, eval_distribute, experimental_distribute)
        _check_positive("save_summary_steps", save_summary_steps, allow_zero=True)
        _check_positive("save_checkpoints_steps", save_checkpoints_steps, allow_zero=True)
        _check_positive("save_checkpoints_secs", save_checkpoints_secs, allow_zero=True)
        _check_positive("keep_checkpoint_max", keep_checkpoint_max, allow_zero=True)
        _check_positive("log_step_count_steps", log_step_count_steps, allow_zero=True)
        if tf_random_seed is not None and not isinstance(tf_random_seed, int):
            raise TypeError(f"tf_random_seed must be integer, given: {tf_random_seed}")
        args = dict(locals())
        for key in _REPLACEABLE:
            setattr(self, "_" + key, args[key])
        self._model_dir = os.fspath(model_dir) if model_dir is not None else None
        self._set_one_machine_cluster()

    def _set_one_machine_cluster(self):
        """The cluster properties of one machine: a chief worker with no parameter servers."""
        self._service = None
        self._cluster_spec = ClusterSpec({})
        self._task_type = TaskType.WORKER
        self._task_id = 0
        self._global_id_in_cluster = 0
        self._master = ""
        self._evaluation_master = ""
        self._is_chief = True
        self._num_ps_replicas = 0
        self._num_worker_replicas = 1

    def replace(self, **kwargs):
        """A copy with the named properties changed (those RunConfig's constructor takes)."""
        for key in kwargs:
            if key not in _REPLACEABLE:
                raise ValueError(f"{key} is not a valid property.")
        new = copy.deepcopy(self)
        args = {k: getattr(self, "_" + k) for k in _REPLACEABLE}
        args.update(kwargs)
        if "save_checkpoints_steps" in kwargs and kwargs["save_checkpoints_steps"] is not None \
                and "save_checkpoints_secs" not in kwargs:
            args["save_checkpoints_secs"] = None
        if "save_checkpoints_secs" in kwargs and kwargs["save_checkpoints_secs"] is not None \
                and "save_checkpoints_steps" not in kwargs:
            args["save_checkpoints_steps"] = None
        new.__init__(**args)
        return new

    def __repr__(self):
        return str(vars(self))

    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    device_fn = property(lambda self: self._device_fn)
    protocol = property(lambda self: self._protocol)
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
    checkpoint_save_graph_def = property(lambda self: self._checkpoint_save_graph_def)
    experimental_max_worker_delay_secs = property(
        lambda self: self._experimental_max_worker_delay_secs)
    service = property(lambda self: self._service)
    cluster_spec = property(lambda self: self._cluster_spec)
    task_type = property(lambda self: self._task_type)
    task_id = property(lambda self: self._task_id)
    evaluation_master = property(lambda self: self._evaluation_master)
    master = property(lambda self: self._master)
    is_chief = property(lambda self: self._is_chief)
    num_ps_replicas = property(lambda self: self._num_ps_replicas)
    num_worker_replicas = property(lambda self: self._num_worker_replicas)
    global_id_in_cluster = property(lambda self: self._global_id_in_cluster)
