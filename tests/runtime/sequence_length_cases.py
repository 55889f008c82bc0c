#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Cases of runtime_sequence_length_test: bert_tiny and gpt2_tiny at several sequence lengths.

Usage: /usr/bin/python3 tests/runtime/sequence_length_cases.py MODELS_DIR OUT

Writes, in the case layout of tests/runtime/model_test_cases.py (OUT/<case>/
{model.onnx, inputs/<i>.npy, meta.json}; tests/reference/ort_batch.js adds
expected/<i>.npy from onnxruntime):

  OUT/models/gpt2_tiny_dyn.onnx    gpt2_tiny with dynamic [N,S] input_ids
                                   (tests/runtime/make_dynamic_gpt2.py)
  OUT/models/<m>_fp16ref.onnx      model <m> with every MatMul/Gemm operand
                                   and every float activation rounded to fp16
                                   (see below)
  OUT/<m>_s<S>/                    model <m> (bert_tiny or gpt2_tiny_dyn) at
                                   sequence length S, for S in 1, 7, 16, 128
  OUT/<m>_s<S>_fp16ref/            the same inputs through <m>_fp16ref
  OUT/gpt2_tiny_fixed_row<b>/      the original gpt2_tiny ([1,16]) on row b's
                                   first 16 tokens, to check the conversion

Inputs are nested: the tokens at length S are the first S of those at 128,
drawn uniformly over the vocabulary. bert_tiny runs 3 rows whose attention
masks keep the first S, S - S//4 and S - S//2 tokens (padding zeros at the
end, never a row of zeros); gpt2_tiny_dyn runs 2 rows (causal, no mask).

The fp16 reference: vkserve's FP16 precision (ModelOptions::precision) stores
weights and activations in fp16 and computes in fp32 inside each kernel
(runtime/plan/fp16_activations.h). <m>_fp16ref does about that in onnxruntime's
fp32 arithmetic: MatMul/Gemm weights rounded here with numpy, and every float
value a node writes (the outputs too) through Cast(to fp16) -> Cast(to fp32).
Its distance from the fp32 outputs is the model's own fp16 error at these
inputs, which sets the test's FP16 bound.
"""
import os
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_dynamic_gpt2  # noqa: E402
import model_test_cases  # noqa: E402

SEQUENCE_LENGTHS = (1, 7, 16, 128)
ROWS = {"bert_tiny": 3, "gpt2_tiny_dyn": 2}


def round_gemm_operands(model):
    """A copy of `model` whose MatMul/Gemm inputs A and B are rounded to fp16."""
    model = onnx.load_from_string(model.SerializeToString())
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    rounded = {}  # value name -> its rounded twin
    extra_nodes, extra_inits = [], []
    for node in g.node:
        if node.op_type not in ("MatMul", "Gemm"):
            continue
        for k in (0, 1):
            name = node.input[k]
            if name not in rounded:
                twin = name + "/fp16"
                t = inits.get(name)
                if t is not None:
                    if t.data_type != TensorProto.FLOAT:
                        raise ValueError(f"{name}: a MatMul/Gemm weight that is not float")
                    array = numpy_helper.to_array(t).astype(np.float16).astype(np.float32)
                    extra_inits.append(numpy_helper.from_array(array, twin))
                else:
                    half = name + "/half"
                    extra_nodes.append(helper.make_node("Cast", [name], [half], to=TensorProto.FLOAT16))
                    extra_nodes.append(helper.make_node("Cast", [half], [twin], to=TensorProto.FLOAT))
                rounded[name] = twin
            node.input[k] = rounded[name]
    if not rounded:
        raise ValueError("no MatMul/Gemm to round")
    # Each Cast pair goes right before the first node reading its result.
    pair_of = {n.output[0]: [extra_nodes[i - 1], n] for i, n in enumerate(extra_nodes) if i % 2 == 1}
    nodes = []
    for node in g.node:
        for name in node.input:
            nodes.extend(pair_of.pop(name, []))
        nodes.append(node)
    del g.node[:]
    g.node.extend(nodes)
    g.initializer.extend(extra_inits)
    del g.value_info[:]
    return model


def round_activations(model):
    """A copy of `model` whose every float node output is rounded to fp16."""
    typed = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type
             for v in list(typed.graph.value_info) + list(typed.graph.output)}
    model = onnx.load_from_string(model.SerializeToString())
    nodes = []
    for node in model.graph.node:
        nodes.append(node)
        for k, name in enumerate(node.output):
            if not name or types.get(name) != TensorProto.FLOAT:
                continue
            exact, half = name + "/act_exact", name + "/act_fp16"
            node.output[k] = exact
            nodes.append(helper.make_node("Cast", [exact], [half], to=TensorProto.FLOAT16))
            nodes.append(helper.make_node("Cast", [half], [name], to=TensorProto.FLOAT))
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return model


def inputs_for(model, rows, s, tokens):
    """Inputs of `model` at [rows, s]: the nested tokens and, for bert, ragged masks."""
    out = []
    for info in model.graph.input:
        if "mask" in info.name.lower():
            # Row r keeps s - r*s/(2*(rows-1)) tokens: from all of them to half.
            assert rows > 1
            mask = np.zeros((rows, s), np.int64)
            for r in range(rows):
                mask[r, :s - (r * s) // (2 * (rows - 1))] = 1
            out.append((info.name, mask))
        else:
            out.append((info.name, tokens[:, :s].copy()))
    return out


def write_model(out, name, model):
    path = pathlib.Path(out) / "models" / f"{name}.onnx"
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, path)
    return path


def write_cases(models_dir, out):
    bert_path = os.path.join(models_dir, "bert_tiny.onnx")
    gpt2_path = os.path.join(models_dir, "gpt2_tiny.onnx")
    gpt2_dyn = make_dynamic_gpt2.convert(onnx.load(gpt2_path))
    models = {"bert_tiny": (onnx.load(bert_path), bert_path),
              "gpt2_tiny_dyn": (gpt2_dyn, write_model(out, "gpt2_tiny_dyn", gpt2_dyn))}
    for seed, (name, (model, path)) in enumerate(sorted(models.items())):
        ref_path = write_model(out, name + "_fp16ref", round_activations(round_gemm_operands(model)))
        rows = ROWS[name]
        rng = np.random.default_rng(1000 + seed)
        vocab = model_test_cases.vocab_size(model, "input_ids")
        tokens = rng.integers(0, vocab, size=(rows, max(SEQUENCE_LENGTHS))).astype(np.int64)
        outputs = [o.name for o in model.graph.output]
        for s in SEQUENCE_LENGTHS:
            inputs = inputs_for(model, rows, s, tokens)
            model_test_cases.write_case(out, f"{name}_s{s}", path, inputs, outputs)
            model_test_cases.write_case(out, f"{name}_s{s}_fp16ref", ref_path, inputs, outputs)
        if name == "gpt2_tiny_dyn":
            fixed = make_dynamic_gpt2.FIXED_S
            for r in range(rows):
                model_test_cases.write_case(out, f"gpt2_tiny_fixed_row{r}", gpt2_path,
                                            [("input_ids", tokens[r:r + 1, :fixed].copy())], outputs)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    write_cases(argv[1], argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
