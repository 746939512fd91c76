"""Keras's merge layers: ``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``,
``Minimum``, ``Concatenate`` and ``Dot``, and their functional forms (``add``,
``concatenate``, ...), as tf_keras's ``layers/merging`` builds them."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras.engine.base_layer import Layer
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.nn.nn_composites import l2_normalize

__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
           "Dot", "add", "subtract", "multiply", "average", "maximum", "minimum",
           "concatenate", "dot"]


def _dims(shape):
    return TensorShape(shape).as_list() if shape is not None else None


def _shapes(input_shape):
    if not isinstance(input_shape, (list, tuple)) or not input_shape or \
            not isinstance(input_shape[0], (list, tuple, TensorShape)) and \
            not hasattr(input_shape[0], "as_list"):
        return None
    return [TensorShape(s) for s in input_shape]


# ── _Merge: the element-wise merges' base ────────────────────────────────────────────
class _Merge(Layer):
    """Element-wise merge of a list of same-shaped (or broadcastable) inputs."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _merge_function(self, inputs):
        raise NotImplementedError

    def _compute_elemwise_op_output_shape(self, shape1, shape2):
        if None in [shape1, shape2]:
            return None
        if len(shape1) < len(shape2):
            return self._compute_elemwise_op_output_shape(shape2, shape1)
        if not shape2:
            return shape1
        output_shape = list(shape1[:-len(shape2)])
        for i, j in zip(shape1[-len(shape2):], shape2):
            if i is None or j is None:
                output_shape.append(None)
            elif i == 1:
                output_shape.append(j)
            elif j == 1:
                output_shape.append(i)
            else:
                if i != j:
                    raise ValueError("Operands could not be broadcast together with shapes "
                                     f"{shape1} {shape2}")
                output_shape.append(i)
        return tuple(output_shape)

    def build(self, input_shape):
        shapes = _shapes(input_shape)
        if shapes is None:
            raise ValueError("A merge layer should be called on a list of inputs.")
        if len(shapes) < 1:
            raise ValueError("A merge layer should be called on a list of at least 1 "
                             f"input. Got {len(shapes)} inputs.")
        batch_sizes = {s.as_list()[0] for s in shapes if s.ndims} - {None}
        if len(batch_sizes) > 1:
            raise ValueError("Can not merge tensors with different batch sizes. Got tensors "
                             f"with shapes : {[tuple(s.as_list()) for s in shapes]}")
        lists = [tuple(s.as_list()) if s.ndims is not None else None for s in shapes]
        output_shape = None if lists[0] is None else lists[0][1:]
        for s in lists[1:]:
            output_shape = self._compute_elemwise_op_output_shape(
                output_shape, None if s is None else s[1:])
        self._reshape_required = not (None not in lists and len(set(map(len, lists))) == 1)
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: "
                             f"inputs={inputs} (not a list of tensors)")
        inputs = list(inputs)
        if getattr(self, "_reshape_required", False):
            ranks = [x.shape.ndims for x in inputs]
            if None not in ranks:
                # Keras: the lower-rank inputs get size-1 dims after the batch dimension.
                max_ndim = max(ranks)
                reshaped = []
                for x, ndim in zip(inputs, ranks):
                    for _ in range(max_ndim - ndim):
                        x = array_ops.expand_dims(x, axis=1)
                    reshaped.append(x)
                return self._merge_function(reshaped)
        return self._merge_function(inputs)

    def compute_output_shape(self, input_shape):
        shapes = [tuple(TensorShape(s).as_list()) for s in input_shape]
        output_shape = shapes[0][1:]
        for s in shapes[1:]:
            output_shape = self._compute_elemwise_op_output_shape(output_shape, s[1:])
        batch_sizes = {s[0] for s in shapes} - {None}
        batch = batch_sizes.pop() if len(batch_sizes) == 1 else None
        return TensorShape((batch,) + tuple(output_shape))

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        if not isinstance(mask, (list, tuple)):
            raise ValueError(f"`mask` should be a list. Received: mask={mask}")
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
        if len(mask) != len(inputs):
            raise ValueError("The lists `inputs` and `mask` should have the same length. "
                             f"Received: inputs={inputs} of length {len(inputs)}, and "
                             f"mask={mask} of length {len(mask)}")
        if all(m is None for m in mask):
            return None
        masks = [array_ops.expand_dims(m, axis=0) for m in mask if m is not None]
        return _all(array_ops.concat(masks, axis=0), axis=0)


def _all(x, axis):
    """Keras's ``backend.all``: a logical AND over ``axis``, non-bools cast first."""
    if x.dtype.base_dtype != dtypes.bool:
        x = math_ops.cast(x, dtypes.bool)
    return math_ops.reduce_all(x, axis=axis, keepdims=False)


