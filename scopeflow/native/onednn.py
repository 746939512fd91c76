"""oneDNN's convolutions and max pooling through its C API and ``ctypes`` (the ``fast``
extra).

``pip install scopeflow[fast]`` installs ``onednn-cpu-gomp`` (oneDNN 3.x, built on the
system's libgomp), whose ``libdnnl.so`` lands in the environment's ``lib/``; it is found
through the distribution's file list and loaded on first use. Without it, or with
``SCOPEFLOW_NATIVE=0``, :func:`backend` returns None and the NumPy kernels run: importing
this module never loads anything.

What the conv kernels get (float32, NHWC activations, HWIO filters, any strides,
dilations and non-negative paddings):

* :meth:`OneDNN.conv2d`, :meth:`OneDNN.conv2d_backprop_input`,
  :meth:`OneDNN.conv2d_backprop_filter` - each returns a NumPy array (a fresh one, or the
  caller's ``out``), or None when oneDNN has no optimised implementation for the case (its
  reference ``ref:`` kernels are slower than our im2col GEMM), and the caller runs NumPy.
* :meth:`OneDNN.max_pool2d` - TF's MaxPool bit for bit: oneDNN's kernel starts each
  window from float32's lowest value and takes strictly greater inputs, so NaN is skipped
  and a tie keeps the first input's bits, as TF's. MaxPoolGrad stays on NumPy: oneDNN's
  backward routes ``dy`` through a workspace that a second forward run makes, whose argmax
  differs from TF's where a window starts with NaN; keeping TF's bits would need a scan of
  every input for such values first, and the whole saves at most ~0.5 ms a step (seed
  CNN, pool1: 1.3 ms with that forward run, against 1.6-2.0 ms for NumPy on two threads).
* ``conv2d(..., bias=b)`` adds ``b`` per output channel as a binary post-op, to the
  finished float32 sums, as a separate ``BiasAdd`` would (oneDNN's own conv bias starts
  the sums from it and rounds differently); the fused-conv plan pass relies on that.
* Activations stay in the caller's NHWC buffers (oneDNN's ``nxc`` kernels read them in
  place). Weights go to the layout oneDNN prefers (format ``any``): with plain HWIO its
  backward passes fall to slow paths. A variable's filter is reordered on every call (a
  5x5x32x64 filter costs microseconds) instead of being cached, so a variable that Adam
  updates in place can never be read stale; a constant one (a frozen graph's) is packed
  once (:mod:`scopeflow.native.packed_weights`).
* One plan per (pass, shapes, strides, dilations, paddings): the primitive descriptor,
  the primitive, the weight reorder, their scratchpad size; built once, kept for the
  process. Memory objects are per thread and re-pointed at each call's arrays; the
  scratchpad is user-managed (a per-thread buffer), so two threads can run one primitive.

Threads (one plan for the step): oneDNN runs its own OpenMP team inside each call, and
it must not fight scopeflow's threads: the GEMM/elementwise helper of
``scopeflow.ops.math.blas`` (idle while a conv runs) and the ones that run *beside* the step
(the input pipeline's prefetch, the summary writer). So the team gets every core but one
(``SCOPEFLOW_NATIVE_THREADS`` overrides): on 2 cores, one thread. Measured there (AMD
EPYC, 2 cores, loaded): the main job (``scopeflow train-mnist``) ran 10.3-11.0 steps/s
with one OpenMP thread, 5.6 with two (each conv's barrier waits for a core the pipeline
holds) and 9.1 on NumPy alone. Idle OpenMP threads must sleep, not spin, or they steal
the core from the next op's GEMM thread (2 threads spinning: 0.5-0.6x TF's speed instead
of 1.3-1.6x): ``OMP_WAIT_POLICY=passive`` is set before libgomp loads unless the user set
it. A process forked after a conv drops to one thread (libgomp's pool dies in the fork).
With a one-thread team the conv kernels (``scopeflow.ops.nn.conv_ops``) split a large pass
over the batch instead: two calls, one per half, on the GEMM helper's two threads, which
block rather than spin (seed CNN, conv2's three passes: 44 ms on one thread, 27 ms split);
a forward pass over a batch of one (inference) is split into two bands of output rows.
"""

from __future__ import annotations

import ctypes
import os
import threading

import numpy as np

from scopeflow.native import packed_weights

__all__ = ["backend", "load_error", "enabled", "set_enabled", "OneDNN", "DISTRIBUTION"]

DISTRIBUTION = "onednn-cpu-gomp"

