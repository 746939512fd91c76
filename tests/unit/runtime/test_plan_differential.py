"""Differential test of ``Session.run`` plans over many random graphs.

Each graph is a *spec* (plain JSON data: a list of op records and a list of runs) made by a
seeded generator. ``program(spec)`` renders it as TF1 Python source and ``build(tf, spec)``
executes that source with whichever module is passed as ``tf``: scopeflow here, and
``tensorflow.compat.v1`` in one TF process (``build``, ``program``, ``run_spec`` and
``encode`` are sent there with ``inspect.getsource``, the specs as a JSON file). Every run
of every graph is recorded, and

* scopeflow with every plan pass on (``SCOPEFLOW_PLAN_PASSES=all``) must give bit-identical
  results to every pass off (``none``): the same values (NaN-aware), dtypes, shapes, Python
  types and errors, run after run;
* scopeflow must match real TensorFlow (``@pytest.mark.tf``): the same shapes, dtypes, types
  and error classes, values within ``rtol * (|expected| + bound)`` where ``rtol`` is 1e-6 for
  float32 (and for float64 values computed from float32 ones) and 1e-12 for float64, and
  ``bound`` is the generator's upper bound of the tensor's magnitude (so a last-ulp difference
  in an intermediate that cancels later is allowed, a stale or wrong value is not). TF runs
  with grappler off: its arithmetic optimizer rewrites ``v + v`` under
  ``control_dependencies`` so that it sees a write ordered after it (checked with TF 2.21),
  and the oracle is the graph's semantics (``SCOPEFLOW_DIFF_TF_GRAPPLER=1`` turns it on).

The graphs mix float32/float64 variables (shapes [2,3], [3], [], [3,2], [1,3], [2]),
placeholders (some of unknown first dimension), constants, elementwise chains, reductions,
matmul, pass-throughs (identity, stop_gradient, reshape, expand_dims, squeeze, value(),
read_value(), tf.tuple outputs), slices, transposes, concat, add_n, tile, pad, gather, casts;
writes (assign, assign_add/sub, scatter_update/add/sub, GradientDescentOptimizer.minimize);
control dependencies, tf.group and tf.tuple(..., control_inputs=...). Each graph is run 2-4
times after its initializer (sometimes re-initialized in between, sometimes run before it),
with fresh feeds every run: placeholders, and sometimes intermediate tensors; some runs repeat
a previous run's fetches and feed keys (a cached plan); some end with a run that must fail.

Determinism. In TF1 a ``VariableV2`` output is a reference to one buffer; writes change it in
place (an initialized variable's ``Assign`` copies into it). Ops that *forward* their input
(``v/read``, ``Identity``, ``StopGradient``, ``Reshape``, ``ExpandDims``, ``Squeeze``, and
TF kernels that are no-ops for their arguments: a full slice, ``Tile`` by ones, ``Pad`` by
zeros, a one-dimensional ``Transpose``, a one-input ``concat``/``add_n``, a reduction over
no or size-1 axes...) return that buffer, so

1. an op that *computes* from a variable (through any chain of forwarding ops) sees the
   variable as it is when that op runs;
2. a fetched tensor that still aliases a variable returns its value at the *end* of the run;
3. where a forwarding op runs does not matter: it reads nothing.

TF runs ops that no path orders in any order, so a write of ``v`` and an op that computes from
``v`` must be ordered. The generator keeps, for each variable, its last write and the readers
created since; every new op is classified (``_FORWARD``: always aliases, never reads;
``_MAYBE``: may alias or compute, so it is treated as both a reader and a view; everything
else computes and reads) and gets control dependencies so that:

* every op that reads ``v`` (computes from any input that may alias ``v``: ``v`` itself, a
  forwarding chain of it, a write's output, a ``_MAYBE`` view) runs after ``v``'s last write
  created before it;
* every write of ``v`` (including an optimizer step, which also reads every variable its loss
  reads) runs after the previous write of ``v`` and after every reader created since.

So all readers and writes of a variable are totally ordered up to reader/reader pairs, which do
not conflict, whatever subset a run executes (control dependencies pull their sources into the
run). Orderings are only ever taken from control edges and from data edges out of ref tensors
(a variable, a write's output), never from other data edges: a run may feed an intermediate
tensor, which cuts the data edge (a producer whose output is fed runs at most for a control
edge, and then its value is seen by no one). Forwarding ops get no ordering of their own (rule
3), except, as often in real code, ``with control_dependencies([write]): identity(v)`` and
``tf.tuple(..., control_inputs=...)``. Optimizer steps use ``gate_gradients=GATE_GRAPH`` inside
``control_dependencies`` on the readers and writes above: every gradient op descends from the
gradient seed created in that context, and no variable is updated before every gradient is
computed. Scatter updates never repeat an index. Fetched values are compared, whatever they
alias: by rules 1-3 they are determined. A run that fails ends its graph (the writes made
before the failure are unordered).

Environment: ``SCOPEFLOW_DIFF_GRAPHS`` (graphs for on-vs-off, default 300),
``SCOPEFLOW_DIFF_TF_GRAPHS`` (the first N of them also against TF, default 120),
``SCOPEFLOW_DIFF_SEED`` (default 0), ``SCOPEFLOW_DIFF_ONLY`` (comma-separated graph indices).
Graph ``i`` of seed ``s`` is ``make_spec(f"{s}/{i}")``; a failure prints its name, program and
spec.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import random
import time
from collections import Counter

import numpy as np
import pytest

import scopeflow

PASSES_ENV = "SCOPEFLOW_PLAN_PASSES"
N_GRAPHS = int(os.environ.get("SCOPEFLOW_DIFF_GRAPHS", "300"))
N_TF_GRAPHS = int(os.environ.get("SCOPEFLOW_DIFF_TF_GRAPHS", "120"))
SEED = os.environ.get("SCOPEFLOW_DIFF_SEED", "0")
ONLY = os.environ.get("SCOPEFLOW_DIFF_ONLY")
GRAPPLER = os.environ.get("SCOPEFLOW_DIFF_TF_GRAPPLER") == "1"
RTOL = {"float32": 1e-6, "float64": 1e-12}
MAX_REPORTED = 5

# ── Program, builder and runner (self-contained: also sent to the TF process) ─────────────


def program(spec, runs=False):
    """TF1 Python source that builds ``spec`` (node ``i`` is ``n{i}``, plus ``init``); with
    ``runs``, a whole script that also runs it and prints each run's results."""
    def arr(value, dt):
        return f"np.array({value!r}, np.{dt})"

    def index(items):
        parts = []
        for it in items:
            if it[0] == "i":
                parts.append(repr(it[1]))
            else:
                start, stop, step = ("" if x is None else repr(x) for x in it[1:])
                parts.append(f"{start}:{stop}" + (f":{step}" if step else ""))
        return ", ".join(parts)

    def ref(j):  # a node as a list element (tf.tuple converts no Variables)
        return f"n{j}.value()" if spec["nodes"][j]["op"] == "var" else f"n{j}"

    lines = []
    for i, r in enumerate(spec["nodes"]):
        op, a, dt = r["op"], r.get("a", {}), r.get("dt")
        x = [f"n{j}" for j in r.get("in", [])]
        if op == "var":
            e = f"tf.Variable({arr(a['value'], dt)}, name='v{i}')"
        elif op == "ph":
            e = f"tf.placeholder(tf.{dt}, {a['shape']!r}, name='p{i}')"
        elif op == "const":
            e = f"tf.constant({arr(a['value'], dt)})"
        elif op in ("value", "read_value"):
            e = f"{x[0]}.{op}()"
        elif op == "unary":
            e = f"tf.{a['fn']}({x[0]})"
        elif op == "binary":
            sym = a.get("sym")
            e = f"{x[0]} {sym} {x[1]}" if sym else f"tf.{a['fn']}({x[0]}, {x[1]})"
        elif op == "scalar":
            e = (f"{a['s']!r} {a['sym']} {x[0]}" if a.get("left")
                 else f"{x[0]} {a['sym']} {a['s']!r}")
        elif op == "cast":
            e = f"tf.cast({x[0]}, tf.{dt})"
        elif op == "reduce":
            e = f"tf.reduce_{a['fn']}({x[0]}, axis={a['axis']!r}, keepdims={a['keepdims']})"
        elif op == "matmul":
            e = (f"tf.matmul({x[0]}, {x[1]}, transpose_a={a['ta']}, "
                 f"transpose_b={a['tb']})")
        elif op == "reshape":
            e = f"tf.reshape({x[0]}, {a['shape']!r})"
        elif op == "expand_dims":
            e = f"tf.expand_dims({x[0]}, {a['axis']!r})"
        elif op == "squeeze":
            e = f"tf.squeeze({x[0]}, {a['axis']!r})"
        elif op == "slice":
            e = f"tf.slice({x[0]}, {a['begin']!r}, {a['size']!r})"
        elif op == "getitem":
            e = f"{x[0]}[{index(a['idx'])}]"
        elif op == "transpose":
            e = f"tf.transpose({x[0]}, {a['perm']!r})"
        elif op == "concat":
            e = f"tf.concat([{', '.join(x)}], {a['axis']!r})"
        elif op == "add_n":
            e = f"tf.add_n([{', '.join(x)}])"
        elif op == "tile":
            e = f"tf.tile({x[0]}, {a['multiples']!r})"
        elif op == "pad":
            e = f"tf.pad({x[0]}, {a['paddings']!r})"
        elif op == "gather":
            e = f"tf.gather({x[0]}, {x[1] if len(x) > 1 else repr(a['indices'])})"
        elif op in ("assign", "assign_add", "assign_sub"):
            e = (f"{x[0]}.{op}({x[1]})" if a.get("method")
                 else f"tf.{op}({x[0]}, {x[1]})")
        elif op.startswith("scatter_"):
            idx = x[1] if "indices" not in a else repr(a["indices"])
            e = f"tf.{op}({x[0]}, {idx}, {x[-1]})"
        elif op == "minimize":
            e = (f"tf.train.GradientDescentOptimizer({a['lr']!r}).minimize({x[0]}, "
                 f"var_list=[{', '.join(x[1:])}], "
                 "gate_gradients=tf.train.Optimizer.GATE_GRAPH)")
        elif op == "group":
            e = f"tf.group({', '.join(f'n{j}' for j in a['ops'])})"
        elif op == "tuple":
            ci = ", ".join(f"n{j}" for j in a["control_inputs"])
            e = (f"tf.tuple([{', '.join(ref(j) for j in r['in'])}], "
                 f"control_inputs=[{ci}])")
        elif op == "item":
            e = f"{x[0]}[{a['i']}]"
        else:
            raise ValueError(f"unknown op record {op!r}")
        ctrl = r.get("ctrl") or []
        if ctrl:
            lines.append(f"with tf.control_dependencies([{', '.join(f'n{j}' for j in ctrl)}]):")
            lines.append(f"    n{i} = {e}")
        else:
            lines.append(f"n{i} = {e}")
    lines.append("init = tf.global_variables_initializer()")
    if not runs:
        return "\n".join(lines) + "\n"

    head = ["import numpy as np", "import tensorflow.compat.v1 as tf", "",
            "tf.disable_v2_behavior()", ""]
    tail = ["", "sess = tf.Session()", "", "", "def run(fetches, feed_dict=None):",
            "    try:", "        return sess.run(fetches, feed_dict)",
            "    except Exception as e:  # noqa: BLE001",
            "        return type(e).__name__", "", ""]
    for k, step in enumerate(spec["runs"]):
        if step["kind"] == "init":
            tail.append(f"print({k}, run(init))")
            continue
        fetches = ", ".join(f"n{f}" if isinstance(f, int) else f"n{f[0]}.op"
                            for f in step["fetch"])
        feeds = ", ".join(f"n{j}: {arr(v, dt)}" for j, v, dt in step["feed"])
        tail.append(f"print({k}, run([{fetches}], {{{feeds}}}))")
    return "\n".join(head + lines + tail) + "\n"


