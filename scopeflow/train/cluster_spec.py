"""``tf.train.ClusterSpec``: the jobs and task addresses of a distributed TF1 program.

Pure description, no networking: scopeflow runs one process, but programs build a
ClusterSpec to hand to ``replica_device_setter`` (which only reads its jobs) or to put in
``ConfigProto.cluster_def``; both work as in TF, with TF's ``ClusterDef`` bytes.
"""

from __future__ import annotations

from scopeflow.io.protos import ClusterDef

__all__ = ["ClusterSpec"]


def _as_bytes(value, what: str) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"{what} {value!r} must be bytes or unicode")


class ClusterSpec:
    """A cluster as a dict ``{job name: [address, ...]}`` or ``{job: {task index: address}}``.

    >>> spec = ClusterSpec({"worker": ["w0:2222", "w1:2222"], "ps": {1: "ps1:2222"}})
    >>> spec.jobs, spec.num_tasks("worker"), spec.job_tasks("ps")
    (['worker', 'ps'], 2, [None, 'ps1:2222'])
    """

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = dict(enumerate(tasks))
                elif isinstance(tasks, dict):
                    job_tasks = {int(i): task for i, task in tasks.items()}
                else:
                    raise TypeError(f"The tasks for job {job_name!r} must be a list or a "
                                    "dictionary from integers to strings.")
                self._cluster_spec[job_name] = job_tasks
            self._make_cluster_def()
        elif isinstance(cluster, (ClusterDef, ClusterSpec)):
            source = cluster if isinstance(cluster, ClusterDef) else cluster.as_cluster_def()
            if isinstance(cluster, ClusterDef):
                self._cluster_def = cluster       # TF keeps the very proto it was given
            else:
                self._cluster_def = ClusterDef()
                self._cluster_def.MergeFrom(source)
            self._cluster_spec = {job.name: dict(job.tasks.items())
                                  for job in self._cluster_def.job}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to "
                            "lists of network addresses, or a `ClusterDef` protocol buffer")

    def _make_cluster_def(self):
        """The ClusterDef: jobs sorted by name, tasks by index (TF's order)."""
        self._cluster_def = ClusterDef()
        for job_name, tasks in sorted(self._cluster_spec.items()):
            job = self._cluster_def.job.add()
            job.name = _as_bytes(job_name, "Job name")
            for i, address in sorted(tasks.items()):
                job.tasks[i] = _as_bytes(address, "Task address")

    def __bool__(self):
        return bool(self._cluster_spec)

    def __eq__(self, other):
        return self._cluster_spec == other

    def __ne__(self, other):
        return self._cluster_spec != other

    __hash__ = None  # as TF's: equality compares with dicts, so no hash

    def __repr__(self):
        as_dict = self.as_dict()
        items = ", ".join(f"{k!r}: {as_dict[k]!r}" for k in sorted(as_dict))
        return "ClusterSpec({" + items + "})"

    def as_dict(self) -> dict:
        """``{job: [addresses]}``, or ``{job: {index: address}}`` for a job with gaps."""
        out = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                out[job] = {}
            elif max(indices) + 1 == len(indices):
                out[job] = self.job_tasks(job)
            else:
                out[job] = {i: self.task_address(job, i) for i in indices}
        return out

    def as_cluster_def(self) -> ClusterDef:
        """The ``tf.train.ClusterDef`` proto of this cluster."""
        return self._cluster_def

    @property
    def jobs(self) -> list:
        """Job names, in the order they were given."""
        return list(self._cluster_spec)

    def _job(self, job_name) -> dict:
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name) -> int:
        """How many tasks ``job_name`` has."""
        return len(self._job(job_name))

    def task_indices(self, job_name) -> list:
        """The job's task indices, sorted."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        """The address of one task."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") \
                from None

    def job_tasks(self, job_name) -> list:
        """The job's addresses by index, None where an index has no task."""
        job = self._job(job_name)
        out = [None] * (max(job) + 1)
        for i, task in job.items():
            out[i] = task
        return out
