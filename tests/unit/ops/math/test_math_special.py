"""math_ops pinned against TensorFlow: op types, default names, dtypes, shapes, messages.

Every expected value below was observed with TensorFlow 2.21 (``tf.compat.v1`` with
``disable_v2_behavior``) by building the same graph and printing, for each op that is not a
placeholder, ``name:type(input names)``, plus the output's dtype and static shape.
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors


def _desc(g):
    return "; ".join(f"{o.name}:{o.type}({','.join(t.name for t in o.inputs)})"
                     for o in g.get_operations() if o.type != "Placeholder")


def _build(fn):
    g = tf.Graph()
    with g.as_default():
        ph = {
            "a": tf.placeholder(tf.float32, [2, 3], name="a"),
            "b": tf.placeholder(tf.float32, [3], name="b"),
            "i": tf.placeholder(tf.int32, [2, 3], name="i"),
            "j": tf.placeholder(tf.int32, [3], name="j"),
            "p": tf.placeholder(tf.bool, [3], name="p"),
            "q": tf.placeholder(tf.bool, [3], name="q"),
            "c": tf.placeholder(tf.float32, [5, 2, 3], name="c"),
            "m": tf.placeholder(tf.float32, [3, 4], name="m"),
            "u": tf.placeholder(tf.float32, None, name="u"),
        }
        out = fn(**ph)
    return g, out


# (label, builder, graph description, dtype, shape) — all from TF 2.21.
F32_23 = ("float32", "(2, 3)")
GRAPHS = [
    ("a+b", lambda a, b, **k: a + b, "add:AddV2(a:0,b:0)", *F32_23),
    ("a+1", lambda a, **k: a + 1, "add/y:Const(); add:AddV2(a:0,add/y:0)", *F32_23),
    ("1+a", lambda a, **k: 1 + a, "add/x:Const(); add:AddV2(add/x:0,a:0)", *F32_23),
    ("tf.add", lambda a, b, **k: tf.add(a, b), "Add:AddV2(a:0,b:0)", *F32_23),
    ("tf.add(a,1)", lambda a, **k: tf.add(a, 1), "Add/y:Const(); Add:AddV2(a:0,Add/y:0)", *F32_23),
    ("a-b", lambda a, b, **k: a - b, "sub:Sub(a:0,b:0)", *F32_23),
    ("2-a", lambda a, **k: 2 - a, "sub/x:Const(); sub:Sub(sub/x:0,a:0)", *F32_23),
    ("tf.subtract", lambda a, b, **k: tf.subtract(a, b), "Sub:Sub(a:0,b:0)", *F32_23),
    ("a*b", lambda a, b, **k: a * b, "mul:Mul(a:0,b:0)", *F32_23),
    ("tf.multiply", lambda a, b, **k: tf.multiply(a, b), "Mul:Mul(a:0,b:0)", *F32_23),
    ("a/b", lambda a, b, **k: a / b, "truediv:RealDiv(a:0,b:0)", *F32_23),
    ("1/a", lambda a, **k: 1 / a, "truediv/x:Const(); truediv:RealDiv(truediv/x:0,a:0)", *F32_23),
    ("i/j", lambda i, j, **k: i / j, "truediv/Cast:Cast(i:0); truediv/Cast_1:Cast(j:0); "
     "truediv:RealDiv(truediv/Cast:0,truediv/Cast_1:0)", "float64", "(2, 3)"),
    ("tf.divide i", lambda i, j, **k: tf.divide(i, j), "truediv/Cast:Cast(i:0); "
     "truediv/Cast_1:Cast(j:0); truediv:RealDiv(truediv/Cast:0,truediv/Cast_1:0)",
     "float64", "(2, 3)"),
    ("tf.div f", lambda a, b, **k: tf.div(a, b), "div:RealDiv(a:0,b:0)", *F32_23),
    ("tf.div i", lambda i, j, **k: tf.div(i, j), "div:FloorDiv(i:0,j:0)", "int32", "(2, 3)"),
    ("tf.realdiv", lambda a, b, **k: tf.realdiv(a, b), "RealDiv:RealDiv(a:0,b:0)", *F32_23),
    ("a//b", lambda a, b, **k: a // b, "floordiv:FloorDiv(a:0,b:0)", *F32_23),
    ("i//j", lambda i, j, **k: i // j, "floordiv:FloorDiv(i:0,j:0)", "int32", "(2, 3)"),
    ("tf.floordiv", lambda a, b, **k: tf.floordiv(a, b), "floordiv:FloorDiv(a:0,b:0)", *F32_23),
    ("a%b", lambda a, b, **k: a % b, "mod:FloorMod(a:0,b:0)", *F32_23),
    ("tf.mod", lambda a, b, **k: tf.mod(a, b), "FloorMod:FloorMod(a:0,b:0)", *F32_23),
    ("a**b", lambda a, b, **k: a ** b, "pow:Pow(a:0,b:0)", *F32_23),
    ("2**a", lambda a, **k: 2 ** a, "pow/x:Const(); pow:Pow(pow/x:0,a:0)", *F32_23),
    ("tf.pow", lambda a, b, **k: tf.pow(a, b), "Pow:Pow(a:0,b:0)", *F32_23),
    ("-a", lambda a, **k: -a, "Neg:Neg(a:0)", *F32_23),
    ("abs(a)", lambda a, **k: abs(a), "Abs:Abs(a:0)", *F32_23),
    ("sigmoid", lambda a, **k: tf.sigmoid(a), "Sigmoid:Sigmoid(a:0)", *F32_23),
    ("rsqrt", lambda a, **k: tf.rsqrt(a), "Rsqrt:Rsqrt(a:0)", *F32_23),
    ("maximum", lambda a, b, **k: tf.maximum(a, b), "Maximum:Maximum(a:0,b:0)", *F32_23),
    ("add_n", lambda a, **k: tf.add_n([a, a, a]), "AddN:AddN(a:0,a:0,a:0)", *F32_23),
    ("add_n1", lambda a, **k: tf.add_n([a]), "", *F32_23),
    ("clip", lambda a, **k: tf.clip_by_value(a, -1., 1.),
     "clip_by_value/Minimum/y:Const(); clip_by_value/Minimum:Minimum(a:0,clip_by_value/Minimum/y:0)"
     "; clip_by_value/y:Const(); clip_by_value:Maximum(clip_by_value/Minimum:0,clip_by_value/y:0)",
     *F32_23),
    ("round i", lambda i, **k: tf.round(i), "", "int32", "(2, 3)"),
    ("scalar_mul", lambda a, **k: tf.scalar_mul(2., a), "scalar:Const(); Mul:Mul(scalar:0,a:0)",
     *F32_23),
    ("sqdiff", lambda a, b, **k: tf.squared_difference(a, b),
     "SquaredDifference:SquaredDifference(a:0,b:0)", *F32_23),
    ("a<b", lambda a, b, **k: a < b, "Less:Less(a:0,b:0)", "bool", "(2, 3)"),
    ("a>=1", lambda a, **k: a >= 1,
     "GreaterEqual/y:Const(); GreaterEqual:GreaterEqual(a:0,GreaterEqual/y:0)", "bool", "(2, 3)"),
    ("equal 1", lambda a, **k: tf.equal(a, 1), "Equal/y:Const(); Equal:Equal(a:0,Equal/y:0)",
     "bool", "(2, 3)"),
    ("p&q", lambda p, q, **k: p & q, "and:LogicalAnd(p:0,q:0)", "bool", "(3,)"),
    ("p|q", lambda p, q, **k: p | q, "or:LogicalOr(p:0,q:0)", "bool", "(3,)"),
    ("p^q", lambda p, q, **k: p ^ q, "xor/LogicalOr:LogicalOr(p:0,q:0); "
     "xor/LogicalAnd:LogicalAnd(p:0,q:0); xor/LogicalNot:LogicalNot(xor/LogicalAnd:0); "
     "xor:LogicalAnd(xor/LogicalOr:0,xor/LogicalNot:0)", "bool", "(3,)"),
    ("~p", lambda p, **k: ~p, "LogicalNot:LogicalNot(p:0)", "bool", "(3,)"),
    ("logical_xor", lambda p, q, **k: tf.logical_xor(p, q), "LogicalOr:LogicalOr(p:0,q:0); "
     "LogicalAnd:LogicalAnd(p:0,q:0); LogicalNot:LogicalNot(LogicalAnd:0); "
     "LogicalXor:LogicalAnd(LogicalOr:0,LogicalNot:0)", "bool", "(3,)"),
    ("where3", lambda p, b, **k: tf.where(p, b, b), "Select:Select(p:0,b:0,b:0)", "float32",
     "(3,)"),
    ("where1", lambda p, **k: tf.where(p), "Where:Where(p:0)", "int64", "(?, 1)"),
    ("where1 f", lambda a, **k: tf.where(a), "Where:Where(a:0)", "int64", "(?, 2)"),
    ("a+[1,2,3]", lambda a, **k: a + [1, 2, 3], "add/y:Const(); add:AddV2(a:0,add/y:0)",
     *F32_23),
    ("a+np f64", lambda a, **k: a + np.ones(3), "add/y:Const(); add:AddV2(a:0,add/y:0)", *F32_23),
    ("sum", lambda a, **k: tf.reduce_sum(a), "Const:Const(); Sum:Sum(a:0,Const:0)", "float32",
     "()"),
    ("sum ax1", lambda a, **k: tf.reduce_sum(a, 1),
     "Sum/reduction_indices:Const(); Sum:Sum(a:0,Sum/reduction_indices:0)", "float32", "(2,)"),
    ("sum -1 kd", lambda a, **k: tf.reduce_sum(a, -1, keepdims=True),
     "Sum/reduction_indices:Const(); Sum:Sum(a:0,Sum/reduction_indices:0)", "float32", "(2, 1)"),
    ("sum keep_dims", lambda a, **k: tf.reduce_sum(a, 0, keep_dims=True),
     "Sum/reduction_indices:Const(); Sum:Sum(a:0,Sum/reduction_indices:0)", "float32", "(1, 3)"),
    ("sum list", lambda c, **k: tf.reduce_sum(c, [0, 2]),
     "Sum/reduction_indices:Const(); Sum:Sum(c:0,Sum/reduction_indices:0)", "float32", "(2,)"),
    ("sum name", lambda a, **k: tf.reduce_sum(a, name="foo"), "Const:Const(); foo:Sum(a:0,Const:0)",
     "float32", "()"),
    ("sum unknown", lambda u, **k: tf.reduce_sum(u, 1),
     "Sum/reduction_indices:Const(); Sum:Sum(u:0,Sum/reduction_indices:0)", "float32",
     "<unknown>"),
    ("sum unknown all", lambda u, **k: tf.reduce_sum(u), "Rank:Rank(u:0); range/start:Const(); "
     "range/delta:Const(); range:Range(range/start:0,Rank:0,range/delta:0); Sum:Sum(u:0,range:0)",
     "float32", "()"),
    ("mean i", lambda i, **k: tf.reduce_mean(i, 0),
     "Mean/reduction_indices:Const(); Mean:Mean(i:0,Mean/reduction_indices:0)", "int32", "(3,)"),
    ("all", lambda p, **k: tf.reduce_all(p, 0),
     "All/reduction_indices:Const(); All:All(p:0,All/reduction_indices:0)", "bool", "()"),
    ("argmax", lambda a, **k: tf.argmax(a, 1),
     "ArgMax/dimension:Const(); ArgMax:ArgMax(a:0,ArgMax/dimension:0)", "int64", "(2,)"),
    ("argmax none", lambda a, **k: tf.argmax(a),
     "ArgMax/dimension:Const(); ArgMax:ArgMax(a:0,ArgMax/dimension:0)", "int64", "(3,)"),
    ("argmin i32", lambda a, **k: tf.argmin(a, -1, output_type=tf.int32),
     "ArgMin/dimension:Const(); ArgMin:ArgMin(a:0,ArgMin/dimension:0)", "int32", "(2,)"),
    ("matmul", lambda a, m, **k: tf.matmul(a, m), "MatMul:MatMul(a:0,m:0)", "float32", "(2, 4)"),
    ("matmul ta", lambda a, **k: tf.matmul(a, a, transpose_a=True), "MatMul:MatMul(a:0,a:0)",
     "float32", "(3, 3)"),
    ("op@", lambda a, m, **k: a @ m, "matmul:MatMul(a:0,m:0)", "float32", "(2, 4)"),
    ("bmm", lambda c, m, **k: tf.matmul(c, m), "MatMul:BatchMatMulV2(c:0,m:0)", "float32",
     "(5, 2, 4)"),
    ("bmm adj", lambda c, **k: tf.matmul(c, c, transpose_a=True),
     "MatMul:BatchMatMulV2(c:0,c:0)", "float32", "(5, 3, 3)"),
    ("matmul unk", lambda u, m, **k: tf.matmul(u, m), "MatMul:BatchMatMulV2(u:0,m:0)",
     "float32", "<unknown>"),
    ("tensordot1", lambda a, m, **k: tf.tensordot(a, m, 1), "Tensordot/MatMul:MatMul(a:0,m:0)",
     "float32", "(2, 4)"),
    ("cast", lambda a, **k: tf.cast(a, tf.int32), "Cast:Cast(a:0)", "int32", "(2, 3)"),
    ("cast same", lambda a, **k: tf.cast(a, tf.float32), "", *F32_23),
    ("cast py", lambda **k: tf.cast(1.5, tf.int32), "Cast/x:Const(); Cast:Cast(Cast/x:0)",
     "int32", "()"),
    ("to_float", lambda i, **k: tf.to_float(i), "ToFloat:Cast(i:0)", *F32_23),
    ("to_int64", lambda a, **k: tf.to_int64(a), "ToInt64:Cast(a:0)", "int64", "(2, 3)"),
    ("saturate", lambda a, **k: tf.saturate_cast(a, tf.uint8),
     "saturate_cast/Const:Const(); saturate_cast/Const_1:Const(); saturate_cast/clamp:ClipByValue"
     "(a:0,saturate_cast/Const:0,saturate_cast/Const_1:0); saturate_cast:Cast(saturate_cast/clamp:0)",
     "uint8", "(2, 3)"),
    ("range", lambda **k: tf.range(5), "range/start:Const(); range/limit:Const(); "
     "range/delta:Const(); range:Range(range/start:0,range/limit:0,range/delta:0)", "int32", "(5,)"),
    ("range f", lambda **k: tf.range(1., 5.), "range/start:Const(); range/limit:Const(); "
     "range/delta:Const(); range/Cast:Cast(range/delta:0); "
     "range:Range(range/start:0,range/limit:0,range/Cast:0)", "float32", "(4,)"),
    ("range mixed", lambda **k: tf.range(1, 5.5), "range/start:Const(); range/limit:Const(); "
     "range/delta:Const(); range/Cast:Cast(range/start:0); range/Cast_1:Cast(range/delta:0); "
     "range:Range(range/Cast:0,range/limit:0,range/Cast_1:0)", "float32", "(5,)"),
]


@pytest.mark.parametrize("label,fn,desc,dtype,shape", GRAPHS, ids=[c[0] for c in GRAPHS])
def test_graph_matches_tf(label, fn, desc, dtype, shape):
    g, out = _build(fn)
    assert _desc(g) == desc
    assert out.dtype.name == dtype
    assert str(out.shape) == shape


# Static shapes TF 2.21 infers with unknown dims (placeholders built inline).
P = tf.placeholder
SHAPES = [
    ("[?,3]*[4,1]", lambda: P(tf.float32, [None, 3]) * P(tf.float32, [4, 1]), "(4, 3)"),
    ("[?]*[1]", lambda: P(tf.float32, [None]) * P(tf.float32, [1]), "(?,)"),
    ("[?]*[?]", lambda: P(tf.float32, [None]) * P(tf.float32, [None]), "(?,)"),
    ("unk*[1]", lambda: P(tf.float32, None) * P(tf.float32, [1]), "<unknown>"),
    ("add_n merge", lambda: tf.add_n([P(tf.float32, [None, 2]), P(tf.float32, [3, None])]),
     "(3, 2)"),
    ("select unknown cond", lambda: tf.where(P(tf.bool, None), P(tf.float32, [2, 3]),
                                             P(tf.float32, [None, 3])), "(2, 3)"),
    ("select unknown x", lambda: tf.where(P(tf.bool, [2]), P(tf.float32, None),
                                          P(tf.float32, [None, 3])), "(?, 3)"),
    ("select scalar cond", lambda: tf.where(P(tf.bool, []), P(tf.float32, [2, 3]),
                                            P(tf.float32, [2, 3])), "(2, 3)"),
    ("where unknown rank", lambda: tf.where(P(tf.bool, None)), "(?, ?)"),
    ("sum axis tensor", lambda: tf.reduce_sum(P(tf.float32, [2, 3]), P(tf.int32, [])),
     "<unknown>"),
    ("sum axis tensor kd", lambda: tf.reduce_sum(P(tf.float32, [2, 3]), P(tf.int32, [1]),
                                                 keepdims=True), "(?, ?)"),
    ("sum unknown kd", lambda: tf.reduce_sum(P(tf.float32, None), keepdims=True), "<unknown>"),
    ("sum dup axes", lambda: tf.reduce_sum(P(tf.float32, [2, 3]), [1, -1]), "(2,)"),
    ("sum scalar", lambda: tf.reduce_sum(P(tf.float32, [])), "()"),
    ("argmax axis tensor", lambda: tf.argmax(P(tf.float32, [2, 3]), P(tf.int32, [])), "(?,)"),
    ("argmax scalar", lambda: tf.argmax(P(tf.float32, []), 0), "()"),
    ("argmax unknown", lambda: tf.argmax(P(tf.float32, None), 1), "<unknown>"),
    ("mm [?,?]x[?,?]", lambda: tf.matmul(P(tf.float32, [None, None]), P(tf.float32, [None, None])),
     "(?, ?)"),
    ("mm [?,3]x[3,4]", lambda: tf.matmul(P(tf.float32, [None, 3]), P(tf.float32, [3, 4])),
     "(?, 4)"),
    ("mm 2d x 3d", lambda: tf.matmul(P(tf.float32, [2, 3]), P(tf.float32, [4, 3, 5])),
     "(4, 2, 5)"),
    ("mm batch unknown", lambda: tf.matmul(P(tf.float32, [None, 2, 3]), P(tf.float32, [3, 5])),
     "(?, 2, 5)"),
    ("mm batch 1", lambda: tf.matmul(P(tf.float32, [1, 2, 3]), P(tf.float32, [7, 3, 5])),
     "(7, 2, 5)"),
    ("mm batch bcast", lambda: tf.matmul(P(tf.float32, [4, 1, 2, 3]), P(tf.float32, [5, 3, 6])),
     "(4, 5, 2, 6)"),
    ("range tensor limit", lambda: tf.range(P(tf.int32, [])), "(?,)"),
    ("range negative", lambda: tf.range(5, 1, -1), "(4,)"),
    ("range float", lambda: tf.range(0, 1, 0.3), "(4,)"),
]


@pytest.mark.parametrize("label,fn,shape", SHAPES, ids=[c[0] for c in SHAPES])
def test_static_shapes_match_tf(label, fn, shape):
    assert str(fn().shape) == shape


# Build-time errors: (label, builder, exception type, message prefix) — TF 2.21's texts.
ERRORS = [
    ("float+int", lambda: P(tf.float32, [2]) + P(tf.int32, [2]), TypeError,
     "Input 'y' of 'AddV2' Op has type int32 that does not match type float32 of argument 'x'."),
    ("int+1.5", lambda: P(tf.int32, [2]) + 1.5, TypeError,
     "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'."),
    ("add(1, 2.5)", lambda: tf.add(1, 2.5), TypeError,
     "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'."),
    ("add bool", lambda: tf.add(P(tf.bool, [2]), P(tf.bool, [2])), TypeError,
     "Value passed to parameter 'x' has DataType bool not in list of allowed values"),
    ("sqrt int", lambda: tf.sqrt(P(tf.int32, [2])), TypeError,
     "Value passed to parameter 'x' has DataType int32 not in list of allowed values"),
    ("neg bool", lambda: -P(tf.bool, [2]), TypeError,
     "Value passed to parameter 'x' has DataType bool not in list of allowed values"),
    ("floor int", lambda: tf.floor(P(tf.int32, [2])), TypeError,
     "Value passed to parameter 'x' has DataType int32 not in list of allowed values"),
    ("less bool", lambda: tf.less(P(tf.bool, [2]), P(tf.bool, [2])), TypeError,
     "Value passed to parameter 'x' has DataType bool not in list of allowed values"),
    ("logical_and float", lambda: tf.logical_and(P(tf.float32, [2]), P(tf.float32, [2])),
     TypeError, "Input 'x' of 'LogicalAnd' Op has type float32 that does not match expected "
     "type of bool."),
    ("logical_not int", lambda: tf.logical_not(P(tf.int32, [2])), TypeError,
     "Input 'x' of 'LogicalNot' Op has type int32 that does not match expected type of bool."),
    ("bad broadcast", lambda: P(tf.float32, [2, 3]) + P(tf.float32, [4]), ValueError,
     "Dimensions must be equal, but are 3 and 4"),
    ("equal bad shape", lambda: tf.equal(P(tf.float32, [2]), P(tf.float32, [3])), ValueError,
     "Dimensions must be equal, but are 2 and 3"),
    ("truediv mixed", lambda: tf.truediv(P(tf.int32, [2]), P(tf.float32, [2])), TypeError,
     "`x` and `y` must have the same dtype, got tf.int32 != tf.float32."),
    ("select cond vector", lambda: tf.where(P(tf.bool, [3]), P(tf.float32, [2, 3]),
                                            P(tf.float32, [2, 3])), ValueError,
     "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3] and [2]."),
    ("select cond rank", lambda: tf.where(P(tf.bool, [2, 3, 1]), P(tf.float32, [2, 3]),
                                          P(tf.float32, [2, 3])), ValueError,
     "Shapes must be equal rank, but are 2 and 3"),
    ("select cond dims", lambda: tf.where(P(tf.bool, [2, 2]), P(tf.float32, [2, 3]),
                                          P(tf.float32, [2, 3])), ValueError,
     "Dimension 1 in both shapes must be equal, but are 3 and 2. Shapes are [2,3] and [2,2]."),
    ("select x y", lambda: tf.where(P(tf.bool, [2, 3]), P(tf.float32, [2, 3]),
                                    P(tf.float32, [2, 4])), ValueError,
     "Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [2,3] and [2,4]."),
    ("select python scalar", lambda: tf.where(P(tf.bool, [3]), P(tf.float32, [3]), 0.),
     ValueError, "Shapes must be equal rank, but are 1 and 0"),
    ("select dtypes", lambda: tf.where(P(tf.bool, [2]), P(tf.float32, [2]), P(tf.int32, [2])),
     TypeError, "Input 'e' of 'Select' Op has type int32 that does not match type float32 of "
     "argument 't'."),
    ("select cond float", lambda: tf.where(P(tf.float32, [2]), P(tf.float32, [2]),
                                           P(tf.float32, [2])), TypeError,
     "Input 'condition' of 'Select' Op has type float32 that does not match expected type of "
     "bool."),
    ("where x only", lambda: tf.where(P(tf.bool, [2]), P(tf.float32, [2])), ValueError,
     "x and y must both be non-None or both be None."),
    ("add_n rank", lambda: tf.add_n([P(tf.float32, [2, 3]), P(tf.float32, [3])]), ValueError,
     "Shapes must be equal rank, but are 2 and 1\n\tFrom merging shape 0 with other shapes."),
    ("add_n empty", lambda: tf.add_n([]), ValueError,
     "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and "
     "shape."),
    ("add_n dtypes", lambda: tf.add_n([P(tf.float32, [2]), P(tf.int32, [2])]), TypeError,
     "Tensors in list passed to 'inputs' of 'AddN' Op have types [float32, int32] that don't all "
     "match."),
    ("sum bad axis", lambda: tf.reduce_sum(P(tf.float32, [2, 3]), 2), ValueError,
     "Invalid reduction dimension 2 for input with 2 dimensions."),
    ("sum bad neg axis", lambda: tf.reduce_sum(P(tf.float32, [2, 3]), -3), ValueError,
     "Invalid reduction dimension -3 for input with 2 dimensions."),
    ("sum scalar axis0", lambda: tf.reduce_sum(P(tf.float32, []), 0), ValueError,
     "Invalid reduction dimension 0 for input with 0 dimensions."),
    ("sum axis rank2", lambda: tf.reduce_sum(P(tf.float32, [2, 3]), [[0]]), ValueError,
     "Shape must be at most rank 1 but is rank 2"),
    ("sum float axis", lambda: tf.reduce_sum(P(tf.float32, [2]), 0.), TypeError,
     "Value passed to parameter 'reduction_indices' has DataType float32 not in list of allowed "
     "values: int32, int64"),
    ("sum bool", lambda: tf.reduce_sum(P(tf.bool, [2])), TypeError,
     "Value passed to parameter 'input' has DataType bool not in list of allowed values"),
    ("all float", lambda: tf.reduce_all(P(tf.float32, [2])), TypeError,
     "Input 'input' of 'All' Op has type float32 that does not match expected type of bool."),
    ("both axis", lambda: tf.reduce_sum(P(tf.float32, [2]), axis=0, reduction_indices=0),
     ValueError, "Cannot specify both 'reduction_indices' and 'axis'."),
    ("both keepdims", lambda: tf.reduce_sum(P(tf.float32, [2]), keepdims=True, keep_dims=True),
     ValueError, "Cannot specify both 'keep_dims' and 'keepdims'."),
    ("argmax both", lambda: tf.argmax(P(tf.float32, [2, 3]), axis=1, dimension=1), ValueError,
     "Cannot specify both 'dimension' and 'axis'."),
    ("argmax bad axis", lambda: tf.argmax(P(tf.float32, [2, 3]), 2), ValueError,
     "Dimension (2) must be in the range [-2, 2), where 2 is the number of dimensions in the "
     "input."),
    ("matmul inner", lambda: tf.matmul(P(tf.float32, [2, 3]), P(tf.float32, [2, 3])), ValueError,
     "Dimensions must be equal, but are 3 and 2"),
    ("matmul rank1", lambda: tf.matmul(P(tf.float32, [2, 3]), P(tf.float32, [3])), ValueError,
     "Shape must be rank 2 but is rank 1"),
    ("bmm rank1", lambda: tf.matmul(P(tf.float32, [2, 3, 4]), P(tf.float32, [4])), ValueError,
     "Shape must be at least rank 2 but is rank 1"),
    ("bmm batch", lambda: tf.matmul(P(tf.float32, [4, 2, 3]), P(tf.float32, [5, 3, 6])),
     ValueError, "Dimensions must be equal, but are 4 and 5"),
    ("bmm inner", lambda: tf.matmul(P(tf.float32, [5, 2, 3]), P(tf.float32, [5, 2, 3])),
     ValueError, "Dimensions must be equal, but are 3 and 2"),
    ("matmul dtypes", lambda: tf.matmul(P(tf.float32, [2, 3]), P(tf.float64, [3, 5])),
     TypeError, "Input 'b' of 'MatMul' Op has type float64 that does not match type float32 of "
     "argument 'a'."),
    ("matmul bool", lambda: tf.matmul(P(tf.bool, [2, 2]), P(tf.bool, [2, 2])), TypeError,
     "Value passed to parameter 'a' has DataType bool not in list of allowed values"),
    ("matmul int8", lambda: tf.matmul(P(tf.int8, [2, 3]), P(tf.int8, [3, 3])), TypeError,
     "Value passed to parameter 'a' has DataType int8 not in list of allowed values"),
    ("transpose+adjoint", lambda: tf.matmul(P(tf.float32, [2, 3]), P(tf.float32, [3, 5]),
                                            transpose_a=True, adjoint_a=True), ValueError,
     "Only one of `transpose_a` and `adjoint_a` can be True. Received `transpose_a`=True, "
     "`adjoint_a`=True."),
    ("scalar_mul vector", lambda: tf.scalar_mul(tf.constant([1., 2.]), P(tf.float32, [2])),
     ValueError, "The input scalar must be a 0-D value. Received shape (2,)."),
    ("clip broadcast", lambda: tf.clip_by_value(P(tf.float32, [2]), P(tf.float32, [3]), 1.),
     ValueError, "Dimensions must be equal, but are 2 and 3"),
    ("logsumexp int", lambda: tf.reduce_logsumexp(P(tf.int32, [2, 3])), TypeError,
     "Value passed to parameter 'x' has DataType int32 not in list of allowed values"),
    ("range delta 0", lambda: tf.range(1, 5, 0), ValueError, "Requires delta != 0"),
    ("range empty", lambda: tf.range(5, 1), ValueError,
     "Requires start <= limit when delta > 0: 5/1"),
]


@pytest.mark.parametrize("label,fn,exc,prefix", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_match_tf(label, fn, exc, prefix):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value).startswith(prefix), str(info.value)


def test_shape_error_names_op_and_input_shapes():
    with pytest.raises(ValueError) as info:
        P(tf.float32, [2, 3], name="a") + P(tf.float32, [4], name="b")
    msg = str(info.value)
    assert "for 'add" in msg and "AddV2" in msg and "[2,3], [4]" in msg


# ── runtime values (TF 2.21's results) ───────────────────────────────────────────────
def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


C = tf.constant
NAN, INF = np.nan, np.inf
VALUES = [
    ("cast float->int32 truncates", lambda: tf.cast(C([-1.7, 1.7, 2.5, -0.5, NAN]), tf.int32),
     [-1, 1, 2, 0, -2147483648], np.int32),
    ("cast float->int64 specials", lambda: tf.cast(C([NAN, INF, -INF, 3e9]), tf.int64),
     [-2**63, -2**63, -2**63, 3000000000], np.int64),
    ("cast float->bool", lambda: tf.cast(C([0., 0.5, -1.]), tf.bool), [False, True, True],
     np.bool_),
    ("cast complex->float", lambda: tf.cast(C([1 + 2j]), tf.float32), [1.0], np.float32),
    ("saturate_cast", lambda: tf.saturate_cast(C([300., -1.]), tf.uint8), [255, 0], np.uint8),
    ("round half to even", lambda: tf.round(C([0.5, 1.5, 2.5, -0.5, -1.5, 2.4])),
     [0., 2., 2., -0., -2., 2.], np.float32),
    ("round f16", lambda: tf.round(C([0.5, 1.5], tf.float16)), [0., 2.], np.float16),
    ("int mean", lambda: tf.reduce_mean(C([1, 2, 2])), 1, np.int32),
    ("int mean negative", lambda: tf.reduce_mean(C([-1, -2, -2])), -1, np.int32),
    ("int mean axis", lambda: tf.reduce_mean(C([[-3, -4], [5, 6]]), 1), [-3, 5], np.int32),
    ("int mean no overflow", lambda: tf.reduce_mean(C([2**30, 2**30, 2**30])), 1073741824,
     np.int32),
    ("int mean empty", lambda: tf.reduce_mean(tf.zeros([0], tf.int32)), 0, np.int32),
    ("int prod empty", lambda: tf.reduce_prod(tf.zeros([0], tf.int32)), 1, np.int32),
    ("float mean empty", lambda: tf.reduce_mean(tf.zeros([0])), NAN, np.float32),
    ("float max empty", lambda: tf.reduce_max(tf.zeros([0])), -INF, np.float32),
    ("int max empty", lambda: tf.reduce_max(tf.zeros([0], tf.int32)), -2147483648, np.int32),
    ("max nan", lambda: tf.reduce_max(C([1., NAN, 3.])), NAN, np.float32),
    ("maximum nan", lambda: tf.maximum(C([1., NAN]), C([NAN, 2.])), [NAN, NAN], np.float32),
    ("argmax skips nan", lambda: tf.argmax(C([1., NAN, 3.])), 2, np.int64),
    ("floordiv int", lambda: tf.floordiv(C([-7, 7, -7, 7]), C([2, 2, -2, -2])), [-4, 3, 3, -4],
     np.int32),
    ("div float", lambda: tf.div(C([-7., 7.]), C([2., 2.])), [-3.5, 3.5], np.float32),
    ("mod int", lambda: tf.mod(C([-7, 7, -7, 7]), C([3, 3, -3, -3])), [2, 1, -1, -2], np.int32),
    ("mod float", lambda: tf.mod(C([-7., 7., -7., 7.]), C([3., 3., -3., -3.])),
     [2., 1., -1., -2.], np.float32),
    ("mod float by 0", lambda: tf.mod(C([5., -5.]), C([0., 3.])), [NAN, 1.], np.float32),
    ("floordiv float by 0", lambda: tf.floordiv(C([-7., 7.]), C([2., 0.])), [-4., INF],
     np.float32),
    ("floordiv 0/0", lambda: tf.floordiv(C([-1., 0.]), C([0., 0.])), [-INF, NAN], np.float32),
    ("truediv int by 0", lambda: tf.truediv(C([1, 2]), C([0, 1])), [INF, 2.], np.float64),
    ("pow int", lambda: tf.pow(C([2, 3]), C([3, 2])), [8, 9], np.int32),
    ("pow float", lambda: tf.pow(C([-8., 4.]), C([1 / 3, .5])), [NAN, 2.], np.float32),
    ("sign nan", lambda: tf.sign(C([-2., 0., 3., NAN])), [-1., 0., 1., NAN], np.float32),
    ("sign int", lambda: tf.sign(C([-2, 0, 3])), [-1, 0, 1], np.int32),
    ("rsqrt 0", lambda: tf.rsqrt(C([0., 4.])), [INF, .5], np.float32),
    ("sigmoid extremes", lambda: tf.sigmoid(C([-100., -20., 0., 20., 100.])),
     [0.0, 2.06115369216775e-09, 0.5, 1.0, 1.0], np.float32),
    ("where coords", lambda: tf.where(C([[True, False], [False, True]])), [[0, 0], [1, 1]],
     np.int64),
    ("select vector cond", lambda: tf.where(C([True, False]), C([[1, 2], [3, 4]]),
                                            C([[5, 6], [7, 8]])), [[1, 2], [7, 8]], np.int32),
    ("clip int", lambda: tf.clip_by_value(C([1, 5, 9]), 2, 6), [2, 5, 6], np.int32),
    ("range float", lambda: tf.range(0., 1., 0.3),
     [0.0, 0.30000001192092896, 0.6000000238418579, 0.9000000357627869], np.float32),
    ("logsumexp -inf", lambda: tf.reduce_logsumexp(C([[-INF, -INF], [1., 2.]]), 1),
     [-INF, 2.3132617473602295], np.float32),
]


@pytest.mark.parametrize("label,fn,want,dtype", VALUES, ids=[c[0] for c in VALUES])
def test_values_match_tf(label, fn, want, dtype):
    got = np.asarray(_run(fn()))
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64),
                               rtol=1e-6, atol=1e-30)


# TF raises InvalidArgumentError for these at run time; scopeflow says why.
RUNTIME_ERRORS = [
    ("floordiv int by 0", lambda: tf.floordiv(C([1, 2]), C([0, 1])), "Integer division by zero"),
    ("mod int by 0", lambda: tf.mod(C([1, 2]), C([0, 1])), "Integer division by zero"),
    ("div int by 0", lambda: tf.div(C([1, 2]), C([0, 1])), "Integer division by zero"),
    ("realdiv int by 0", lambda: tf.realdiv(C([1, 2]), C([0, 1])), "Integer division by zero"),
    ("pow negative int", lambda: tf.pow(C([2, 3]), C([-1, 2])),
     "Integers to negative integer powers are not allowed"),
    ("argmax empty", lambda: tf.argmax(tf.zeros([0, 2]), 0), "Reduction axis 0 is empty"),
    ("range delta 0", lambda: tf.range(1, 5, tf.placeholder_with_default(0, [])),
     "Requires delta != 0"),
    ("select then/else", lambda: tf.where(
        tf.placeholder_with_default([True, False], [None]),
        tf.placeholder_with_default([1., 2.], [None]),
        tf.placeholder_with_default([1., 2., 3.], [None])), "'then' and 'else' must have"),
    ("sum bad axis", lambda: tf.reduce_sum(C([[1., 2.]]), tf.placeholder_with_default(5, [])),
     "Invalid reduction dimension"),
    ("argmax bad axis", lambda: tf.argmax(C([[1., 2.]]), tf.placeholder_with_default(5, [])),
     "Expected dimension in the range [-2, 2), but got 5"),
    ("add_n shapes", lambda: tf.add_n([tf.placeholder_with_default([1., 2.], [None]),
                                       tf.placeholder_with_default([1., 2., 3.], [None])]),
     "Inputs to operation AddN must have the same size and shape"),
    ("matmul shapes", lambda: tf.matmul(
        tf.placeholder_with_default(np.ones((2, 3), np.float32), [None, None]),
        tf.placeholder_with_default(np.ones((2, 3), np.float32), [None, None])),
     "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]"),
]


@pytest.mark.parametrize("label,fn,fragment", RUNTIME_ERRORS, ids=[c[0] for c in RUNTIME_ERRORS])
def test_runtime_errors(label, fn, fragment):
    t = fn()
    with pytest.raises(errors.InvalidArgumentError) as info:
        _run(t)
    assert fragment in str(info.value)
    assert t.op.name in str(info.value)  # the failing op is named


# ── scopeflow behaviour worth pinning ────────────────────────────────────────────────
def test_equality_operators_keep_identity_and_hashing():
    a = P(tf.float32, [2])
    b = P(tf.float32, [2])
    assert (a == a) is True and (a == b) is False and (a != b) is True
    assert len({a, b, a}) == 2


def test_operators_work_on_variables():
    v = tf.Variable([1.0, 2.0], name="v")
    out = [v + 1, 2 * v, -v, v * v, v > 1.5]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)
    np.testing.assert_allclose(got[0], [2, 3])
    np.testing.assert_allclose(got[1], [2, 4])
    np.testing.assert_allclose(got[2], [-1, -2])
    np.testing.assert_allclose(got[3], [1, 4])
    assert got[4].tolist() == [False, True]


def test_numpy_array_on_the_left_builds_an_op():
    a = P(tf.float32, [3], name="a")
    out = np.ones(3, np.float32) + a
    assert out.op.type == "AddV2" and out.dtype == tf.float32


def test_kernels_keep_float32_and_do_not_mutate_inputs():
    x = np.array([[1.5, -2.0], [0.25, 4.0]], np.float32)
    a = P(tf.float32, [2, 2])
    outs = [a * 2, a / 3, tf.reduce_mean(a), tf.reduce_sum(a, 0), tf.sigmoid(a), tf.rsqrt(abs(a)),
            tf.add_n([a, a]), tf.square(a), tf.reduce_prod(a), tf.matmul(a, a), a ** 2]
    before = x.copy()
    with tf.Session() as sess:
        got = sess.run(outs, {a: x})
    for v in got:
        assert np.asarray(v).dtype == np.float32
    np.testing.assert_array_equal(x, before)


def test_reduce_mean_f16_accumulates_without_overflow():
    x = np.full([4096], 30000, np.float16)  # the float16 sum would overflow
    got = _run(tf.reduce_mean(C(x)))
    assert got.dtype == np.float16 and got == np.float16(30000)


def test_unknown_rank_reduction_runs():
    u = P(tf.float32, None)
    total = tf.reduce_sum(u)
    mean = tf.reduce_mean(u, keepdims=True)
    with tf.Session() as sess:
        t, m = sess.run([total, mean], {u: np.ones((2, 3), np.float32)})
    assert t == 6.0 and m.shape == (1, 1)


def test_tensordot_graph_matches_tf():
    g, out = _build(lambda c, m, **k: tf.tensordot(c, m, [[2], [0]]))
    assert _desc(g) == (  # TF 2.21
        "Tensordot/Reshape/shape:Const(); Tensordot/Reshape:Reshape(c:0,Tensordot/Reshape/shape:0);"
        " Tensordot/MatMul:MatMul(Tensordot/Reshape:0,m:0); Tensordot/shape:Const(); "
        "Tensordot:Reshape(Tensordot/MatMul:0,Tensordot/shape:0)")
    assert str(out.shape) == "(5, 2, 4)"


def test_reduce_over_empty_axis_list_is_identity():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = tf.reduce_sum(C(x), [])
    assert out.op.inputs[1].dtype == tf.int32 and str(out.shape) == "(2, 3)"  # TF 2.21
    np.testing.assert_array_equal(_run(out), x)


def test_not_differentiable_ops_say_so():
    from scopeflow.framework.opdef import NO_GRADIENT, REGISTRY
    for t in ["Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd",
              "LogicalOr", "LogicalNot", "ArgMax", "ArgMin", "Floor", "Ceil", "Round",
              "FloorDiv", "Range"]:
        assert REGISTRY[t].grad is None, t
    for t in ["Where", "All", "Any"]:  # TF registers no gradient: one reaching them raises
        assert REGISTRY[t].grad is NO_GRADIENT, t
    for t in ["AddV2", "Mul", "Sum"]:
        assert callable(REGISTRY[t].grad), t


def test_log1p_special_values_match_tf():
    # TF 2.21's bits (Eigen's plog1p): x itself where 1 + x rounds to 1 (|x| < 2**-24,
    # signed zeros kept) and at +inf; -inf at -1; NaN for NaN and below -1 (the NaN's sign
    # and payload come from NumPy's log, whose SIMD loops differ between CPUs, so only
    # NaN-ness is checked). Other values go through NumPy's log too, whose last bit may
    # differ from Eigen's polynomial (and between CPUs).
    x = np.array([1e-10, -1e-10, 0.0, -0.0, 5.9e-8, 6e-8, 1e-7, np.inf, -1.0, np.nan, -2.0],
                 np.float32)
    want = [786163455, -1361320193, 0, -2147483648, 863856432, 864082264, 869711763,
            2139095040, -8388608]
    ordinary = np.array([0.5, -0.5, 1e-3, 3e38], np.float32)   # none small: the short path
    with tf.Session() as sess:
        got, near = sess.run([tf.log1p(tf.constant(x)), tf.log1p(tf.constant(ordinary))])
    assert got[:9].view(np.int32).tolist() == want
    assert np.isnan(got[9:]).all()
    np.testing.assert_allclose(near, np.log1p(ordinary.astype(np.float64)), rtol=2e-7)