# ── The C API's constants (include/oneapi/dnnl/dnnl_types.h, oneDNN 3.x) ─────────────
_SUCCESS = 0
_STATUS = {1: "out_of_memory", 2: "invalid_arguments", 3: "unimplemented",
           4: "last_impl_reached", 5: "runtime_error", 6: "not_required"}
_CPU = 1                      # dnnl_cpu
_F32 = 3                      # dnnl_f32
_FORMAT_ANY = 1               # dnnl_format_tag_any
_FORWARD_TRAINING = 64        # dnnl_forward_training
_FORWARD_INFERENCE = 96       # dnnl_forward_inference
_POOLING_MAX = 0x1FF          # dnnl_pooling_max
_CONV_DIRECT = 0x1            # dnnl_convolution_direct
_BINARY_ADD = 0x1FFF0         # dnnl_binary_add
_BINARY_MUL = 0x1FFF1         # dnnl_binary_mul
_BINARY_SUB = 0x1FFF5         # dnnl_binary_sub
_BINARY = {"add": _BINARY_ADD, "mul": _BINARY_MUL, "sub": _BINARY_SUB}
_SCRATCHPAD_USER = 1          # dnnl_scratchpad_mode_user
_QUERY_IMPL_INFO_STR = 8      # dnnl_query_impl_info_str
_QUERY_EXEC_ARG_MD = 255      # dnnl_query_exec_arg_md
_ARG_SRC, _ARG_DST, _ARG_WEIGHTS = 1, 17, 33
# DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, the first post-op's second operand
# (DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE is 32768 in 3.x).
_ARG_POST_OP_BASE = 32768    # DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE


def _post_op_src1(index: int) -> int:
    """DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1: post-op ``index``'s vector."""
    return _ARG_POST_OP_BASE * (index + 1) | 2

_ARG_SCRATCHPAD = 80
_ARG_DIFF_SRC, _ARG_DIFF_DST, _ARG_DIFF_WEIGHTS = 129, 145, 161
_MAX_DIMS = 12                # DNNL_MAX_NDIMS
_ALIGN = 64                   # buffers we hand oneDNN start on a cache line

_Dims = ctypes.c_int64 * _MAX_DIMS
_p = ctypes.c_void_p


class _ExecArg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("memory", _p)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int),
                ("hash", ctypes.c_char_p), ("cpu_runtime", ctypes.c_uint),
                ("gpu_runtime", ctypes.c_uint)]


class DnnlError(RuntimeError):
    """A oneDNN call failed (a bug in the bindings, not the user's input)."""


# ── Loading: lazily, once; None when the library is absent or switched off ───────────
_LOCK = threading.Lock()
_STATE: dict = {}   # "backend": OneDNN | None, "error": why it is None
_ENABLED = os.environ.get("SCOPEFLOW_NATIVE", "1").strip().lower() not in ("0", "false",
                                                                            "off", "no")


def enabled() -> bool:
    """Whether native kernels may be used (``SCOPEFLOW_NATIVE=0`` or set_enabled(False))."""
    return _ENABLED


def set_enabled(flag: bool) -> bool:
    """Turns the backend on or off for this process; returns the previous setting."""
    global _ENABLED
    before, _ENABLED = _ENABLED, bool(flag)
    return before


def backend():
    """The loaded :class:`OneDNN`, or None (not installed, unusable, or switched off)."""
    if not _ENABLED:
        return None
    try:
        return _STATE["backend"]
    except KeyError:
        pass
    with _LOCK:
        if "backend" not in _STATE:
            try:
                _STATE["backend"] = OneDNN(_library_path())
                _STATE["error"] = None
            except (OSError, AttributeError, DnnlError, LookupError, ValueError) as e:
                _STATE["backend"], _STATE["error"] = None, str(e)
    return _STATE["backend"]


def load_error() -> str | None:
    """Why :func:`backend` is None (after a call to it), else None."""
    if not _ENABLED:
        return "switched off (SCOPEFLOW_NATIVE=0)"
    return _STATE.get("error")


