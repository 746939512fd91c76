"""``tf.errors``: TensorFlow's exception classes and status codes.

Every error raised while running a graph is an ``OpError`` that names the op, its type
and the user's line that created it (``op.creation_site``).
"""

from __future__ import annotations

from scopeflow.framework.properties import read_only

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError", "PermissionDeniedError",
    "UnauthenticatedError", "ResourceExhaustedError", "FailedPreconditionError", "AbortedError",
    "OutOfRangeError", "UnimplementedError", "InternalError", "UnavailableError",
    "DataLossError", "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "UNAUTHENTICATED",
    "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "exception_type_from_error_code",
    "error_code_from_exception_type", "raise_exception_on_not_ok_status",
]

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 6, 7, 8, 9
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS = 10, 11, 12, 13, 14, 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """An error while running an op: ``.op``, ``.node_def``, ``.message``, ``.error_code``."""

    error_code_default = UNKNOWN

    def __init__(self, node_def, op, message, error_code=None, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = self.error_code_default if error_code is None else error_code

    message = read_only("_message")
    op = read_only("_op")
    node_def = read_only("_node_def")
    error_code = read_only("_error_code")

    def __str__(self):
        # A message of None (TF's tests pass the message first, as node_def) must not make
        # str() fail inside logging's formatting.
        return self._message if isinstance(self._message, str) else str(self._message)

    def __reduce__(self):
        return type(self), (None, None, self._message, self._error_code)


def _error_class(name, code, doc):
    cls = type(name, (OpError,), {"__doc__": doc, "error_code_default": code})

    def __init__(self, node_def, op, message, *args):  # noqa: N807 - TF's signature
        OpError.__init__(self, node_def, op, message, code)

    cls.__init__ = __init__
    cls.__module__ = __name__
    return cls


CancelledError = _error_class("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _error_class("UnknownError", UNKNOWN, "Unknown error.")
InvalidArgumentError = _error_class(
    "InvalidArgumentError", INVALID_ARGUMENT, "An op received an invalid argument.")
DeadlineExceededError = _error_class(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _error_class("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _error_class("AlreadyExistsError", ALREADY_EXISTS, "Entity exists.")
PermissionDeniedError = _error_class(
    "PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
UnauthenticatedError = _error_class("UnauthenticatedError", UNAUTHENTICATED, "Unauthenticated.")
ResourceExhaustedError = _error_class(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "Some resource has been exhausted.")
FailedPreconditionError = _error_class(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state to execute an operation (e.g. an uninitialized variable).")
AbortedError = _error_class("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _error_class("OutOfRangeError", OUT_OF_RANGE, "Iterated past the valid range.")
UnimplementedError = _error_class("UnimplementedError", UNIMPLEMENTED, "Not implemented.")
InternalError = _error_class("InternalError", INTERNAL, "Internal invariant broken.")
UnavailableError = _error_class("UnavailableError", UNAVAILABLE, "Service unavailable.")
DataLossError = _error_class("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")

_BY_CODE = {cls.error_code_default: cls for cls in [
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, UnauthenticatedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError, InternalError,
    UnavailableError, DataLossError]}


def exception_type_from_error_code(error_code: int) -> type:
    return _BY_CODE[error_code]


def error_code_from_exception_type(cls):
    """The status code of an ``OpError`` subclass; for any other class, as TF, an
    ``UnknownError`` (returned, not raised) saying so."""
    for code, klass in _BY_CODE.items():
        if klass is cls:
            return code
    return UnknownError(None, None, "Unknown class exception")


def out_of_memory(shape, type_name: str, op=None, where: str = "") -> ResourceExhaustedError:
    """TF's error for an allocation that failed: ``OOM when allocating tensor with
    shape[2,3] and type float on ...`` (``type_name`` as TF spells it, ``where`` after)."""
    return ResourceExhaustedError(
        None, op, f"OOM when allocating tensor with shape[{','.join(map(str, shape))}] and "
        f"type {type_name} on /job:localhost/replica:0/task:0/device:CPU:0 by allocator "
        f"cpu{where}")


def error_for_os_error(e: OSError) -> type:
    """TF's error class for an ``OSError`` (its POSIX file system's errno mapping): a full
    disk or quota is ``ResourceExhaustedError``, a missing file ``NotFoundError``, ..."""
    import errno

    code = getattr(e, "errno", None)
    if code in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.ENOMEM):
        return ResourceExhaustedError
    if code in (errno.ENOENT, errno.ENOTDIR):
        return NotFoundError
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return PermissionDeniedError
    if code == errno.EEXIST:
        return AlreadyExistsError
    if code in (errno.EISDIR, errno.ENOTEMPTY, errno.EBUSY):
        return FailedPreconditionError
    return UnknownError


def file_error(e: OSError, path: str, otherwise: str) -> OpError:
    """``e``, from opening or reading ``path``, as TF's POSIX file system reports it
    (``<path>; No such file or directory``...); any other error is ``UnknownError(otherwise)``.
    """
    if isinstance(e, (FileNotFoundError, NotADirectoryError)):
        return NotFoundError(None, None, f"{path}; No such file or directory")
    if isinstance(e, IsADirectoryError):
        return FailedPreconditionError(None, None, f"{path}; Is a directory")
    if isinstance(e, PermissionError):
        return PermissionDeniedError(None, None, f"{path}; Permission denied")
    return UnknownError(None, None, otherwise)


class Status:
    """What TF's C API reports an outcome in (``TF_Status``): a ``code`` and a ``message``;
    scopeflow's Python callers set them."""

    def __init__(self):
        self.code = OK
        self.message = ""


class raise_exception_on_not_ok_status:  # noqa: N801 - TF's name
    """A ``with`` block that yields a ``Status`` and, on leaving, raises the ``OpError`` of
    its code (with its message) unless the code is ``OK`` (TF's context manager around its
    C API calls)."""

    def __enter__(self):
        self.status = Status()
        return self.status

    def __exit__(self, type_arg, value_arg, traceback_arg):
        try:
            if self.status.code != OK:
                raise _BY_CODE[self.status.code](None, None, self.status.message)
        finally:
            del self.status
        return False