def build(tf, spec):
    """Builds ``spec``'s graph with ``tf`` (scopeflow or tensorflow.compat.v1) in the
    default graph; returns the namespace holding its nodes (``n0``... and ``init``)."""
    import numpy as np
    ns = {"tf": tf, "np": np}
    exec(compile(program(spec), f"<graph {spec['name']}>", "exec"), ns)  # noqa: S102
    return ns


def run_spec(spec, ns, sess):
    """Runs ``spec``'s runs in ``sess``; per run ``{"ok": [values]}`` or ``{"err": name}``
    (a failing run ends the list: what it wrote before failing is not determined)."""
    import numpy as np
    out = []
    for step in spec["runs"]:
        if step["kind"] == "init":
            fetches, feed = [ns["init"]], {}
        else:
            fetches = [ns[f"n{f}"] if isinstance(f, int) else ns[f"n{f[0]}"].op
                       for f in step["fetch"]]
            feed = {ns[f"n{j}"]: np.array(v, dt) for j, v, dt in step["feed"]}
        try:
            out.append({"ok": sess.run(fetches, feed_dict=feed)})
        except Exception as e:  # noqa: BLE001 - the error's class is compared
            out.append({"err": type(e).__name__, "msg": str(e).split("\n")[0][:200]})
            break
    return out


def encode(results):
    """``run_spec``'s results as JSON-able data (floats exactly, NaN/Infinity as JSON does)."""
    import numpy as np
    enc = []
    for r in results:
        if "ok" not in r:
            enc.append(r)
            continue
        vals = []
        for v in r["ok"]:
            if v is None:
                vals.append(None)
                continue
            a = np.asarray(v)
            vals.append({"type": type(v).__name__, "dtype": a.dtype.name,
                         "shape": list(a.shape), "data": a.ravel().tolist()})
        enc.append({"ok": vals})
    return enc


# ── The generator ─────────────────────────────────────────────────────────────────────
# Records whose output always aliases their (first) input, read nothing themselves.
_FORWARD = {"value", "read_value", "identity", "stop_gradient", "reshape", "expand_dims",
            "squeeze", "item"}
# Records that may alias (a no-op slice/tile/pad/transpose/concat/add_n/reduction) or compute.
_MAYBE = {"slice", "getitem", "transpose", "concat", "add_n", "tile", "pad", "reduce"}
_WRITES = {"assign", "assign_add", "assign_sub", "scatter_update", "scatter_add",
           "scatter_sub", "minimize"}
_VAR_SHAPES = [(2, 3), (3,), (), (3, 2), (1, 3), (2,)]
_MAX_NUMEL = 24
_MAX_BOUND = 1e4


_SAME = object()  # a static shape that is the actual one


def _known(m):
    """Whether a node's static shape is its actual shape."""
    return m["st"] == m["sh"]


def _numel(shape):
    return int(np.prod(shape, dtype=np.int64))


def _value(rng, shape, hi=2.0, avoid_unit=True):
    """Nested lists of 2-decimal floats in [-hi, hi] (never exactly 0 or ±1, which grappler
    could fold an op away for)."""
    def one():
        while True:
            x = round(rng.uniform(-hi, hi), 2)
            if not avoid_unit or abs(x) not in (0.0, 1.0):
                return x
    return np.array([one() for _ in range(_numel(shape))]).reshape(shape).tolist()


def _shape_of(fn, *shapes):
    """The shape NumPy gives ``fn`` of zero arrays of ``shapes`` (None if it fails)."""
    try:
        return tuple(fn(*[np.zeros(s) for s in shapes]).shape)
    except (ValueError, IndexError, TypeError):
        return None