def _library_path() -> str:
    """``libdnnl.so.3`` of the installed ``onednn-cpu-gomp`` (its file list, not a guess)."""
    from importlib import metadata  # ~15 ms to import: only when the backend is first asked

    try:
        files = metadata.files(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        raise LookupError(f"{DISTRIBUTION} is not installed (pip install scopeflow[fast])") \
            from None
    found = sorted(str(f.locate()) for f in files if f.name.startswith("libdnnl.so"))
    found = [os.path.normpath(p) for p in found]
    for path in found:  # the soname first, as the loader would pick it
        if path.endswith("libdnnl.so.3") and os.path.exists(path):
            return path
    for path in found:
        if os.path.exists(path):
            return path
    raise LookupError(f"{DISTRIBUTION} is installed but has no libdnnl.so")


def _gomp_loaded() -> bool:
    try:
        with open("/proc/self/maps") as f:
            return "libgomp" in f.read()
    except OSError:
        return False


def _default_threads() -> int:
    value = os.environ.get("SCOPEFLOW_NATIVE_THREADS")
    if value:
        if not value.strip().isdigit() or int(value) < 1:
            raise ValueError(f"SCOPEFLOW_NATIVE_THREADS must be a positive integer, got "
                             f"{value!r}")
        return int(value)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, cores - 1)  # one core stays with the threads that run beside the step


def _aligned(nbytes: int) -> np.ndarray:
    """An uninitialised uint8 buffer of ``nbytes`` starting on a 64-byte boundary."""
    raw = np.empty(nbytes + _ALIGN, np.uint8)
    skip = -raw.ctypes.data % _ALIGN
    return raw[skip:skip + nbytes]


def _nhwc_md_strides(n, h, w, c):
    """(oneDNN dims, strides) of an NHWC array: logical order is always N, C, H, W."""
    return (n, c, h, w), (h * w * c, 1, w * c, c)


def _hwio_md_strides(kh, kw, ci, co):
    """(oneDNN dims, strides) of an HWIO filter: logical order O, I, H, W."""
    return (co, ci, kh, kw), (1, co, kw * ci * co, ci * co)


def _depthwise_md_strides(kh, kw, c, m):
    """(oneDNN dims, strides) of a depthwise ``[kh, kw, C, M]`` filter as grouped weights:
    logical order G (= C), O/G (= M), I/G (= 1), H, W."""
    return (c, m, 1, kh, kw), (m, 1, c * m, kw * c * m, c * m)


class _Plan:
    """One pass at one geometry: the primitive, its weight reorder and buffer sizes."""

    __slots__ = ("prim", "impl", "mds", "scratch_bytes", "reorder", "reorder_pd",
                 "weights_bytes", "key")


