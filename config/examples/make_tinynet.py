#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Writes the example repository's model, tinynet: a ~2 KB image classifier.

image float[N,3,16,16] -> Conv 3x3 (8 channels) -> Relu -> GlobalAveragePool
-> Flatten -> Gemm (10 classes) -> Softmax -> probabilities float[N,10]

N is symbolic (denotation DATA_BATCH). Weights come from a seeded generator,
so the output is byte-for-byte reproducible; tests/config checks that the
committed repository/tinynet/1/model.onnx matches this script.

Usage: make_tinynet.py [--output PATH]   (needs python3-onnx, python3-numpy)
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUTPUT = os.path.join(HERE, "repository", "tinynet", "1", "model.onnx")


def build() -> onnx.ModelProto:
    rng = np.random.RandomState(20260101)  # legacy generator: stable across numpy versions
    conv_w = (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32)
    conv_b = (rng.standard_normal(8) * 0.1).astype(np.float32)
    fc_w = (rng.standard_normal((10, 8)) * 0.5).astype(np.float32)
    fc_b = (rng.standard_normal(10) * 0.1).astype(np.float32)

    image = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 16, 16])
    image.type.tensor_type.shape.dim[0].denotation = "DATA_BATCH"
    probabilities = helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["N", 10])

    nodes = [
        helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["conv"], name="conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("GlobalAveragePool", ["relu"], ["pool"], name="pool"),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=-1),
    ]
    initializers = [
        numpy_helper.from_array(conv_w, "conv_w"),
        numpy_helper.from_array(conv_b, "conv_b"),
        numpy_helper.from_array(fc_w, "fc_w"),
        numpy_helper.from_array(fc_b, "fc_b"),
    ]
    graph = helper.make_graph(nodes, "tinynet", [image], [probabilities], initializers)
    model = helper.make_model(graph, producer_name="vkserve-example",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "wb") as f:
        f.write(build().SerializeToString())


if __name__ == "__main__":
    main()