class _Gen:
    """Makes one spec; see the module docstring for the ordering rules it keeps."""

    def __init__(self, name):
        self.name = name
        self.rng = random.Random(name)
        self.nodes: list[dict] = []
        self.m: list[dict] = []          # per node: cls, dt, sh, st, b, views, sanc, ...
        self.last_write: dict[int, int] = {}
        self.readers: dict[int, set] = {}
        self.budget: dict[int, dict] = {}  # var -> {"B", "base", "acc"}
        self.n_steps = 0                 # run steps that may execute each write once

    # -- bookkeeping -------------------------------------------------------------------
    def add(self, rec, cls, dt=None, sh=None, st=_SAME, b=1.0, views=frozenset(), ref=False,
            reads=(), writes=(), ctrl=(), feedable=True):
        i = len(self.nodes)
        ctrl = list(ctrl)
        sanc = set()
        for j in rec.get("in", []):
            if self.m[j]["ref"]:
                sanc |= {j} | self.m[j]["sanc"]
        for c in ctrl:
            sanc |= {c} | self.m[c]["sanc"]
        need = [self.last_write[v] for v in sorted(set(reads) | set(writes))
                if v in self.last_write]
        for v in sorted(writes):
            need += sorted(self.readers.get(v, ()))
        for p in need:
            if p not in sanc:
                ctrl.append(p)
                sanc |= {p} | self.m[p]["sanc"]
        if ctrl:
            rec["ctrl"] = sorted(set(ctrl))
        rec["dt"] = dt
        rec["sh"] = None if sh is None else list(sh)
        rec["b"] = float(b)
        self.nodes.append(rec)
        self.m.append({"cls": cls, "dt": dt, "sh": sh, "st": sh if st is _SAME else st,
                       "b": float(b), "views": frozenset(views), "ref": ref,
                       "sanc": frozenset(sanc), "feedable": feedable and cls == "t" and not ref,
                       "op": rec["op"]})
        for v in writes:
            self.last_write[v] = i
            self.readers[v] = set()
        for v in set(reads) - set(writes):
            self.readers.setdefault(v, set()).add(i)
        return i

    def tensors(self, dt=None, pred=None):
        return [i for i, m in enumerate(self.m)
                if m["cls"] in ("t", "var") and m["dt"] in ("float32", "float64")
                and (dt is None or m["dt"] == dt) and (pred is None or pred(i, m))]

    def pick(self, dt=None, pred=None, views=0.5):
        cands = self.tensors(dt, pred)
        if not cands:
            return None
        viewing = [i for i in cands if self.m[i]["views"]]
        if viewing and self.rng.random() < views:
            return self.rng.choice(viewing)
        return self.rng.choice(cands)

    def unary_like(self, kind, x, sh, b, a, views, reads, ctrl=()):
        m = self.m[x]
        st = sh if _known(m) else None
        return self.add({"op": kind, "in": [x], "a": a}, "t", m["dt"], sh, st=st, b=b,
                        views=views, reads=reads, ctrl=ctrl)

    # -- leaves ------------------------------------------------------------------------
    def variable(self):
        rng = self.rng
        dt = "float32" if rng.random() < 0.7 else "float64"
        sh = rng.choice(_VAR_SHAPES)
        big = rng.choice([8.0, 32.0])
        i = self.add({"op": "var", "a": {"value": _value(rng, sh)}}, "var", dt, sh, b=big,
                     ref=True)
        self.m[i]["views"] = frozenset({i})
        self.budget[i] = {"B": big, "base": 2.0, "acc": 0.0}
        return i

    def placeholder(self):
        rng = self.rng
        dt = "float32" if rng.random() < 0.75 else "float64"
        sh = rng.choice([(2, 3), (3,), (), (2,), (3, 2)])
        static = list(sh)
        if sh and rng.random() < 0.3:
            static[0] = None
        return self.add({"op": "ph", "a": {"shape": static}}, "t", dt, sh,
                        st=tuple(static), b=2.0, feedable=False)

    def index_placeholder(self, n, k, unique):
        return self.add({"op": "ph", "a": {"shape": [k], "index": {"n": n, "unique": unique}}},
                        "idx", "int32", (k,), b=n, feedable=False)

    def const(self, dt=None, sh=None):
        rng = self.rng
        dt = dt or ("float32" if rng.random() < 0.7 else "float64")
        sh = sh if sh is not None else rng.choice([(2, 3), (3,), (), (2,), (3, 2), (1, 3)])
        value = _value(rng, sh)
        b = max([abs(v) for v in np.ravel(value)] + [0.01])
        return self.add({"op": "const", "a": {"value": value}}, "t", dt, sh, b=b)

    # -- computing ops -----------------------------------------------------------------
    def reads_of(self, *ins):
        out = set()
        for j in ins:
            out |= self.m[j]["views"]
        return out

    def g_unary(self):
        rng = self.rng
        fn = rng.choice(["negative", "exp", "square", "tanh", "abs", "sigmoid"])
        x = self.pick()
        if x is None:
            return None
        b = self.m[x]["b"]
        if fn == "exp":
            if b > 6:
                x = self.tanh_of(x)
                b = 1.0
            nb = math.exp(b)
        else:
            nb = {"negative": b, "square": b * b, "tanh": min(b, 1.0), "abs": b,
                  "sigmoid": 1.0}[fn]
        if nb > _MAX_BOUND:
            return None
        return self.unary_like("unary", x, self.m[x]["sh"], nb, {"fn": fn}, (),
                               self.reads_of(x))

    def tanh_of(self, x):
        return self.unary_like("unary", x, self.m[x]["sh"], min(self.m[x]["b"], 1.0),
                               {"fn": "tanh"}, (), self.reads_of(x))

    def g_binary(self):
        rng = self.rng
        x = self.pick()
        if x is None:
            return None
        mx = self.m[x]
        ys = self.tensors(mx["dt"], lambda j, m: _shape_of(np.add, mx["sh"], m["sh"])
                          is not None)
        y = rng.choice(ys)
        my = self.m[y]
        sh = _shape_of(np.add, mx["sh"], my["sh"])
        if _numel(sh) > _MAX_NUMEL:
            return None
        fn = rng.choice(["add", "subtract", "multiply", "maximum", "minimum"])
        bx, by = mx["b"], my["b"]
        b = {"add": bx + by, "subtract": bx + by, "multiply": bx * by,
             "maximum": max(bx, by), "minimum": max(bx, by)}[fn]
        if b > _MAX_BOUND:
            return None
        a = {"fn": fn}
        sym = {"add": "+", "subtract": "-", "multiply": "*"}.get(fn)
        if sym and (mx["cls"] == "var" or rng.random() < 0.3):
            a["sym"] = sym  # Variable's (and Tensor's) operators
        known = _known(mx) and _known(my)
        return self.add({"op": "binary", "in": [x, y], "a": a}, "t", mx["dt"], sh,
                        st=sh if known else None, b=b, reads=self.reads_of(x, y))

    def g_scalar(self):
        rng = self.rng
        x = self.pick()
        if x is None:
            return None
        sym = rng.choice(["*", "+", "-"])
        s = rng.choice([0.5, 2.0, -0.25, 1.5, 3.0])
        b = self.m[x]["b"] * abs(s) if sym == "*" else self.m[x]["b"] + abs(s)
        if b > _MAX_BOUND:
            return None
        return self.unary_like("scalar", x, self.m[x]["sh"], b,
                               {"sym": sym, "s": s, "left": sym == "-" and rng.random() < 0.5},
                               (), self.reads_of(x))

    def g_cast(self):
        x = self.pick()
        if x is None:
            return None
        m = self.m[x]
        dt = "float64" if m["dt"] == "float32" else "float32"
        return self.add({"op": "cast", "in": [x]}, "t", dt, m["sh"],
                        st=m["sh"] if _known(m) else None, b=m["b"],
                        reads=self.reads_of(x))

    def g_reduce(self):
        rng = self.rng
        x = self.pick()
        if x is None:
            return None
        m = self.m[x]
        rank = len(m["sh"])
        fn = rng.choice(["sum", "mean", "max"])
        if rank == 0 or rng.random() < 0.25:
            axis = None
        else:
            r = rng.random()
            if r < 0.08:
                axis = []
            elif r < 0.6:
                axis = rng.randrange(-rank, rank)
            else:
                axis = sorted(rng.sample(range(rank), rng.randint(1, rank)))
        keepdims = rng.random() < 0.3
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        sh = _shape_of(lambda z: np.sum(z, axis=np_axis, keepdims=keepdims), m["sh"])
        n = _numel(m["sh"]) // max(_numel(sh), 1)
        b = m["b"] * n if fn == "sum" else m["b"]
        if b > _MAX_BOUND:
            return None
        return self.unary_like("reduce", x, sh, b, {"fn": fn, "axis": axis,
                                                    "keepdims": keepdims}, m["views"],
                               self.reads_of(x))

    def g_matmul(self):
        rng = self.rng
        xs = self.tensors(pred=lambda j, m: len(m["sh"]) == 2)
        if not xs:
            return None
        x = rng.choice(xs)
        mx = self.m[x]
        ta = rng.random() < 0.3
        k = mx["sh"][0] if ta else mx["sh"][1]
        ys = [(y, tb) for y in self.tensors(mx["dt"], lambda j, m: len(m["sh"]) == 2)
              for tb in (False, True) if self.m[y]["sh"][1 if tb else 0] == k]
        if not ys:
            return None
        y, tb = rng.choice(ys)
        my = self.m[y]
        sh = (mx["sh"][1] if ta else mx["sh"][0], my["sh"][0] if tb else my["sh"][1])
        b = k * mx["b"] * my["b"]
        if b > _MAX_BOUND:
            return None
        return self.add({"op": "matmul", "in": [x, y], "a": {"ta": ta, "tb": tb}}, "t",
                        mx["dt"], sh, b=b, reads=self.reads_of(x, y))

    # -- pass-throughs -----------------------------------------------------------------
    def forward_ctrl(self, x):
        """Sometimes the batch-norm idiom: a pass-through under a write's control."""
        views = sorted(self.m[x]["views"])
        if views and self.rng.random() < 0.45:
            v = self.rng.choice(views)
            if v in self.last_write:
                return [self.last_write[v]]
        return []

    def g_forward(self):
        rng = self.rng
        kind = rng.choice(["value", "read_value", "read_value", "identity", "identity",
                           "stop_gradient", "reshape", "reshape", "expand_dims", "squeeze"])
        if kind in ("value", "read_value"):
            vs = [i for i, m in enumerate(self.m) if m["cls"] == "var"]
            x = rng.choice(vs)
        else:
            x = self.pick(views=0.75)
            if x is None:
                return None
        m = self.m[x]
        sh, a = m["sh"], {}
        if kind == "reshape":
            options = [list(sh)] + [list(s) for s in _VAR_SHAPES + [(6,), (1, 6), (2, 1, 3)]
                                    if _numel(s) == _numel(sh) and tuple(s) != sh]
            new = list(rng.choice(options))
            if new and rng.random() < 0.3:
                new[rng.randrange(len(new))] = -1
            a["shape"] = new
            sh = _shape_of(lambda z: z.reshape(new), sh)
        elif kind == "expand_dims":
            a["axis"] = rng.randint(-len(sh) - 1, len(sh))
            sh = _shape_of(lambda z: np.expand_dims(z, a["axis"]), sh)
        elif kind == "squeeze":
            ones = [d for d, n in enumerate(sh) if n == 1]
            a["axis"] = [rng.choice(ones)] if ones and rng.random() < 0.7 else None
            sh = _shape_of(lambda z: np.squeeze(z, None if a["axis"] is None
                                                else tuple(a["axis"])), sh)
        ctrl = [] if kind == "value" else self.forward_ctrl(x)
        if kind in ("value", "read_value"):
            return self.add({"op": kind, "in": [x]}, "t", m["dt"], sh, b=m["b"],
                            views={x}, ctrl=ctrl)
        if kind in ("identity", "stop_gradient"):
            rec = {"op": "unary", "in": [x], "a": {"fn": kind}}
        else:
            rec = {"op": kind, "in": [x], "a": a}
        st = sh if _known(m) else None
        i = self.add(rec, "t", m["dt"], sh, st=st, b=m["b"], views=m["views"], ctrl=ctrl)
        if kind in ("identity", "stop_gradient"):
            self.nodes[i]["fwd"] = kind
        return i

    # -- slicing and friends (may alias in TF when they are no-ops) ---------------------
    def g_slicing(self):
        rng = self.rng
        x = self.pick(pred=lambda j, m: len(m["sh"]) >= 1, views=0.6)
        if x is None:
            return None
        m = self.m[x]
        sh = m["sh"]
        kind = rng.choice(["slice", "getitem", "getitem", "transpose", "tile", "pad"])
        a = {}
        if kind == "slice":
            begin = [rng.randrange(n) for n in sh]
            size = [rng.randint(1, n - b) for n, b in zip(sh, begin)]
            if rng.random() < 0.25:
                begin, size = [0] * len(sh), list(sh)
            size = [-1 if rng.random() < 0.2 else s for s in size]
            a = {"begin": begin, "size": size}
            new = tuple(n - b if s == -1 else s for n, b, s in zip(sh, begin, size))
        elif kind == "getitem":
            items = []
            for n in sh[:rng.randint(1, len(sh))]:
                r = rng.random()
                if r < 0.35:
                    items.append(["i", rng.randrange(-n, n)])
                elif r < 0.55:
                    items.append(["s", None, None, None])
                else:
                    start = rng.choice([None, 0, 1 if n > 1 else 0])
                    stop = rng.choice([None, n, -1 if n > 1 else None])
                    step = rng.choice([None, None, 2, -1])
                    if step == -1:
                        start, stop = None, None
                    items.append(["s", start, stop, step])
            a = {"idx": items}
            keys = tuple(it[1] if it[0] == "i" else slice(*it[1:]) for it in items)
            new = _shape_of(lambda z: z[keys], sh)
            if new is None or 0 in new:
                return None
        elif kind == "transpose":
            perm = list(range(len(sh)))
            rng.shuffle(perm)
            a = {"perm": perm}
            new = tuple(sh[p] for p in perm)
        elif kind == "tile":
            mult = [rng.choice([1, 1, 2]) for _ in sh]
            a = {"multiples": mult}
            new = tuple(n * k for n, k in zip(sh, mult))
        else:
            pads = [[rng.choice([0, 0, 1]), rng.choice([0, 1])] for _ in sh]
            a = {"paddings": pads}
            new = tuple(n + p + q for n, (p, q) in zip(sh, pads))
        if _numel(new) > _MAX_NUMEL:
            return None
        return self.add({"op": kind, "in": [x], "a": a}, "t", m["dt"], new,
                        st=new if _known(m) else None, b=m["b"],
                        views=m["views"], reads=self.reads_of(x))

    def g_concat(self):
        rng = self.rng
        x = self.pick(pred=lambda j, m: len(m["sh"]) >= 1)
        if x is None:
            return None
        m = self.m[x]
        axis = rng.randrange(len(m["sh"]))

        def fits(j, o):
            return (len(o["sh"]) == len(m["sh"]) and j != x and
                    all(p == q for d, (p, q) in enumerate(zip(o["sh"], m["sh"])) if d != axis))
        others = self.tensors(m["dt"], fits)
        ins = [x] + rng.sample(others, min(len(others), rng.choice([0, 1, 1, 2])))
        rng.shuffle(ins)
        sh = list(m["sh"])
        sh[axis] = sum(self.m[j]["sh"][axis] for j in ins)
        if _numel(sh) > _MAX_NUMEL:
            return None
        views = frozenset().union(*[self.m[j]["views"] for j in ins])
        return self.add({"op": "concat", "in": ins, "a": {"axis": axis}}, "t", m["dt"],
                        tuple(sh), b=max(self.m[j]["b"] for j in ins), views=views,
                        reads=self.reads_of(*ins))

    def g_add_n(self):
        rng = self.rng
        x = self.pick()
        if x is None:
            return None
        m = self.m[x]
        same = self.tensors(m["dt"], lambda j, o: o["sh"] == m["sh"] and o["st"] == m["st"])
        ins = [x] + rng.sample(same, min(len(same), rng.choice([0, 1, 2])))
        b = sum(self.m[j]["b"] for j in ins)
        if b > _MAX_BOUND:
            return None
        views = frozenset().union(*[self.m[j]["views"] for j in ins])
        return self.add({"op": "add_n", "in": ins}, "t", m["dt"], m["sh"], st=m["st"], b=b,
                        views=views, reads=self.reads_of(*ins))

    def indices(self, n, unique):
        """A const list or a new int32 placeholder of row indices into ``n`` rows."""
        rng = self.rng
        k = rng.randint(1, n if unique else n + 1)
        if rng.random() < 0.4:
            return self.index_placeholder(n, k, unique), None
        vals = rng.sample(range(n), k) if unique else [rng.randrange(n) for _ in range(k)]
        return None, vals

    def g_gather(self):
        x = self.pick(pred=lambda j, m: len(m["sh"]) >= 1, views=0.6)
        if x is None:
            return None
        m = self.m[x]
        ph, vals = self.indices(m["sh"][0], unique=False)
        k = self.m[ph]["sh"][0] if ph is not None else len(vals)
        sh = (k,) + tuple(m["sh"][1:])
        rec = {"op": "gather", "in": [x] + ([ph] if ph is not None else []),
               "a": {} if ph is not None else {"indices": vals}}
        return self.add(rec, "t", m["dt"], sh, b=m["b"], reads=self.reads_of(x))

    # -- writes ------------------------------------------------------------------------
    def vars(self, pred=None):
        return [i for i, m in enumerate(self.m) if m["cls"] == "var"
                and (pred is None or pred(i, m))]

    def value_for(self, v, sh, limit):
        """A tensor of ``v``'s dtype and shape ``sh`` with bound <= limit (maybe a new
        constant)."""
        m = self.m[v]
        cands = self.tensors(m["dt"], lambda j, o: o["sh"] == tuple(sh) and o["b"] <= limit
                             and _known(o))
        if cands and self.rng.random() < 0.75:
            return self.rng.choice(cands)
        if limit < 2.0:
            return None
        return self.const(m["dt"], tuple(sh))

    def g_write(self):
        rng = self.rng
        vs = self.vars()
        if not vs:
            return None
        v = rng.choice(vs)
        m, bud = self.m[v], self.budget[v]
        kind = rng.choice(["assign", "assign", "assign_add", "assign_add", "assign_sub",
                           "scatter_update", "scatter_add", "scatter_sub"])
        if kind.startswith("scatter") and not m["sh"]:
            kind = "assign_add"
        half = bud["B"] / 2
        additive = kind in ("assign_add", "assign_sub", "scatter_add", "scatter_sub")
        if kind.startswith("scatter"):
            n = m["sh"][0]
            ph, vals = self.indices(n, unique=kind == "scatter_update" or rng.random() < 0.5)
            k = self.m[ph]["sh"][0] if ph is not None else len(vals)
            dups = k if (ph is not None and not self.nodes[ph]["a"]["index"]["unique"]
                         or vals is not None and len(set(vals)) < len(vals)) else 1
            limit = (half - bud["acc"]) / (self.n_steps * dups) if additive else half
            upd = self.value_for(v, (k,) + tuple(m["sh"][1:]), limit)
            if upd is None:
                return None
            ins = [v] + ([ph] if ph is not None else []) + [upd]
            a = {} if ph is not None else {"indices": vals}
            delta = self.m[upd]["b"] * dups
        else:
            limit = (half - bud["acc"]) / self.n_steps if additive else half
            upd = self.value_for(v, m["sh"], limit)
            if upd is None:
                return None
            ins, a = [v, upd], {"method": rng.random() < 0.3}
            delta = self.m[upd]["b"]
        if additive:
            bud["acc"] += delta * self.n_steps
        else:
            bud["base"] = max(bud["base"], delta)
        return self.add({"op": kind, "in": ins, "a": a}, "t", m["dt"], m["sh"], b=m["b"],
                        views={v}, ref=True, reads=self.reads_of(upd), writes={v})

    def sensitivity(self, i, v, memo):
        """An upper bound of max_j sum_i |d out_i / d v_j| (0 where no gradient flows)."""
        if (i, v) in memo:
            return memo[i, v]
        r, m = self.nodes[i], self.m[i]
        op, a, ins = r["op"], r.get("a", {}), r.get("in", [])

        def s(j):
            return self.sensitivity(j, v, memo)

        def rep(j):  # how many outputs each element of input j reaches by broadcasting
            return _numel(m["sh"]) / max(_numel(self.m[j]["sh"]), 1)
        if op == "var":
            out = 1.0 if i == v else 0.0
        elif op in ("ph", "const") or op in _WRITES or op in ("tuple", "group"):
            out = 0.0
        elif op == "unary":
            fn, b = a["fn"], self.m[ins[0]]["b"]
            k = math.exp(min(b, 700)) if fn == "exp" else {
                "negative": 1, "square": 2 * b, "tanh": 1, "abs": 1, "sigmoid": 0.25,
                "identity": 1, "stop_gradient": 0}[fn]
            out = k * s(ins[0])
        elif op == "scalar":
            out = (abs(a["s"]) if a["sym"] == "*" else 1.0) * s(ins[0])
        elif op == "binary":
            x, y = ins
            if a["fn"] == "multiply":
                out = (self.m[y]["b"] * rep(x) * s(x) + self.m[x]["b"] * rep(y) * s(y))
            else:
                out = rep(x) * s(x) + rep(y) * s(y)
        elif op == "matmul":
            x, y = ins
            out = (m["sh"][1] * self.m[y]["b"] * s(x) + m["sh"][0] * self.m[x]["b"] * s(y))
        elif op == "reduce" and a["fn"] == "mean":
            out = s(ins[0]) * _numel(m["sh"]) / max(_numel(self.m[ins[0]]["sh"]), 1)
        elif op == "tile":
            out = s(ins[0]) * _numel(a["multiples"])
        elif op == "gather":
            out = s(ins[0]) * m["sh"][0]
        elif op in ("concat", "add_n"):
            out = sum(s(j) for j in ins)
        elif op == "item":
            out = s(self.nodes[ins[0]]["in"][a["i"]])
        else:  # forwarding, slicing, transposing, padding, casting, sum/max reductions
            out = s(ins[0])
        memo[i, v] = out
        return out

    def data_reads(self, i, seen):
        """Every variable an op in ``i``'s data ancestry may read."""
        if i in seen:
            return set()
        seen.add(i)
        r = self.nodes[i]
        out = set(self.m[i]["views"])
        for j in r.get("in", []):
            out |= self.data_reads(j, seen)
        return out

    def g_minimize(self):
        rng = self.rng
        memo: dict = {}
        cands = []
        for e in self.tensors():
            if self.m[e]["cls"] == "var" or self.nodes[e]["op"] in _WRITES:
                continue
            sens = {v: self.sensitivity(e, v, memo) for v in self.vars()}
            if any(x > 0 for x in sens.values()):
                cands.append((e, sens))
        if not cands:
            return None
        e, sens = rng.choice(cands)
        var_list = [v for v in sorted(sens) if sens[v] > 0]
        var_list = rng.sample(var_list, rng.randint(1, len(var_list)))
        n = _numel(self.m[e]["sh"])
        lr = rng.choice([0.1, 0.05, 0.01])
        for v in var_list:  # |grad| <= max d(tanh^2)/dx * S / n
            bud = self.budget[v]
            room = bud["B"] / 2 - bud["acc"]
            step = 0.77 * sens[v] / n * self.n_steps
            if lr * step > room:
                lr = math.floor(room / step * 1000) / 1000
        if lr <= 0:
            return None
        t = self.tanh_of(e)
        sq = self.unary_like("unary", t, self.m[t]["sh"], 1.0, {"fn": "square"}, (),
                             self.reads_of(t))
        loss = self.unary_like("reduce", sq, (), 1.0, {"fn": "mean", "axis": None,
                                                       "keepdims": False}, (),
                               self.reads_of(sq))
        for v in var_list:
            self.budget[v]["acc"] += lr * 0.77 * sens[v] / n * self.n_steps
        reads = self.data_reads(loss, set())
        return self.add({"op": "minimize", "in": [loss] + var_list, "a": {"lr": lr}}, "op",
                        reads=reads, writes=set(var_list))

    # -- grouping ----------------------------------------------------------------------
    def g_group(self):
        ops = [i for i, m in enumerate(self.m) if m["cls"] in ("t", "op")
               and self.nodes[i]["op"] not in ("ph", "const", "value", "var")]
        if not ops:
            return None
        pick = sorted(self.rng.sample(ops, min(len(ops), self.rng.randint(1, 3))))
        sanc = set()
        for j in pick:
            sanc |= {j} | self.m[j]["sanc"]
        i = self.add({"op": "group", "a": {"ops": pick}}, "op")
        self.m[i]["sanc"] = frozenset(sanc | self.m[i]["sanc"])
        return i

    def g_tuple(self):
        rng = self.rng
        ins = []
        for _ in range(rng.randint(1, 2)):
            x = self.pick(pred=lambda j, m: not m["ref"] or m["cls"] == "var", views=0.7)
            if x is not None and x not in ins:
                ins.append(x)
        if not ins:
            return None
        writes = sorted({self.last_write[v] for j in ins for v in self.m[j]["views"]
                         if v in self.last_write})
        others = [i for i, m in enumerate(self.m) if m["cls"] == "op" or self.nodes[i]["op"]
                  in _WRITES]
        ci = writes if rng.random() < 0.7 else []
        if others and rng.random() < 0.3:
            ci = sorted(set(ci) | {rng.choice(others)})
        sanc = set()
        for j in ci:
            sanc |= {j} | self.m[j]["sanc"]
        for j in ins:  # the gate is a group of the tensors' ops too
            if self.m[j]["cls"] != "var" and self.nodes[j]["op"] != "value":
                sanc |= {j} | self.m[j]["sanc"]
        tup = self.add({"op": "tuple", "in": ins, "a": {"control_inputs": ci}}, "tup")
        self.m[tup]["sanc"] = frozenset(sanc)
        items = []
        for k, j in enumerate(ins):
            mj = self.m[j]
            it = self.add({"op": "item", "in": [tup], "a": {"i": k}}, "t", mj["dt"], mj["sh"],
                          st=mj["st"], b=mj["b"], views=mj["views"])
            self.m[it]["sanc"] = frozenset(sanc)
            items.append(it)
        return items[0]

    # -- the graph and its runs --------------------------------------------------------
    KINDS = [("unary", 10), ("binary", 14), ("scalar", 4), ("cast", 2), ("reduce", 5),
             ("matmul", 3), ("forward", 14), ("slicing", 7), ("concat", 2), ("add_n", 2),
             ("gather", 3), ("write", 16), ("minimize", 2), ("group", 2), ("tuple", 3)]

    def graph(self):
        rng = self.rng
        n_runs = rng.randint(2, 4)
        self.n_steps = n_runs + 3
        for _ in range(rng.randint(1, 4)):
            self.variable()
        for _ in range(rng.choice([0, 1, 1, 2])):
            self.placeholder()
        for _ in range(rng.choice([0, 1, 2])):
            self.const()
        kinds, weights = zip(*self.KINDS)
        minimized = 0
        for _ in range(rng.randint(8, 24)):
            kind = rng.choices(kinds, weights)[0]
            if kind == "minimize":
                if minimized >= 2:
                    continue
                minimized += 1
            getattr(self, f"g_{kind}")()
        return n_runs

    def feed_value(self, i, bad=False):
        rng, m, r = self.rng, self.m[i], self.nodes[i]
        if m["dt"] == "int32":
            spec = r["a"]["index"]
            n, k = spec["n"], m["sh"][0]
            if bad:
                vals = [rng.randrange(n) for _ in range(k)]
                vals[rng.randrange(k)] = rng.choice([n, n + 2, -1, -n - 1])
            elif spec["unique"]:
                vals = rng.sample(range(n), k)
            else:
                vals = [rng.randrange(n) for _ in range(k)]
            return [i, vals, "int32"]
        hi = min(m["b"], 2.0)
        return [i, _value(rng, m["sh"], hi, avoid_unit=False), m["dt"]]

    def run_step(self, prev=None):
        rng = self.rng
        placeholders = [i for i, r in enumerate(self.nodes) if r["op"] == "ph"]
        if prev is not None and rng.random() < 0.4:   # the same plan, new values
            return {"kind": "run", "fetch": prev["fetch"],
                    "feed": [self.feed_value(j) for j, _, _ in prev["feed"]]}
        fetchable = [i for i, m in enumerate(self.m) if m["cls"] in ("t", "var")]
        viewing = [i for i in fetchable if self.m[i]["views"]]
        ops = [i for i, m in enumerate(self.m) if m["cls"] == "op" or
               self.nodes[i]["op"] in _WRITES and self.m[i]["cls"] == "t"]
        fetch = []
        for _ in range(rng.randint(1, 5)):
            r = rng.random()
            if r < 0.4 and viewing:
                fetch.append(rng.choice(viewing))
            elif r < 0.85:
                fetch.append(rng.choice(fetchable))
            elif ops:
                j = rng.choice(ops)
                fetch.append(j if self.m[j]["cls"] == "op" or rng.random() < 0.5 else [j, "op"])
        feed = [self.feed_value(i) for i in placeholders]
        if rng.random() < 0.4:
            feedable = [i for i, m in enumerate(self.m) if m["feedable"]
                        and self.nodes[i]["op"] != "ph"]
            for i in rng.sample(feedable, min(len(feedable), rng.randint(1, 2))):
                feed.append(self.feed_value(i))
        return {"kind": "run", "fetch": fetch, "feed": feed}

    def runs(self, n_runs):
        rng = self.rng
        steps = []
        if rng.random() < 0.06:  # before the initializer: no writes (which would race with
            for _ in range(10):    # pass-throughs' reads of uninitialized variables)
                step = self.run_step()
                if not any(self.nodes[j]["op"] in _WRITES
                           for j in _closure({"nodes": self.nodes}, step)):
                    steps.append(step)
                    break
        steps.append({"kind": "init"})
        prev = None
        for k in range(n_runs):
            if k and rng.random() < 0.1:
                steps.append({"kind": "init"})
            prev = self.run_step(prev)
            steps.append(prev)
        if rng.random() < 0.12:
            step = self.run_step()
            ph = [f[0] for f in step["feed"] if self.nodes[f[0]]["op"] == "ph"]
            if ph:
                j = rng.choice(ph)
                if self.m[j]["dt"] == "int32" and rng.random() < 0.7:
                    step["feed"] = [self.feed_value(f[0], bad=f[0] == j) for f in step["feed"]]
                else:
                    step["feed"] = [f for f in step["feed"] if f[0] != j]
                steps.append(step)
        return steps


