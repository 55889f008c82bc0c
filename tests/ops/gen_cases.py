#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Writes the op test cases to disk. Imports every tests/ops/cases/*_cases.py
# module (each defines `cases()` yielding dicts with "name", "model" (an
# onnx.ModelProto), "inputs" ({graph input name: np.ndarray}) and optional
# "rtol"/"atol" and "reference_model") and writes, per case:
#
#   OUT/<name>/model.onnx
#   OUT/<name>/reference.onnx     only with "reference_model"
#   OUT/<name>/inputs/<i>.npy     one per graph input (initializers excluded),
#                                 in graph input order
#   OUT/<name>/meta.json          {"name", "module", "inputs": [names],
#                                  "outputs": [names], "rtol", "atol",
#                                  "reference_model" (only with one)}
#
# Optional case keys: "expected" (one array per output: the case's own
# reference, e.g. fp64 math, written as expected/<i>.npy and left alone by
# ort_batch.js), "precision" ("FP32" or "FP16": ModelOptions::precision),
# "accumulation" ("FP32" or "FP16": ModelOptions::accumulation, FP16 only
# with precision FP16),
# "requires" ("cooperative_matrix": on a device without, the pinned tile runs
# in its scalar emulation where that fits, else its refusal is checked) and
# "min_max_error" (the output must differ from the reference by at least
# this much somewhere: proof that reduced precision was applied) and
# "fused_op" (the loaded graph must hold a node of this inspect name, e.g.
# "MatMul+Div+Add+Softmax+MatMul=Attention": proof that a fusion happened) and
# "kernel" (some node's kernel description, as `vkserve inspect` shows it,
# must start with this, e.g. "unfused": proof that a pinned path ran) and
# "absent_op" (the loaded graph must hold no node of this op type, e.g.
# "Transpose": proof that a rewrite absorbed them) and "dispatches" ({op
# type: n}: at most n nodes of that type may run a kernel at the case's
# shapes, as `vkserve inspect` shows them; folded, aliased and unread nodes
# do not count) and "conv_layout" ("NCHW" or
# "NHWC": ModelOptions::conv_layout) with "nhwc_convs" (how many Conv nodes
# of the loaded graph the channels-last pass must have marked NHWC).
#
# tests/reference/ort_batch.js then adds OUT/<name>/expected/<i>.npy and
# runtime_op_cases_test compares vkserve with them. Files are named by
# position so that any graph value name works; meta.json keeps the names.
#
# "reference_model" (an onnx.ModelProto) is for operators that onnxruntime
# has no CPU kernel for (com.microsoft ops registered only for CUDA, say):
# vkserve runs "model", onnxruntime runs this equivalent model instead, built
# from ops it does run. It must take the same graph inputs (names and element
# types) and produce every output of "model" under the same name.
#
# Usage: /usr/bin/python3 tests/ops/gen_cases.py OUT [--filter REGEX]
#        [--cases-dir DIR]
# OUT is replaced entirely (it must be empty, missing, or a previous OUT).
import argparse
import importlib.util
import json
import pathlib
import re
import shutil
import sys

import numpy as np
import onnx
from onnx import helper

# Tolerances when a case names none: float32 GPU kernels sum in a different
# order than onnxruntime's CPU kernels, so results differ by a few ulps of the
# operands; cases with long reductions pass their own atol.
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-4

MARKER = ".vkserve_op_cases"
NAME_RE = re.compile(r"^[A-Za-z0-9_]+$")  # also a valid googletest parameter name


class CaseError(Exception):
    pass