# ── The library object ───────────────────────────────────────────────────────────────
class OneDNN:
    """A loaded ``libdnnl``: engine, per-thread streams, plans and the conv passes."""

    def __init__(self, path: str):
        if not _gomp_loaded():
            # libgomp reads its environment when it loads (with libdnnl, just below):
            # idle OpenMP threads must sleep, or they spin on the core our next GEMM needs.
            os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        self.path = path
        lib = self._lib = ctypes.CDLL(path)
        self._bind(lib)
        ver = lib.dnnl_version().contents
        self.version = (ver.major, ver.minor, ver.patch)
        if ver.major != 3:
            raise DnnlError(f"{path} is oneDNN {ver.major}.{ver.minor}; the bindings need 3.x")
        self.wait_policy = os.environ.get("OMP_WAIT_POLICY", "(libgomp default: active)")
        self.threads = _default_threads()
        self._gomp = self._find_gomp()
        engine = _p()
        self._check(lib.dnnl_engine_create(ctypes.byref(engine), _CPU, 0), "engine_create")
        self._engine = engine
        self._attr = self._make_attr()
        self._plans: dict = {}
        self._plans_lock = threading.Lock()
        self._packed = packed_weights.PackedWeights()
        self._tls = threading.local()
        os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self):
        """In a forked child: one OpenMP thread, fresh plans and per-thread state.

        libgomp's thread pool does not survive fork (the child's first parallel region
        can hang), and oneDNN's kernels are built for the thread count they were made
        with; with one thread oneDNN never opens a parallel region.
        """
        self.threads = 1
        self._plans = {}
        self._plans_lock = threading.Lock()
        self._packed = packed_weights.PackedWeights()
        self._tls = threading.local()

    # ctypes signatures: every handle is a void*, every status an int.
    @staticmethod
    def _bind(lib):
        def sig(name, restype, *argtypes):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, list(argtypes)

        i, pp, dims, sz = ctypes.c_int, ctypes.POINTER(_p), _Dims, ctypes.c_size_t
        sig("dnnl_version", ctypes.POINTER(_Version))
        sig("dnnl_engine_create", i, pp, i, sz)
        sig("dnnl_stream_create", i, pp, _p, ctypes.c_uint)
        sig("dnnl_primitive_attr_create", i, pp)
        sig("dnnl_primitive_attr_set_scratchpad_mode", i, _p, i)
        sig("dnnl_primitive_attr_set_post_ops", i, _p, _p)
        sig("dnnl_post_ops_create", i, pp)
        sig("dnnl_post_ops_append_binary", i, _p, i, _p)
        sig("dnnl_memory_desc_create_with_strides", i, pp, i, dims, i, dims)
        sig("dnnl_memory_desc_create_with_tag", i, pp, i, dims, i, i)
        sig("dnnl_memory_desc_destroy", i, _p)
        sig("dnnl_memory_desc_equal", i, _p, _p)
        sig("dnnl_memory_desc_get_size", sz, _p)
        sig("dnnl_memory_create", i, pp, _p, _p, _p)
        sig("dnnl_memory_set_data_handle", i, _p, _p)
        sig("dnnl_primitive_desc_query_md", _p, _p, i, i)
        sig("dnnl_primitive_desc_query", i, _p, i, i, _p)
        sig("dnnl_primitive_desc_destroy", i, _p)
        sig("dnnl_primitive_create", i, pp, _p)
        sig("dnnl_primitive_execute", i, _p, _p, i, ctypes.POINTER(_ExecArg))
        sig("dnnl_reorder_primitive_desc_create", i, pp, _p, _p, _p, _p, _p)
        sig("dnnl_convolution_forward_primitive_desc_create", i, pp, _p, i, i, _p, _p, _p, _p,
            dims, dims, dims, dims, _p)
        sig("dnnl_convolution_backward_data_primitive_desc_create", i, pp, _p, i, _p, _p, _p,
            dims, dims, dims, dims, _p, _p)
        sig("dnnl_convolution_backward_weights_primitive_desc_create", i, pp, _p, i, _p, _p,
            _p, _p, dims, dims, dims, dims, _p, _p)
        sig("dnnl_pooling_forward_primitive_desc_create", i, pp, _p, i, i, _p, _p, dims, dims,
            dims, dims, dims, _p)

    def _make_attr(self, post=(), vector_md=None):
        """Primitive attributes: a user-managed scratchpad and, for each name of ``post``
        (``"add"``, ``"sub"``, ``"mul"``), a post-op combining the result as it is written
        with a vector of the output channels (``vector_md``), in that order.

        The bias is a binary post-op, not the conv's own bias argument: oneDNN starts the
        sums from its bias argument, which rounds differently from adding the bias to the
        finished sum; the post-op adds it to the finished float32 sum, as the unfused
        ``BiasAdd`` does, so the fused result has the unfused bits.
        """
        lib = self._lib
        attr = _p()
        self._check(lib.dnnl_primitive_attr_create(ctypes.byref(attr)), "primitive_attr_create")
        self._check(lib.dnnl_primitive_attr_set_scratchpad_mode(attr, _SCRATCHPAD_USER),
                    "primitive_attr_set_scratchpad_mode")
        if post:
            ops = _p()
            self._check(lib.dnnl_post_ops_create(ctypes.byref(ops)), "post_ops_create")
            for name in post:
                self._check(lib.dnnl_post_ops_append_binary(ops, _BINARY[name], vector_md),
                            "post_ops_append_binary")
            self._check(lib.dnnl_primitive_attr_set_post_ops(attr, ops),
                        "primitive_attr_set_post_ops")
        return attr

    @staticmethod
    def _find_gomp():
        """libgomp's ``omp_set_num_threads`` (libdnnl linked it in), or None."""
        try:
            return ctypes.CDLL("libgomp.so.1", mode=os.RTLD_NOLOAD).omp_set_num_threads
        except (OSError, AttributeError):
            return None

    @staticmethod
    def _check(status, what):
        if status != _SUCCESS:
            raise DnnlError(f"oneDNN dnnl_{what} failed: {_STATUS.get(status, status)}")

    # ── per-thread state ─────────────────────────────────────────────────────────────
    def _thread(self):
        """This thread's stream, memory objects and scratch buffers (made on first use)."""
        tls = self._tls
        state = getattr(tls, "state", None)
        if state is None:
            if self._gomp is not None:
                # OpenMP's thread count is per calling thread (libgomp's ICVs).
                self._gomp(self.threads)
            stream = _p()
            self._check(self._lib.dnnl_stream_create(ctypes.byref(stream), self._engine, 1),
                        "stream_create")
            state = tls.state = {"stream": stream, "mems": {}, "bufs": {}}
        return state

    def _buffer(self, state, role, nbytes):
        buf = state["bufs"].get(role)
        if buf is None or buf.nbytes < nbytes:
            buf = state["bufs"][role] = _aligned(max(nbytes, _ALIGN))
        return buf.ctypes.data

    def _memory(self, state, plan, role, md, ptr):
        """This thread's memory object for (plan, role), pointed at ``ptr``."""
        key = (plan.key, role)
        mem = state["mems"].get(key)
        if mem is None:
            mem = _p()
            self._check(self._lib.dnnl_memory_create(ctypes.byref(mem), md, self._engine,
                                                     _p(ptr)), "memory_create")
            state["mems"][key] = mem
        else:
            self._check(self._lib.dnnl_memory_set_data_handle(mem, _p(ptr)),
                        "memory_set_data_handle")
        return mem

    def _execute(self, state, prim, args):
        arr = (_ExecArg * len(args))(*[_ExecArg(a, m) for a, m in args])
        self._check(self._lib.dnnl_primitive_execute(prim, state["stream"], len(args), arr),
                    "primitive_execute")

    # ── memory descriptors and plans ─────────────────────────────────────────────────
    def _md(self, dims, strides=None):
        md = _p()
        d = _Dims(*dims)
        if strides is None:
            status = self._lib.dnnl_memory_desc_create_with_tag(
                ctypes.byref(md), len(dims), d, _F32, _FORMAT_ANY)
        else:
            status = self._lib.dnnl_memory_desc_create_with_strides(
                ctypes.byref(md), len(dims), d, _F32, _Dims(*strides))
        self._check(status, "memory_desc_create")
        return md

    def _arg_md(self, pd, arg):
        return self._lib.dnnl_primitive_desc_query_md(pd, _QUERY_EXEC_ARG_MD, arg)

    def _impl(self, pd) -> str:
        out = ctypes.c_char_p()
        self._check(self._lib.dnnl_primitive_desc_query(pd, _QUERY_IMPL_INFO_STR, 0,
                                                        ctypes.byref(out)), "query impl")
        return (out.value or b"").decode()

    def _primitive(self, pd):
        prim = _p()
        self._check(self._lib.dnnl_primitive_create(ctypes.byref(prim), pd), "primitive_create")
        return prim

    def _reorder(self, src_md, dst_md):
        """(primitive, its pd) of a reorder, or (None, None) when the layouts match."""
        if self._lib.dnnl_memory_desc_equal(src_md, dst_md):
            return None, None
        pd = _p()
        self._check(self._lib.dnnl_reorder_primitive_desc_create(
            ctypes.byref(pd), src_md, self._engine, dst_md, self._engine, self._attr),
            "reorder_primitive_desc_create")
        return self._primitive(pd), pd  # the pd stays alive: its scratchpad md is used

    def _plan(self, key):
        """The cached plan for ``key`` (None when oneDNN has no fast kernel for it)."""
        try:
            return self._plans[key]
        except KeyError:
            pass
        with self._plans_lock:
            if key not in self._plans:
                self._thread()  # OpenMP's thread count applies when primitives are made
                self._plans[key] = self._make_plan(key)
        return self._plans[key]

    def _make_plan(self, key):
        if key[0] == "max_pool":
            return self._make_pool_plan(key)
        kind, (n, h, w, c), (kh, kw, co), (oh, ow), strides, dilations, pad_l, pad_r, post = key
        src = self._md(*_nhwc_md_strides(n, h, w, c))
        dst = self._md(*_nhwc_md_strides(n, oh, ow, co))
        if kind == "fwd_depthwise":  # grouped weights, one group per input channel
            w_dims, w_strides = _depthwise_md_strides(kh, kw, c, co // c)
        else:
            w_dims, w_strides = _hwio_md_strides(kh, kw, c, co)
        wany = self._md(w_dims)
        whwio = self._md(w_dims, w_strides)
        geo = (_Dims(*strides), _Dims(*(d - 1 for d in dilations)), _Dims(*pad_l),
               _Dims(*pad_r))
        # Post-op vectors broadcast over N, H and W (logical order N, C, H, W).
        vector_md = self._md((1, co, 1, 1), (co, 1, 1, 1)) if post else None
        pds = self._conv_pds(kind, src, wany, dst, geo, post, vector_md)
        plan = pds and self._new_plan(key, pds[1])
        if plan is None:
            return None
        fwd, pd = pds
        warg = _ARG_DIFF_WEIGHTS if kind == "bwd_weights" else _ARG_WEIGHTS
        # The descriptors the plan keeps are the pd's own (valid while the pd lives; the
        # pd is kept alive with the plan); ours are the plain NHWC/HWIO ones.
        chosen = self._arg_md(pd, warg)
        plan.weights_bytes = self._lib.dnnl_memory_desc_get_size(chosen)
        if kind == "bwd_weights":
            plan.reorder, plan.reorder_pd = self._reorder(chosen, whwio)
        else:
            plan.reorder, plan.reorder_pd = self._reorder(whwio, chosen)
        return self._finish_plan(plan, pd, {"src": src, "dst": dst, "hwio": whwio,
                                            "chosen": chosen, "pd": pd, "fwd": fwd,
                                            "wany": wany, "vector": vector_md})

    def _conv_pds(self, kind, src, wany, dst, geo, post=(), vector_md=None):
        """(forward pd, pass ``kind``'s pd), or None when oneDNN has no kernel at all.

        The backward passes need the forward pd as their hint, so it is made for each.
        """
        lib, ref = self._lib, ctypes.byref
        attr = self._make_attr(post, vector_md) if post else self._attr
        fwd = _p()
        status = lib.dnnl_convolution_forward_primitive_desc_create(
            ref(fwd), self._engine, _FORWARD_TRAINING, _CONV_DIRECT, src, wany, None, dst,
            *geo, attr)
        if status == 3:  # unimplemented
            return None
        self._check(status, "convolution_forward_primitive_desc_create")
        if kind in ("fwd", "fwd_depthwise"):
            return fwd, fwd
        pd = _p()
        if kind == "bwd_data":
            self._check(lib.dnnl_convolution_backward_data_primitive_desc_create(
                ref(pd), self._engine, _CONV_DIRECT, src, wany, dst, *geo, fwd, self._attr),
                "convolution_backward_data_primitive_desc_create")
        else:
            self._check(lib.dnnl_convolution_backward_weights_primitive_desc_create(
                ref(pd), self._engine, _CONV_DIRECT, src, wany, None, dst, *geo, fwd,
                self._attr), "convolution_backward_weights_primitive_desc_create")
        return fwd, pd

    def _new_plan(self, key, pd):
        """A plan for ``pd``'s implementation, or None for oneDNN's reference loops (far
        slower than our im2col GEMM)."""
        plan = _Plan()
        plan.key, plan.impl = key, self._impl(pd)
        return None if plan.impl.startswith("ref") else plan

    def _finish_plan(self, plan, pd, mds):
        plan.scratch_bytes = self._lib.dnnl_memory_desc_get_size(
            self._arg_md(pd, _ARG_SCRATCHPAD))
        plan.mds = mds
        plan.prim = self._primitive(pd)
        return plan

    def _make_pool_plan(self, key):
        _, (n, h, w, c), kernel, (oh, ow), strides, pad_l, pad_r = key
        src = self._md(*_nhwc_md_strides(n, h, w, c))
        dst = self._md(*_nhwc_md_strides(n, oh, ow, c))
        pd = _p()
        status = self._lib.dnnl_pooling_forward_primitive_desc_create(
            ctypes.byref(pd), self._engine, _FORWARD_INFERENCE, _POOLING_MAX, src, dst,
            _Dims(*strides), _Dims(*kernel), _Dims(0, 0), _Dims(*pad_l), _Dims(*pad_r),
            self._attr)
        if status == 3:
            return None
        self._check(status, "pooling_forward_primitive_desc_create")
        plan = self._new_plan(key, pd)
        if plan is None:
            return None
        plan.reorder = plan.reorder_pd = None
        plan.weights_bytes = 0
        return self._finish_plan(plan, pd, {"src": src, "dst": dst, "pd": pd})

    @staticmethod
    def _key(kind, x_shape, kh, kw, co, out_hw, strides, dilations, pads, post=()):
        (ph0, ph1), (pw0, pw1) = pads
        return (kind, tuple(x_shape), (kh, kw, co), tuple(out_hw), tuple(strides),
                tuple(dilations), (ph0, pw0), (ph1, pw1), tuple(post))

    # ── the conv passes ──────────────────────────────────────────────────────────────
    def _weights_args(self, state, plan, w_ptr, into_role):
        """Execute args for the plan's weights: the HWIO buffer, or its reorder's output."""
        md = plan.mds
        if plan.reorder is None:
            return self._memory(state, plan, "w", md["hwio"], w_ptr), None
        buf = self._buffer(state, into_role, plan.weights_bytes)
        chosen = self._memory(state, plan, "w_chosen", md["chosen"], buf)
        plain = self._memory(state, plan, "w", md["hwio"], w_ptr)
        return chosen, plain

    def conv2d(self, x, w, strides, dilations, pads, out_hw, out=None, bias=None, post=()):
        """NHWC ``x`` (float32) convolved with HWIO ``w``, plus ``bias`` (per output
        channel, added to the finished sums) when given, into ``out`` (a C-contiguous
        float32 array) when given; None when oneDNN can't.

        ``post``: ``(name, vector)`` pairs, each combining the finished sums with a vector
        of the output channels (``"add"``, ``"sub"``, ``"mul"``), in order, as the
        separate elementwise ops would (``bias=b`` is ``post=(("add", b),)``)."""
        if bias is not None:
            post = (("add", bias),)
        kh, kw, _, co = w.shape
        plan = self._plan(self._key("fwd", x.shape, kh, kw, co, out_hw, strides, dilations,
                                    pads, tuple(name for name, _ in post)))
        if plan is None:
            return None
        x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
        if out is None:
            out = np.empty((x.shape[0], out_hw[0], out_hw[1], co), np.float32)
        extra = [(_post_op_src1(i), np.ascontiguousarray(v, np.float32))
                 for i, (_, v) in enumerate(post)]
        self._run_with_weights(plan, w, (_ARG_SRC, x), (_ARG_DST, out), extra)
        return out

    def depthwise_conv2d(self, x, w, strides, dilations, pads, out_hw, out=None):
        """NHWC ``x`` (float32) convolved channel by channel with ``w`` (``[kh, kw, C, M]``,
        TF's DepthwiseConv2dNative): an ``(N, oh, ow, C * M)`` array, into ``out`` (a
        C-contiguous float32 array) when given; None when oneDNN can't."""
        kh, kw, c, m = w.shape
        plan = self._plan(self._key("fwd_depthwise", x.shape, kh, kw, c * m, out_hw, strides,
                                    dilations, pads))
        if plan is None:
            return None
        x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
        if out is None:
            out = np.empty((x.shape[0], out_hw[0], out_hw[1], c * m), np.float32)
        self._run_with_weights(plan, w, (_ARG_SRC, x), (_ARG_DST, out))
        return out

    def _packed_weights_memory(self, state, plan, w):
        """A memory object over a constant filter packed once for the plan (see
        :mod:`scopeflow.native.packed_weights`), or None: the plan takes the filter as it
        is, or the filter may change."""
        if plan.reorder is None or not packed_weights.cacheable(w):
            return None
        packed = self._packed.get(plan.key, w)
        fresh = packed is None
        if fresh:
            packed = _aligned(plan.weights_bytes)
        chosen = self._memory(state, plan, "w_chosen", plan.mds["chosen"], packed.ctypes.data)
        if fresh:
            plain = self._memory(state, plan, "w", plan.mds["hwio"], w.ctypes.data)
            self._run_reorder(state, plan, plain, chosen)
            self._packed.put(plan.key, w, packed)
        return chosen

    def _run_with_weights(self, plan, w, src, dst, extra=()):
        """Runs a pass that reads the weights (forward, backward data); ``src``/``dst`` are
        ``(argument, array)`` for the NHWC tensors on either side of the conv, ``extra``
        more of them (the bias)."""
        state = self._thread()
        md = plan.mds
        wmem = self._packed_weights_memory(state, plan, w)
        if wmem is None:
            wmem, plain = self._weights_args(state, plan, w.ctypes.data, "weights")
            if plain is not None:
                self._run_reorder(state, plan, plain, wmem)
        self._execute(state, plan.prim, [
            (src[0], self._memory(state, plan, "src", md["src"], src[1].ctypes.data)),
            (_ARG_WEIGHTS, wmem),
            (dst[0], self._memory(state, plan, "dst", md["dst"], dst[1].ctypes.data)),
            (_ARG_SCRATCHPAD, self._scratch_mem(state, plan)),
            *[(arg, self._memory(state, plan, f"post{i}", md["vector"], a.ctypes.data))
              for i, (arg, a) in enumerate(extra)]])

    def conv2d_backprop_input(self, in_shape, w, dy, strides, dilations, pads, out=None):
        """The input gradient (NHWC, ``in_shape``) of a conv, into ``out`` when given; None
        when oneDNN can't."""
        kh, kw, _, co = w.shape
        plan = self._plan(self._key("bwd_data", in_shape, kh, kw, co, dy.shape[1:3], strides,
                                    dilations, pads))
        if plan is None:
            return None
        w, dy = np.ascontiguousarray(w), np.ascontiguousarray(dy)
        if out is None:
            out = np.empty(in_shape, np.float32)
        self._run_with_weights(plan, w, (_ARG_DIFF_SRC, out), (_ARG_DIFF_DST, dy))
        return out

    def conv2d_backprop_filter(self, x, filter_shape, dy, strides, dilations, pads):
        """The HWIO filter gradient of a conv; None when oneDNN can't."""
        kh, kw, _, co = filter_shape
        plan = self._plan(self._key("bwd_weights", x.shape, kh, kw, co, dy.shape[1:3],
                                    strides, dilations, pads))
        if plan is None:
            return None
        x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
        out = np.empty(filter_shape, np.float32)
        state = self._thread()
        md = plan.mds
        if plan.reorder is None:
            dw = self._memory(state, plan, "w", md["hwio"], out.ctypes.data)
        else:
            dw = self._memory(state, plan, "w_chosen", md["chosen"],
                              self._buffer(state, "weights", plan.weights_bytes))
        self._execute(state, plan.prim, [
            (_ARG_SRC, self._memory(state, plan, "src", md["src"], x.ctypes.data)),
            (_ARG_DIFF_WEIGHTS, dw),
            (_ARG_DIFF_DST, self._memory(state, plan, "dst", md["dst"], dy.ctypes.data)),
            (_ARG_SCRATCHPAD, self._scratch_mem(state, plan))])
        if plan.reorder is not None:
            self._run_reorder(state, plan, dw,
                              self._memory(state, plan, "w", md["hwio"], out.ctypes.data))
        return out

    def max_pool_implementation(self, x_shape, kernel, strides, pads, out_hw) -> str | None:
        """oneDNN's kernel name for one max pooling (e.g. ``jit:avx2``), None if none fits."""
        plan = self._plan(self._pool_key(x_shape, kernel, strides, pads, out_hw))
        return None if plan is None else plan.impl

    @staticmethod
    def _pool_key(x_shape, kernel, strides, pads, out_hw):
        (ph0, ph1), (pw0, pw1) = pads
        return ("max_pool", tuple(x_shape), tuple(kernel), tuple(out_hw), tuple(strides),
                (ph0, pw0), (ph1, pw1))

    def max_pool2d(self, x, kernel, strides, pads, out_hw, out=None):
        """NHWC float32 ``x`` max-pooled over ``kernel`` windows (padding never counts),
        into ``out`` when given; None when oneDNN can't. Its kernel starts each window
        from float32's lowest value and takes strictly greater inputs, as TF's."""
        plan = self._plan(self._pool_key(x.shape, kernel, strides, pads, out_hw))
        if plan is None:
            return None
        x = np.ascontiguousarray(x)
        if out is None:
            out = np.empty((x.shape[0], *out_hw, x.shape[3]), np.float32)
        state = self._thread()
        md = plan.mds
        self._execute(state, plan.prim, [
            (_ARG_SRC, self._memory(state, plan, "src", md["src"], x.ctypes.data)),
            (_ARG_DST, self._memory(state, plan, "dst", md["dst"], out.ctypes.data)),
            (_ARG_SCRATCHPAD, self._scratch_mem(state, plan))])
        return out

    def _scratch_mem(self, state, plan):
        ptr = self._buffer(state, "scratchpad", plan.scratch_bytes)
        return self._memory(state, plan, "scratchpad",
                            self._arg_md(plan.mds["pd"], _ARG_SCRATCHPAD), ptr)

    def _run_reorder(self, state, plan, src_mem, dst_mem):
        args = [(_ARG_SRC, src_mem), (_ARG_DST, dst_mem)]
        scratch_md = self._arg_md(plan.reorder_pd, _ARG_SCRATCHPAD)
        nbytes = self._lib.dnnl_memory_desc_get_size(scratch_md)
        if nbytes:
            ptr = self._buffer(state, "reorder_scratchpad", nbytes)
            args.append((_ARG_SCRATCHPAD, self._memory(state, plan, "reorder_scratchpad",
                                                       scratch_md, ptr)))
        self._execute(state, plan.reorder, args)

    # ── reporting ────────────────────────────────────────────────────────────────────
    def describe(self) -> dict:
        """Library facts for ``scopeflow info``."""
        return {"library": self.path, "version": ".".join(map(str, self.version)),
                "threads": self.threads, "omp_wait_policy": self.wait_policy,
                "plans": len(self._plans)}

    def implementation(self, kind, x_shape, filter_shape, strides, pads, out_hw,
                       dilations=(1, 1)) -> str | None:
        """oneDNN's kernel name for one conv pass (e.g. ``brg:avx2``), None if none fits."""
        kh, kw, ci, co = filter_shape
        if kind == "fwd_depthwise":  # the filter is [kh, kw, C, M]: C * M outputs
            co *= ci
        plan = self._plan(self._key(kind, x_shape, kh, kw, co, out_hw, strides, dilations,
                                    pads))
        return None if plan is None else plan.impl