def make_spec(name):
    gen = _Gen(name)
    n_runs = gen.graph()
    return {"name": name, "nodes": gen.nodes, "runs": gen.runs(n_runs)}


def corpus(n, seed=SEED, only=ONLY):
    names = [f"{seed}/{i}" for i in range(n)]
    if only:
        keep = {int(s) for s in only.split(",")}
        names = [nm for k, nm in enumerate(names) if k in keep]
    return [make_spec(nm) for nm in names]


# ── Analysis of a spec (independent of the generator's bookkeeping) ──────────────────
def _views(spec):
    nodes = spec["nodes"]
    views = []
    for i, r in enumerate(nodes):
        op, ins = r["op"], r.get("in", [])
        if op == "var":
            v = {i}
        elif op in ("assign", "assign_add", "assign_sub") or op.startswith("scatter_"):
            v = {ins[0]}
        elif op == "item":
            v = set(views[nodes[ins[0]]["in"][r["a"]["i"]]])
        elif op in _FORWARD or op in _MAYBE or (op == "unary" and r["a"]["fn"] in
                                                ("identity", "stop_gradient")):
            v = set().union(*[views[j] for j in ins]) if op in ("concat", "add_n") \
                else set(views[ins[0]])
        else:
            v = set()
        views.append(v)
    return views