def load_modules(cases_dir):
    files = sorted(pathlib.Path(cases_dir).glob("*_cases.py"))
    if not files:
        raise CaseError(f"no *_cases.py modules in {cases_dir}")
    modules = []
    sys.path.insert(0, str(cases_dir))  # modules may share helpers next to them
    for path in files:
        spec = importlib.util.spec_from_file_location(f"vkserve_op_cases_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not callable(getattr(module, "cases", None)):
            raise CaseError(f"{path}: defines no cases() function")
        modules.append((path.stem, module))
    return modules


def graph_inputs(model):
    """Graph inputs that are not initializers, in declaration order."""
    inits = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def np_dtype(elem_type):
    """numpy dtype of an ONNX element type (Debian's onnx 1.12 has only the mapping)."""
    if hasattr(helper, "tensor_dtype_to_np_dtype"):
        return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))
    from onnx import mapping
    return np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type])


def check_case(case, module):
    where = f"{module}: case {case.get('name', '<unnamed>')!r}"
    for key in ("name", "model", "inputs"):
        if key not in case:
            raise CaseError(f"{where}: missing key {key!r}")
    extra = set(case) - {"name", "model", "inputs", "rtol", "atol", "reference_model",
                         "expected", "precision", "accumulation", "requires", "min_max_error",
                         "fused_op", "absent_op", "dispatches", "kernel", "conv_layout",
                         "nhwc_convs"}
    if extra:
        raise CaseError(f"{where}: unknown keys {sorted(extra)}")
    if not isinstance(case["name"], str) or not NAME_RE.match(case["name"]):
        raise CaseError(f"{where}: name must match {NAME_RE.pattern}")
    if not isinstance(case["model"], onnx.ModelProto):
        raise CaseError(f"{where}: 'model' is not an onnx.ModelProto")
    declared = graph_inputs(case["model"])
    names = [i.name for i in declared]
    given = case["inputs"]
    if set(given) != set(names):
        raise CaseError(f"{where}: inputs {sorted(given)} do not match the graph inputs {names}")
    for info in declared:
        array = np.asarray(given[info.name])
        if not info.type.HasField("tensor_type"):
            raise CaseError(f"{where}: input {info.name!r} is not a tensor")
        want = np_dtype(info.type.tensor_type.elem_type)
        if array.dtype != want:
            raise CaseError(f"{where}: input {info.name!r} is {array.dtype}, the graph says {want}")
        if info.type.tensor_type.HasField("shape"):
            dims = info.type.tensor_type.shape.dim
            ok = len(dims) == array.ndim and all(
                not d.HasField("dim_value") or d.dim_value == s for d, s in zip(dims, array.shape))
            if not ok:
                raise CaseError(f"{where}: input {info.name!r} has shape {array.shape}, the graph "
                                f"declares {[d.dim_value if d.HasField('dim_value') else d.dim_param for d in dims]}")
    for key in ("rtol", "atol"):
        if key in case and not (isinstance(case[key], (int, float)) and case[key] >= 0):
            raise CaseError(f"{where}: {key} must be a non-negative number")
    if "reference_model" in case:
        check_reference_model(case["model"], case["reference_model"], where)
    if "expected" in case and len(case["expected"]) != len(case["model"].graph.output):
        raise CaseError(f"{where}: 'expected' needs one array per graph output")
    if case.get("precision", "FP32") not in ("FP32", "FP16"):
        raise CaseError(f"{where}: precision must be FP32 or FP16")
    if case.get("accumulation", "FP32") not in ("FP32", "FP16"):
        raise CaseError(f"{where}: accumulation must be FP32 or FP16")
    if case.get("conv_layout", "NCHW") not in ("NCHW", "NHWC"):
        raise CaseError(f"{where}: conv_layout must be NCHW or NHWC")
    if not isinstance(case.get("nhwc_convs", 0), int):
        raise CaseError(f"{where}: nhwc_convs must be an int")
    if case.get("accumulation") == "FP16" and case.get("precision") != "FP16":
        raise CaseError(f"{where}: accumulation FP16 needs precision FP16")
    return names


