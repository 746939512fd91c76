"""Op-table exemptions for tf.CriticalSection's ops (scopeflow/ops/data_flow/critical_section_ops.py):
they act on a session's mutex through a handle, so a row of independent inputs cannot drive
them; tests/unit/ops/data_flow/test_critical_section.py runs them under scopeflow and TF 2.21
and compares graphs, values and errors, and checks the serialisation across threads."""

_WHY = "stateful mutex op (handle in, no values from inputs); see test_critical_section.py"

ROWS = []
EXEMPT = {op_type: _WHY for op_type in ("MutexV2", "MutexLock", "ConsumeMutexLock")}