def _is_forward(r):
    return r["op"] in _FORWARD or r["op"] == "unary" and r["a"]["fn"] in (
        "identity", "stop_gradient")


def _closure(spec, step):
    """The records a run executes: back from its fetches; feeds cut data edges."""
    nodes = spec["nodes"]
    fed = {f[0] for f in step["feed"]}
    stack = [f if isinstance(f, int) else f[0] for f in step["fetch"]]
    stack = [j for j in stack if j not in fed or not isinstance(j, int)]
    seen = set()
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        r = nodes[i]
        stack += [j for j in r.get("in", []) if j not in fed]
        stack += r.get("ctrl", [])
        if r["op"] == "group":
            stack += r["a"]["ops"]
        if r["op"] == "tuple":
            stack += r["a"]["control_inputs"] + r["in"]
    return seen


def _ctrl_ancestors(spec):
    """Per record, the records ordered before it by control edges and ref data edges."""
    nodes = spec["nodes"]
    anc = []
    for r in nodes:
        a = set()
        deps = list(r.get("ctrl", []))
        deps += [j for j in r.get("in", []) if nodes[j]["op"] in _WRITES | {"var"}]
        if r["op"] == "group":
            deps += r["a"]["ops"]
        if r["op"] in ("tuple", "item"):
            deps += (r["a"].get("control_inputs", []) + r.get("in", []))
        for j in deps:
            a |= {j} | anc[j]
        anc.append(a)
    return anc