class Add(_Merge):
    """The sum of a list of inputs."""

    def _merge_function(self, inputs):
        output = inputs[0]
        for x in inputs[1:]:
            output += x
        return output


class Subtract(_Merge):
    """The difference of exactly two inputs: ``inputs[0] - inputs[1]``."""

    def build(self, input_shape):
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs")

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs")
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    """The element-wise product of a list of inputs."""

    def _merge_function(self, inputs):
        output = inputs[0]
        for x in inputs[1:]:
            output = output * x
        return output


class Average(_Merge):
    """The element-wise mean of a list of inputs."""

    def _merge_function(self, inputs):
        output = inputs[0]
        for x in inputs[1:]:
            output += x
        return output / len(inputs)


class Maximum(_Merge):
    """The element-wise maximum of a list of inputs."""

    def _merge_function(self, inputs):
        output = inputs[0]
        for x in inputs[1:]:
            output = math_ops.maximum(output, x)
        return output


class Minimum(_Merge):
    """The element-wise minimum of a list of inputs."""

    def _merge_function(self, inputs):
        output = inputs[0]
        for x in inputs[1:]:
            output = math_ops.minimum(output, x)
        return output


# ── Concatenate ──────────────────────────────────────────────────────────────────────
class Concatenate(_Merge):
    """Joins a list of inputs along ``axis`` (all other dimensions equal)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True
        self._reshape_required = False

    def build(self, input_shape):
        shapes = _shapes(input_shape)
        if shapes is None or len(shapes) < 1:
            raise ValueError("A `Concatenate` layer should be called on a list of at least "
                             f"1 input. Received: input_shape={input_shape}")
        if all(s.ndims is None for s in shapes):
            self.built = True
            return
        lists = [s.as_list() for s in shapes if s.ndims is not None]
        reduced = set()
        for s in lists:
            s = list(s)
            del s[self.axis]
            reduced.add(tuple(s))
        if len(reduced) > 1:
            message = ("A `Concatenate` layer requires inputs with matching shapes except for "
                       "the concatenation axis. Received: input_shape="
                       f"{[tuple(s) for s in lists]}")
            ranks = {len(s) for s in reduced}
            if len(ranks) != 1:
                raise ValueError(message)
            # Unknown dimensions may differ: only the known ones must agree.
            for i in range(ranks.pop()):
                if len({s[i] for s in reduced} - {None}) > 1:
                    raise ValueError(message)
        self.built = True

    def _merge_function(self, inputs):
        return array_ops.concat(list(inputs), axis=self.axis)

    def compute_output_shape(self, input_shape):
        shapes = [TensorShape(s).as_list() for s in input_shape]
        output_shape = list(shapes[0])
        for s in shapes[1:]:
            if output_shape[self.axis] is None or s[self.axis] is None:
                output_shape[self.axis] = None
                break
            output_shape[self.axis] += s[self.axis]
        return TensorShape(output_shape)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        if not isinstance(mask, (tuple, list)):
            raise ValueError(f"`mask` should be a list. Received mask={mask}")
        if not isinstance(inputs, (tuple, list)):
            raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
        if len(mask) != len(inputs):
            raise ValueError("The lists `inputs` and `mask` should have the same length. "
                             f"Received: inputs={inputs} of length {len(inputs)}, and "
                             f"mask={mask} of length {len(mask)}")
        if all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask):
            if m is None:
                masks.append(math_ops.cast(array_ops.ones_like(x), "bool"))
            elif m.shape.ndims < x.shape.ndims:
                masks.append(array_ops.expand_dims(m, axis=-1))
            else:
                masks.append(m)
        concatenated = array_ops.concat(masks, axis=self.axis)
        return _all(concatenated, axis=-1)

    def get_config(self):
        config = Layer.get_config(self)
        config["axis"] = self.axis
        return config


# ── Dot ──────────────────────────────────────────────────────────────────────────────
def batch_dot(x, y, axes):
    """Keras's ``backend.batch_dot``: per batch row, ``x`` and ``y`` contracted over
    ``axes`` (``x``'s then ``y``'s, batch dimension excluded); a result of rank 1 becomes
    ``[batch, 1]``. Built as transposes, reshapes and one batched ``MatMul``."""
    x_dims, y_dims = x.shape.as_list(), y.shape.as_list()
    ax, ay = axes
    x_rest = [d for i, d in enumerate(x_dims) if i not in (0, ax)]
    y_rest = [d for i, d in enumerate(y_dims) if i not in (0, ay)]
    if None in x_rest or None in y_rest:
        raise NotImplementedError(
            "Dot (batch_dot): the non-batch dimensions must be known; got shapes "
            f"{x_dims} and {y_dims}")
    x_perm = [0] + [i for i in range(1, len(x_dims)) if i != ax] + [ax]
    y_perm = [0, ay] + [i for i in range(1, len(y_dims)) if i != ay]
    if x_perm != list(range(len(x_dims))):
        x = array_ops.transpose(x, x_perm)
    if y_perm != list(range(len(y_dims))):
        y = array_ops.transpose(y, y_perm)
    k = x_dims[ax] if x_dims[ax] is not None else y_dims[ay]
    if k is None:
        k = -1
    px, py = _prod(x_rest), _prod(y_rest)
    if len(x_dims) != 3 or len(x_rest) != 1:
        x = array_ops.reshape(x, [-1, px, k])
    if len(y_dims) != 3 or len(y_rest) != 1:
        y = array_ops.reshape(y, [-1, k, py])
    out = math_ops.matmul(x, y)
    final = x_rest + y_rest
    if final != [px, py] or len(final) != 2:
        out = array_ops.reshape(out, [-1] + (final or [1]))
    return out


def _prod(dims):
    p = 1
    for d in dims:
        p *= d
    return p


class Dot(_Merge):
    """The dot product of two inputs along ``axes`` (an int, or one axis per input);
    ``normalize=True`` L2-normalises both first (cosine proximity)."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError("Invalid type for argument `axes`: it should be a list or "
                                f"an int. Received: axes={axes}")
            if len(axes) != 2:
                raise ValueError("Invalid format for argument `axes`: it should contain "
                                 f"two elements. Received: axes={axes}")
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError("Invalid format for argument `axes`: list elements should "
                                 f"be integers. Received: axes={axes}")
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True
        self._reshape_required = False

    def _axes_for(self, shape1, shape2):
        if isinstance(self.axes, int):
            if self.axes < 0:
                return [self.axes % len(shape1), self.axes % len(shape2)]
            return [self.axes] * 2
        return list(self.axes)

    def build(self, input_shape):
        shapes = _shapes(input_shape)
        if shapes is None or len(shapes) != 2:
            raise ValueError("A `Dot` layer should be called on a list of 2 inputs. "
                             f"Received: input_shape={input_shape}")
        shape1, shape2 = shapes[0].as_list(), shapes[1].as_list()
        axes = self._axes_for(shape1, shape2)
        if shape1[axes[0]] is not None and shape2[axes[1]] is not None and \
                shape1[axes[0]] != shape2[axes[1]]:
            raise ValueError("Incompatible input shapes: axis values "
                             f"{shape1[axes[0]]} (at axis {axes[0]}) != {shape2[axes[1]]} "
                             f"(at axis {axes[1]}). Full input shapes: {tuple(shape1)}, "
                             f"{tuple(shape2)}")
        self.built = True

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError("A `Dot` layer should be called on exactly 2 inputs. "
                             f"Received: inputs={inputs}")
        x1, x2 = inputs
        if isinstance(self.axes, int):
            if self.axes < 0:
                axes = [self.axes % x1.shape.ndims, self.axes % x2.shape.ndims]
            else:
                axes = [self.axes] * 2
        else:
            axes = [a % x.shape.ndims if a < 0 else a for a, x in zip(self.axes, inputs)]
        if self.normalize:
            x1 = l2_normalize(x1, axis=axes[0])
            x2 = l2_normalize(x2, axis=axes[1])
        return batch_dot(x1, x2, axes)

    def call(self, inputs):
        return self._merge_function(list(inputs))

    def compute_output_shape(self, input_shape):
        shape1 = list(TensorShape(input_shape[0]).as_list())
        shape2 = list(TensorShape(input_shape[1]).as_list())
        axes = self._axes_for(shape1, shape2)
        shape1.pop(axes[0])
        shape2.pop(axes[1])
        shape2.pop(0)
        output_shape = shape1 + shape2
        if len(output_shape) == 1:
            output_shape += [1]
        return TensorShape(output_shape)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        config = Layer.get_config(self)
        config.update({"axes": self.axes, "normalize": self.normalize})
        return config


# ── The functional forms ─────────────────────────────────────────────────────────────
def add(inputs, **kwargs):
    """``Add()(inputs)``."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """``Subtract()(inputs)``."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """``Multiply()(inputs)``."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """``Average()(inputs)``."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """``Maximum()(inputs)``."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """``Minimum()(inputs)``."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes, normalize=False, **kwargs):
    """``Dot(axes, normalize)(inputs)``."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
