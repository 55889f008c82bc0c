# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# BatchNormalization in training mode (opset 14 on) against float64 numpy:
# the batch's own mean and population variance normalize Y, and the running
# statistics blend the inputs' with them by momentum; with and without the
# running outputs, channels of a few elements to a few thousand (several
# passes of the statistics' workgroup), and a large mean (the variance is
# summed about the mean).
import numpy as np
from onnx import TensorProto, helper
from onnx_case import make_model

_RNG = np.random.default_rng(20261128)


def _case(name, shape, momentum=None, outputs=3, offset=0.0, eps=1e-5):
    c = shape[1]
    x = (_RNG.standard_normal(shape) * 2 + offset).astype(np.float32)
    inputs = {"x": x, "scale": _RNG.uniform(0.5, 1.5, c).astype(np.float32),
              "b": _RNG.standard_normal(c).astype(np.float32),
              "mean": _RNG.standard_normal(c).astype(np.float32),
              "var": _RNG.uniform(0.5, 2, c).astype(np.float32)}
    attrs = {"training_mode": 1, "epsilon": eps}
    if momentum is not None:
        attrs["momentum"] = momentum
    names = ["y", "running_mean", "running_var"][:outputs]
    node = helper.make_node("BatchNormalization", list(inputs), names, **attrs)
    axes = tuple(a for a in range(len(shape)) if a != 1)
    xd = x.astype(np.float64)
    m, v = xd.mean(axis=axes), xd.var(axis=axes)
    bshape = [1, c] + [1] * (len(shape) - 2)
    y = (xd - m.reshape(bshape)) / np.sqrt(v.reshape(bshape) + eps) * inputs["scale"].reshape(bshape) + \
        inputs["b"].reshape(bshape)
    mom = 0.9 if momentum is None else momentum
    expected = [y, inputs["mean"] * mom + m * (1 - mom), inputs["var"] * mom + v * (1 - mom)][:outputs]
    return {"name": f"batchnorm_training_{name}",
            "model": make_model([node], inputs, [(n, TensorProto.FLOAT) for n in names], 15),
            "inputs": inputs, "expected": [e.astype(np.float32) for e in expected], "atol": 1e-4}


def cases():
    yield _case("nchw", (4, 3, 5, 7))
    yield _case("momentum_2d", (16, 9), momentum=0.6)
    yield _case("y_only", (2, 5, 3), outputs=1)
    yield _case("large_channels", (8, 2, 40, 30), momentum=0.99)
    yield _case("large_mean", (3, 4, 33), offset=1000.0)