def features(spec):
    """How often this spec exercises each feature the corpus must cover."""
    nodes = spec["nodes"]
    views = _views(spec)
    anc = _ctrl_ancestors(spec)
    out = Counter()
    runs = [s for s in spec["runs"] if s["kind"] == "run"]
    out["repeated runs"] += len(runs) >= 2
    sigs = [(json.dumps(s["fetch"]), tuple(f[0] for f in s["feed"])) for s in runs]
    out["repeated plan"] += len(sigs) - len(set(sigs))
    out["float64"] += any(r["dt"] == "float64" for r in nodes)
    for s in spec["runs"]:
        if s["kind"] != "run":
            continue
        run = _closure(spec, s)
        fed = {f[0] for f in s["feed"]}
        writes = {i for i in run if nodes[i]["op"] in _WRITES}
        written = {v for i in writes for v in
                   ([nodes[i]["in"][0]] if nodes[i]["op"] != "minimize" else nodes[i]["in"][1:])}
        for i in run:
            r = nodes[i]
            ins = [j for j in r.get("in", []) if j not in fed]
            if not _is_forward(r) and r["op"] not in ("var", "tuple"):
                read = set().union(*[views[j] for j in ins]) if ins else set()
                if any(w in anc[i] and (nodes[w]["op"] == "minimize" and v in nodes[w]["in"][1:]
                                        or nodes[w]["in"][:1] == [v])
                       for v in read for w in writes):
                    out["read after write (ordered)"] += 1
            if _is_forward(r) and ins and views[ins[0]] and r["op"] != "value":
                out["pass-through of a variable"] += 1
                if r.get("ctrl"):
                    out["pass-through under control deps"] += 1
            if r["op"] == "minimize":
                out["optimizer step"] += 1
            if r["op"].startswith("scatter_"):
                out["scatter write"] += 1
            if r["op"] == "tuple" and r["a"]["control_inputs"]:
                out["tuple with control_inputs"] += 1
            if r["op"] == "group":
                out["group"] += 1
        for f in s["fetch"]:
            j = f if isinstance(f, int) else f[0]
            if nodes[j]["op"] not in ("var", "ph", "const", "group", "minimize"):
                out["fetched intermediate"] += 1
            if views[j] & written and j not in fed:
                out["fetched alias of a written variable"] += 1
            if nodes[j]["op"] in _WRITES and isinstance(f, int):
                out["fetched write output"] += 1
        out["fed intermediate"] += sum(nodes[f[0]]["op"] != "ph" for f in s["feed"])
    return out