def check_reference_model(model, reference, where):
    """The reference must read the same inputs and name every output of the model."""
    if not isinstance(reference, onnx.ModelProto):
        raise CaseError(f"{where}: 'reference_model' is not an onnx.ModelProto")
    def types(m):
        return {i.name: i.type.tensor_type.elem_type for i in graph_inputs(m)}
    if types(reference) != types(model):
        raise CaseError(f"{where}: reference_model's inputs {types(reference)} differ from the "
                        f"model's {types(model)} (names and element types)")
    missing = {o.name for o in model.graph.output} - {o.name for o in reference.graph.output}
    if missing:
        raise CaseError(f"{where}: reference_model lacks outputs {sorted(missing)}")


def prepare_out(out):
    if out.exists():
        if any(out.iterdir()) and not (out / MARKER).exists():
            raise CaseError(f"{out} exists and was not written by gen_cases.py; refusing to clear it")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / MARKER).write_text("generated by tests/ops/gen_cases.py\n")


def write_case(out, case, module, input_names):
    d = out / case["name"]
    (d / "inputs").mkdir(parents=True)
    (d / "model.onnx").write_bytes(case["model"].SerializeToString())
    if "reference_model" in case:
        (d / "reference.onnx").write_bytes(case["reference_model"].SerializeToString())
    for i, name in enumerate(input_names):
        # C order (np.save would keep Fortran order), little-endian; keeps 0-d
        # arrays 0-d, unlike np.ascontiguousarray.
        array = np.asarray(case["inputs"][name])
        if not array.flags.c_contiguous:
            array = array.copy(order="C")
        if array.dtype.byteorder == ">":
            array = array.astype(array.dtype.newbyteorder("<"))
        np.save(d / "inputs" / f"{i}.npy", array, allow_pickle=False)
    meta = {
        "name": case["name"],
        "module": module,
        "inputs": input_names,
        "outputs": [o.name for o in case["model"].graph.output],
        "rtol": float(case.get("rtol", DEFAULT_RTOL)),
        "atol": float(case.get("atol", DEFAULT_ATOL)),
    }
    if "reference_model" in case:
        meta["reference_model"] = "reference.onnx"
    for key in ("precision", "accumulation", "requires", "min_max_error", "fused_op", "absent_op",
                "dispatches", "kernel", "conv_layout", "nhwc_convs"):
        if key in case:
            meta[key] = case[key]
    if "expected" in case:
        # The case brings its own reference (an fp64 computation, say);
        # ort_batch.js leaves it alone.
        meta["expected_given"] = True
        (d / "expected").mkdir()
        for i, array in enumerate(case["expected"]):
            np.save(d / "expected" / f"{i}.npy", np.ascontiguousarray(array), allow_pickle=False)
    (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")


def main(argv=None):
    here = pathlib.Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description="Writes the op test cases to disk.")
    parser.add_argument("out", type=pathlib.Path, help="output directory (replaced)")
    parser.add_argument("--filter", default="", help="only cases whose name matches (re.search)")
    parser.add_argument("--cases-dir", type=pathlib.Path, default=here / "cases")
    parser.add_argument("--sample", type=int, default=1, metavar="N",
                        help="of each module's matching cases, only the 1st, (N+1)th, (2N+1)th, ... "
                             "(the sanitizer builds run a sample)")
    args = parser.parse_args(argv)
    if args.sample < 1:
        parser.error("--sample must be at least 1")
    pattern = re.compile(args.filter)
    try:
        modules = load_modules(args.cases_dir)
        prepare_out(args.out)
        seen = {}
        written = 0
        for module_name, module in modules:
            matched = 0
            for case in module.cases():
                names = check_case(case, module_name)
                if case["name"] in seen:
                    raise CaseError(f"{module_name}: case name {case['name']!r} is also used by "
                                    f"{seen[case['name']]}")
                seen[case["name"]] = module_name
                if not pattern.search(case["name"]):
                    continue
                matched += 1
                if (matched - 1) % args.sample != 0:
                    continue
                write_case(args.out, case, module_name, names)
                written += 1
    except CaseError as e:
        print(f"gen_cases: {e}", file=sys.stderr)
        return 1
    print(f"gen_cases: wrote {written} of {len(seen)} cases from {len(modules)} modules to {args.out}")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main())