# ── Running and comparing ─────────────────────────────────────────────────────────────
def run_ours(spec, passes_list, monkeypatch):
    """Builds ``spec`` once; runs it in one session per entry of ``passes_list``."""
    g = scopeflow.Graph()
    try:
        with g.as_default():
            ns = build(scopeflow, spec)
    except Exception as e:  # noqa: BLE001 - compared with TF's
        return [[{"build_err": type(e).__name__, "msg": str(e)[:300]}] for _ in passes_list]
    out = []
    for passes in passes_list:
        monkeypatch.setenv(PASSES_ENV, passes)
        sess = scopeflow.Session(graph=g)
        with g.as_default():
            out.append(run_spec(spec, ns, sess))
        sess.close()
    return out


def _same_bits(a, b):
    if type(a) is not type(b):
        return False
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    nan = np.isnan(a)
    return (np.array_equal(a, b, equal_nan=True) and np.array_equal(nan, np.isnan(b))
            and np.array_equal(np.signbit(a[~nan]), np.signbit(b[~nan])))


def _fmt(x):
    if x is None:
        return "None"
    return f"{type(x).__name__} {np.asarray(x).dtype} {np.asarray(x).tolist()}"


def diff_exact(spec, a_runs, b_runs, labels=("on", "off")):
    """Where two scopeflow result lists differ at all (messages; empty when identical)."""
    msgs = []
    if len(a_runs) != len(b_runs):
        msgs.append(f"{len(a_runs)} vs {len(b_runs)} runs completed")
    for k, (a, b) in enumerate(zip(a_runs, b_runs)):
        if "ok" not in a or "ok" not in b:
            ea = a.get("err", a.get("build_err"))
            eb = b.get("err", b.get("build_err"))
            if ea != eb or ("ok" in a) != ("ok" in b):
                msgs.append(f"run {k}: {labels[0]}={ea or 'ok'} {a.get('msg', '')!r} "
                            f"{labels[1]}={eb or 'ok'} {b.get('msg', '')!r}")
            continue
        fetch = _fetch_ids(spec, k)
        for f, x, y in zip(fetch, a["ok"], b["ok"]):
            if (x is None) != (y is None) or (x is not None and not _same_bits(x, y)):
                msgs.append(f"run {k} fetch n{f}: {labels[0]}={_fmt(x)} {labels[1]}={_fmt(y)}")
    return msgs


def _fetch_ids(spec, k):
    step = spec["runs"][k]
    if step["kind"] == "init":
        return ["init"]
    return [f if isinstance(f, int) else f"{f[0]}.op" for f in step["fetch"]]


def _decode(v):
    return np.array(v["data"], dtype=v["dtype"]).reshape(v["shape"])


def diff_tf(spec, ours, theirs):
    """Where our encoded results differ from TF's beyond the tolerance (messages)."""
    msgs = []
    low = _low_precision(spec)
    if ours[:1] and "build_err" in ours[0] or theirs[:1] and "build_err" in theirs[0]:
        if ours[:1] != theirs[:1] and (ours[0].get("build_err") != theirs[0].get("build_err")):
            msgs.append(f"build: ours={ours[0]} tf={theirs[0]}")
        return msgs
    if len(ours) != len(theirs):
        msgs.append(f"{len(ours)} runs completed, TF {len(theirs)}")
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if "ok" not in a or "ok" not in b:
            if a.get("err") != b.get("err"):
                msgs.append(f"run {k}: ours={a.get('err', 'ok')} {a.get('msg', '')!r} "
                            f"tf={b.get('err', 'ok')} {b.get('msg', '')!r}")
            continue
        for f, x, y in zip(_fetch_ids(spec, k), a["ok"], b["ok"]):
            if x is None or y is None:
                if (x is None) != (y is None):
                    msgs.append(f"run {k} fetch n{f}: ours={x} tf={y}")
                continue
            head = (x["type"], x["dtype"], x["shape"])
            if head != (y["type"], y["dtype"], y["shape"]):
                msgs.append(f"run {k} fetch n{f}: ours {head} tf "
                            f"{(y['type'], y['dtype'], y['shape'])}")
                continue
            xa, ya = _decode(x), _decode(y)
            if xa.dtype.kind != "f":
                ok = np.array_equal(xa, ya)
            else:
                bound = spec["nodes"][f]["b"] if isinstance(f, int) else 0.0
                rtol = RTOL["float32" if f in low else xa.dtype.name]
                with np.errstate(invalid="ignore"):
                    close = np.abs(xa - ya) <= rtol * (np.abs(ya) + bound)
                ok = bool(np.all(close | (xa == ya) | (np.isnan(xa) & np.isnan(ya))))
            if not ok:
                msgs.append(f"run {k} fetch n{f}: ours={xa.tolist()} tf={ya.tolist()}")
    return msgs


def _low_precision(spec):
    """Nodes whose values may carry float32 rounding: float32 ones, and those computed from
    them (a variable, from every value written to it)."""
    nodes = spec["nodes"]
    sources = [list(r.get("in", [])) for r in nodes]
    for i, r in enumerate(nodes):
        if r["op"] == "item":
            sources[i] = [nodes[r["in"][0]]["in"][r["a"]["i"]]]
        elif r["op"] == "minimize":
            for v in r["in"][1:]:
                sources[v].append(r["in"][0])
        elif r["op"] in _WRITES:
            sources[r["in"][0]] += r["in"][1:]
    low = {i for i, r in enumerate(nodes) if r.get("dt") == "float32"}
    changed = True
    while changed:
        changed = False
        for i, src in enumerate(sources):
            if i not in low and any(j in low for j in src):
                low.add(i)
                changed = True
    return low


def _report(title, failures, seed=SEED):
    out = [f"{title}: {len(failures)} graph(s) differ (SCOPEFLOW_DIFF_SEED={seed}; rerun one "
           f"with SCOPEFLOW_DIFF_ONLY=<index>)"]
    for spec, msgs in failures[:MAX_REPORTED]:
        idx = spec["name"].rsplit("/", 1)[-1]
        out.append(f"\n=== graph {spec['name']} (SCOPEFLOW_DIFF_ONLY={idx}) ===")
        out += msgs[:8]
        out.append("--- program (TF1) ---")
        out.append(program(spec, runs=True))
        out.append("--- spec ---")
        out.append(json.dumps(spec, separators=(",", ":")))
    return "\n".join(out)


# ── Tests ─────────────────────────────────────────────────────────────────────────────
@pytest.fixture(scope="module")
def specs():
    return corpus(max(N_GRAPHS, N_TF_GRAPHS))


def test_generator_is_deterministic_and_builds():
    a, b = corpus(20, seed="det"), corpus(20, seed="det")
    assert json.dumps(a) == json.dumps(b)
    for spec in a:
        g = scopeflow.Graph()
        with g.as_default():
            build(scopeflow, spec)
        compile(program(spec, runs=True), spec["name"], "exec")


def test_corpus_covers_every_feature():
    total = Counter()
    for spec in corpus(300, only=None):
        total.update(features(spec))
    minimum = 20
    required = ["read after write (ordered)", "pass-through of a variable",
                "pass-through under control deps", "fetched intermediate",
                "fetched alias of a written variable", "fetched write output",
                "fed intermediate", "repeated runs", "repeated plan", "optimizer step",
                "scatter write", "tuple with control_inputs", "group", "float64"]
    missing = {k: total[k] for k in required if total[k] < minimum}
    assert not missing, f"corpus lacks features (need {minimum} each): {missing}; {total}"


def test_plan_passes_on_vs_off(specs, monkeypatch):
    t0 = time.perf_counter()
    failures = []
    runs = 0
    for spec in specs[:N_GRAPHS]:
        on, off = run_ours(spec, ["all", "none"], monkeypatch)
        runs += len(on)
        msgs = diff_exact(spec, on, off)
        if msgs:
            failures.append((spec, msgs))
    elapsed = time.perf_counter() - t0
    print(f"on vs off: {len(specs[:N_GRAPHS])} graphs, {runs} runs, {elapsed:.1f} s")
    if failures:
        pytest.fail(_report("plan passes on vs off", failures), pytrace=False)


def test_comparison_catches_a_wrong_kernel(monkeypatch):
    """The on-vs-off comparison is not vacuous: a Tanh kernel one ulp off in the "on"
    session only is caught in most graphs whose fetches depend on a Tanh."""
    from scopeflow.framework.opdef import OpDef

    tanh_specs = [s for s in corpus(60, only=None) if any(r["op"] == "unary" and r["a"]["fn"] == "tanh"
                                               for r in s["nodes"])]
    assert len(tanh_specs) >= 10
    caught = 0
    for spec in tanh_specs:
        g = scopeflow.Graph()
        with g.as_default():
            ns = build(scopeflow, spec)
        tanh_defs = {op._op_def for op in g.get_operations() if op.type == "Tanh"}
        assert tanh_defs and all(isinstance(od, OpDef) for od in tanh_defs)
        results = []
        for passes in ("all", "none"):
            monkeypatch.setenv(PASSES_ENV, passes)
            with monkeypatch.context() as m:
                if passes == "all":
                    for od in tanh_defs:
                        orig = od.kernel
                        m.setattr(od, "kernel", lambda x, _k=orig: np.nextafter(
                            _k(x), np.asarray(np.inf, np.asarray(x).dtype)))
                sess = scopeflow.Session(graph=g)
                with g.as_default():
                    results.append(run_spec(spec, ns, sess))
        caught += bool(diff_exact(spec, *results))
    assert caught >= len(tanh_specs) // 3, (caught, len(tanh_specs))


def test_comparison_catches_perturbed_results(monkeypatch):
    """Both comparisons flag a perturbed value, a stale value, a dtype and an error."""
    spec = next(s for s in corpus(20, only=None) if any(
        "ok" in r and any(v is not None and np.asarray(v).dtype == np.float32
                          and np.asarray(v).size for v in r["ok"])
        for r in run_ours(s, ["all"], monkeypatch)[0]))
    (ours,) = run_ours(spec, ["all"], monkeypatch)
    k, j = next((k, j) for k, r in enumerate(ours) if "ok" in r
                for j, v in enumerate(r["ok"]) if v is not None
                and np.asarray(v).dtype == np.float32 and np.asarray(v).size)

    def changed(fn):
        out = json.loads(json.dumps(encode(ours)))
        if fn is not None:
            fn(out[k]["ok"][j])
        return out

    def one_ulp(v):
        v["data"][0] = float(np.nextafter(np.float32(v["data"][0]), np.float32(np.inf)))

    def stale(v):
        v["data"][0] = v["data"][0] + 0.5

    def as_double(v):
        v["dtype"] = "float64"

    assert not diff_tf(spec, encode(ours), changed(None))
    assert diff_tf(spec, encode(ours), changed(stale))
    assert diff_tf(spec, encode(ours), changed(as_double))
    assert diff_tf(spec, encode(ours), changed(None)[:k] + [{"err": "InvalidArgumentError"}])
    perturbed = [dict(r) for r in ours]
    value = np.array(ours[k]["ok"][j], copy=True)
    value.flat[0] = np.nextafter(value.flat[0], np.float32(np.inf))
    perturbed[k] = {"ok": list(ours[k]["ok"])}
    perturbed[k]["ok"][j] = value if isinstance(ours[k]["ok"][j], np.ndarray) else value[()]
    assert diff_exact(spec, ours, perturbed)
    assert not diff_exact(spec, ours, ours)
    one = changed(one_ulp)  # within TF's tolerance, but not bit-identical
    assert not diff_tf(spec, encode(ours), one)


_TF_SNIPPET = """
import time
exec({source!r})
with open({path!r}) as f:
    specs = json.load(f)
config = tf.ConfigProto()
# grappler's arithmetic optimizer does not keep control dependencies' order for variables
# (see the module docstring); the oracle is the graph's own semantics.
config.graph_options.rewrite_options.disable_meta_optimizer = {no_grappler!r}
results = []
t0 = time.time()
for spec in specs:
    g = tf.Graph()
    with g.as_default():
        try:
            ns = build(tf, spec)
        except Exception as e:
            results.append([{{"build_err": type(e).__name__, "msg": str(e)[:300]}}])
            continue
        with tf.Session(graph=g, config=config) as sess:
            results.append(encode(run_spec(spec, ns, sess)))
print(json.dumps({{"results": results, "seconds": time.time() - t0}}))
"""


@pytest.mark.tf
def test_plan_matches_tensorflow(specs, tf1, monkeypatch, tmp_path):
    chosen = specs[:N_TF_GRAPHS]
    path = tmp_path / "specs.json"
    path.write_text(json.dumps(chosen))
    source = "\n\n".join(inspect.getsource(f) for f in (program, build, run_spec, encode))
    t0 = time.perf_counter()
    out = tf1(_TF_SNIPPET.format(source=source, path=str(path), no_grappler=not GRAPPLER))
    t_tf = time.perf_counter() - t0
    failures = []
    for spec, theirs in zip(chosen, out["results"]):
        (ours,) = run_ours(spec, ["all"], monkeypatch)
        ours = ours if ours[:1] and "build_err" in ours[0] else encode(ours)
        msgs = diff_tf(spec, ours, theirs)
        if msgs:
            failures.append((spec, msgs))
    print(f"vs TF: {len(chosen)} graphs; TF process {t_tf:.1f} s "
          f"({out['seconds']:.1f} s running graphs)")
    if failures:
        pytest.fail(_report("scopeflow vs TensorFlow", failures), pytrace=False)
