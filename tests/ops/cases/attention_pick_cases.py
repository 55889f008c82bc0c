# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The fused Attention node's three kernels (runtime/kernels/attention/attention_choice.h):
# each problem pinned with the node attribute vkserve_attention_kernel to the
# fused flash-attention kernel, to the unfused GEMM lowering
# (runtime/kernels/attention/attention_lowering.h) and to the tensor-core kernel
# (runtime/kernels/attention/flash_attention_cm.h; its scalar emulation where the device has
# no cooperative matrices), in both its forms (the softmax through shared
# memory, and in registers), against onnxruntime running the same
# graph without the attribute ("reference_model"). Every mask kind the fused
# op takes (none, additive float key padding, bool key padding, causal, causal
# with bool padding, a float [S, T] mask), the empty-rows-zero mode (the
# exporters' NaN guard, fused), 3-D and 4-D layouts (3-D with B > 1 writes Y
# through a copy), grouped-query heads, cross attention, past keys, packed
# Q/K/V (read at offsets), odd sequence lengths and head sizes 32/64/80/128
# (and 6, off the vector paths), one FP16-precision case, and float16 models
# (the tensor-core kernel's fp16 variants, or conversions). Each case checks
# with "kernel" that the pinned path ran; two unpinned cases check the rule's
# choice on either side of its threshold. Small: well under a second each on
# lavapipe.
import numpy as np
from onnx import TensorProto, helper

from attention_case import attention_problem, padding, rand
from onnx_case import ELEM_TYPE

_RNG = np.random.default_rng(20261125)
_PIN = "vkserve_attention_kernel"
# The tensor-core kernel with its softmax in registers
# (flash_attention_cm_regs.glsl), pinned to 2 subgroups of 32-key tiles: a
# variant of every head size. Its name in case names, and its description.
_REGS = "coopmat:2x32:registers"
_REGS_KERNEL = "coopmat flash-attention kernel, 32-row tiles of 32 keys, softmax in registers"
_KERNELS = ("fused", "unfused", "coopmat", _REGS)


def _kernel_name(kernel):
    return "coopmat_regs" if kernel == _REGS else kernel


def _kernel_check(kernel):
    return _REGS_KERNEL if kernel == _REGS else kernel


def _rand(*shape):
    return rand(_RNG, *shape)


def _padding(b, s, t):
    return padding(_RNG, b, s, t)


def _model(nodes, inputs, outputs, inits=(), opset=23, out_type=TensorProto.FLOAT):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, ELEM_TYPE[a.dtype], list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, out_type, None) for n in outputs], initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _pair(name, build, inputs, outputs, atol=2e-4, precision=None, reference=None):
    """The case pinned to each kernel; build(pin) returns the node list. At
    FP16 precision the unfused path's GEMMs round their operands to fp16 (the
    fused kernel stays fp32): its case demands an error fp32 would not make.
    The tensor-core kernel ("coopmat"; its scalar emulation off the H100)
    always rounds Q, K, V and P to fp16, so its bound is fp16's and it too
    must show an error."""
    for kernel in _KERNELS:
        case = {"name": f"attention_pick_{name}_{_kernel_name(kernel)}",
                "model": _model(build(kernel), inputs, outputs),
                "inputs": inputs, "reference_model": reference or _model(build(None), inputs, outputs),
                "atol": atol, "kernel": _kernel_check(kernel)}
        if precision:
            case["precision"] = precision
            case["rtol"] = atol
            if kernel == "unfused":
                case["min_max_error"] = 1e-4
        if kernel.startswith("coopmat"):
            case.update(_tolerance(kernel, atol))
            if len(outputs) > 1:  # present keys and values are exact copies
                del case["min_max_error"]
        yield case


def _tolerance(kernel, atol=2e-4):
    """fp32's bound, or fp16's for the tensor-core kernel, which must also
    show that it rounded."""
    if not kernel.startswith("coopmat"):
        return {"atol": atol}
    return {"atol": max(atol, 4e-3), "rtol": max(atol, 4e-3), "min_max_error": 1e-5}


def _attention(name, b, hq, hkv, s, t, e, mask, three_d, past=0, scale=None, **kw):
    inputs, names, outputs, attrs = attention_problem(_RNG, b, hq, hkv, s, t, e, mask, three_d, past, scale)

    def build(pin):
        extra = {_PIN: pin} if pin else {}
        return [helper.make_node("Attention", names, outputs, **attrs, **extra)]
    yield from _pair(name, build, inputs, outputs, **kw)


def _empty_rows_zero():
    """The exporters' NaN guard, fused as the empty-rows-zero mode
    (runtime/passes/attention_fusion.h): query 3 of batch 0 sees no key and gets 0
    on both paths. The pin goes on the Softmax; the fusion moves it."""
    b, n, s, e = 2, 2, 9, 32
    keep = _RNG.random((b, 1, s, s)) < 0.7
    keep[:, :, :, 0] = True
    keep[0, :, 3, :] = False
    inputs = {"Q": _rand(b, n, s, e), "K": _rand(b, n, s, e), "V": _rand(b, n, s, e), "keep": keep}
    inits = [helper.make_tensor("c", TensorProto.FLOAT, [], [float(1 / np.sqrt(e))]),
             helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
             helper.make_tensor("ninf", TensorProto.FLOAT, [], [float("-inf")])]

    def model(pin):
        extra = {_PIN: pin} if pin else {}
        nodes = [helper.make_node("Where", ["keep", "zero", "ninf"], ["M"]),
                 helper.make_node("Transpose", ["K"], ["Kt"], perm=[0, 1, 3, 2]),
                 helper.make_node("MatMul", ["Q", "Kt"], ["S"]),
                 helper.make_node("Mul", ["S", "c"], ["Ss"]),
                 helper.make_node("Add", ["Ss", "M"], ["Sm"]),
                 helper.make_node("Softmax", ["Sm"], ["P"], axis=-1, **extra),
                 helper.make_node("IsNaN", ["P"], ["nan"]),
                 helper.make_node("Where", ["nan", "zero", "P"], ["Pz"]),
                 helper.make_node("MatMul", ["Pz", "V"], ["Y"])]
        return _model(nodes, inputs, ["Y"], inits, 17)
    for kernel in _KERNELS:
        yield {"name": f"attention_pick_empty_rows_zero_e32_{_kernel_name(kernel)}", "model": model(kernel),
               "inputs": inputs, "reference_model": model(None), "kernel": _kernel_check(kernel),
               "fused_op": "MatMul+Mul+Add+Softmax+IsNaN+Where+MatMul=Attention", **_tolerance(kernel)}


def _packed():
    """Packed Q/K/V (runtime/passes/qkv_packing.h): the Split of one [B, S, Q|K|V]
    tensor goes and the Attention reads it in place; the unfused path binds
    each operand at its offset (64 and 96 floats: 256 and 384 bytes)."""
    b, s, hq, hkv, e = 2, 11, 2, 1, 32
    qw, kw = hq * e, hkv * e
    inputs = {"X": _rand(b, s, qw + 2 * kw), "M": _padding(b, s, s)}
    sizes = helper.make_tensor("sizes", TensorProto.INT64, [3], [qw, kw, kw])

    def model(pin):
        extra = {_PIN: pin} if pin else {}
        nodes = [helper.make_node("Split", ["X", "sizes"], ["Q", "K", "V"], axis=2),
                 helper.make_node("Attention", ["Q", "K", "V", "M"], ["Y"], q_num_heads=hq, kv_num_heads=hkv,
                                  **extra)]
        return _model(nodes, inputs, ["Y"], [sizes])
    for kernel in _KERNELS:
        yield {"name": f"attention_pick_packed_gqa_pad_bool_{_kernel_name(kernel)}", "model": model(kernel),
               "inputs": inputs, "reference_model": model(None), "kernel": _kernel_check(kernel),
               "fused_op": "Attention(QKV packed)",
               **_tolerance(kernel)}


def _half(name, b, hq, hkv, s, t, e, mask, three_d, pins=("coopmat", _REGS), **kw):
    """A float16 model (fp16 Q, K, V, mask and Y): pinned to the tensor-core
    kernel it runs on its fp16 variants (their emulation off the H100), or
    unpinned ("auto": the fp32 kernels between conversions on a device
    without tensor cores, the tensor-core kernel on one). The reference runs
    the same Attention in float32 between Casts; an additive mask is -inf
    where fp32 cases use -1e9, which fp16 does not hold."""
    inputs, names, outputs, attrs = attention_problem(_RNG, b, hq, hkv, s, t, e, mask, three_d)
    if "M" in inputs and inputs["M"].dtype == np.float32:
        inputs["M"] = np.where(inputs["M"] < -1e8, -np.inf, inputs["M"]).astype(np.float32)
    inputs = {n: a.astype(np.float16) if a.dtype == np.float32 else a for n, a in inputs.items()}
    f16 = TensorProto.FLOAT16
    cast_in = [helper.make_node("Cast", [n], [n + "_f32"], to=TensorProto.FLOAT)
               for n, a in inputs.items() if a.dtype == np.float16]
    ref_names = [n + "_f32" if n in inputs and inputs[n].dtype == np.float16 else n for n in names]
    reference = _model(cast_in + [helper.make_node("Attention", ref_names, ["Y_f32"], **attrs),
                                  helper.make_node("Cast", ["Y_f32"], ["Y"], to=f16)],
                       inputs, ["Y"], out_type=f16)
    for pin in pins:
        extra = {_PIN: pin} if pin != "auto" else {}
        case = {"name": f"attention_pick_f16io_{name}_{_kernel_name(pin)}", "inputs": inputs,
                "reference_model": reference,
                "model": _model([helper.make_node("Attention", names, outputs, **attrs, **extra)], inputs,
                                outputs, out_type=f16),
                "atol": 4e-3, "rtol": 4e-3, **kw}
        if pin.startswith("coopmat"):
            case["kernel"] = _kernel_check(pin)
        yield case


def _unpinned(name, b, h, s, e, kernel):
    """No pin: the rule's choice at this shape (kFusedAttentionMaxFlop; at
    FP16 on a device with tensor cores, the tensor-core kernel)."""
    inputs = {"Q": _rand(b, h, s, e), "K": _rand(b, h, s, e), "V": _rand(b, h, s, e), "M": _padding(b, s, s)}
    model = _model([helper.make_node("Attention", ["Q", "K", "V", "M"], ["Y"])], inputs, ["Y"])
    case = {"name": f"attention_pick_auto_{name}", "model": model, "inputs": inputs, "atol": 2e-4,
            "kernel": kernel}
    if kernel == "coopmat":
        case.update(_tolerance(kernel), precision="FP16", requires="cooperative_matrix")
    return case


def _pinned_variant():
    """A tensor-core variant pinned by name ("coopmat:<subgroups>x<keys>"):
    2 subgroups of 64-key tiles at sequence 197 (a partial last tile of
    queries and of keys), fp32 and fp16 tensors; with the softmax in
    registers, 2 and 4 subgroups of 64-key tiles, and two blocks of 16 query
    rows per subgroup ("...x32"), also under a causal mask with a bool key
    padding."""
    for precision, pin, mask in ((None, "coopmat:2x64", "pad_float"), ("FP16", "coopmat:2x64", "pad_float"),
                                 ("FP16", "coopmat:2x64:registers", "pad_float"),
                                 ("FP16", "coopmat:4x64:registers", "pad_float"),
                                 ("FP16", "coopmat:2x64x32:registers", "pad_float"),
                                 ("FP16", "coopmat:4x32x32:registers", "causal_pad_bool")):
        inputs, names, outputs, attrs = attention_problem(_RNG, 2, 2, 2, 197, 197, 64, mask, False, 0, None)

        def build(pin):
            extra = {_PIN: pin} if pin else {}
            return [helper.make_node("Attention", names, outputs, **attrs, **extra)]
        tile = pin.split(":")[1]
        dims = [int(d) for d in tile.split("x")]
        rows = dims[0] * (dims[2] if len(dims) > 2 else 16)
        regs = pin.endswith(":registers")
        case = {"name": f"attention_pick_e64_s197_{mask}_coopmat_{tile}" +
                        ("_regs" if regs else "") + ("_fp16" if precision else ""),
                "model": _model(build(pin), inputs, outputs), "inputs": inputs,
                "reference_model": _model(build(None), inputs, outputs),
                "kernel": f"coopmat flash-attention kernel, {rows}-row tiles of {dims[1]} keys" +
                          (", softmax in registers" if regs else ""),
                **_tolerance("coopmat")}
        if precision:
            case.update({"precision": precision, "rtol": 4e-3})
        yield case


def cases():
    for args, kw in (
            (("e32_s7_pad_float_gqa", 2, 4, 2, 7, 7, 32, "pad_float", False), {}),
            (("e64_s13_causal_3d", 2, 2, 2, 13, 13, 64, "causal", True), {}),
            (("e80_s1_t9_pad_bool", 2, 4, 2, 1, 9, 80, "pad_bool", False), {}),
            (("e128_s33_causal_pad_bool_3d", 2, 2, 2, 33, 33, 128, "causal_pad_bool", True), {}),
            (("e64_s127_float_st", 1, 2, 2, 127, 127, 64, "float_st", False), {}),
            (("e80_cross_s13_t33_pad_bool_3d_gqa", 2, 4, 1, 13, 33, 80, "pad_bool", True), {}),
            (("e32_s65_none_3d_b1", 1, 3, 3, 65, 65, 32, "none", True), {}),
            (("e6_s9_pad_bool", 2, 2, 2, 9, 9, 6, "pad_bool", False), {}),
            (("e64_past_causal_present", 2, 2, 2, 7, 7, 64, "causal", False), {"past": 11}),
            (("e128_causal_scale", 1, 2, 2, 17, 17, 128, "causal", True), {"scale": 0.05}),
            (("fp16_e64_s31_pad_float", 2, 2, 2, 31, 31, 64, "pad_float", False),
             {"precision": "FP16", "atol": 4e-3})):
        yield from _attention(*args, **kw)
    yield from _empty_rows_zero()
    yield from _packed()
    yield from _pinned_variant()
    # 4 * B * H * S^2 * E: 4.3 MFLOP (fused) and 135 MFLOP (unfused) around 64.
    yield _unpinned("small_fused", 1, 2, 33, 64, "fused")
    yield _unpinned("large_unfused", 2, 4, 257, 64, "unfused")
    yield _unpinned("fp16_small_coopmat", 1, 2, 33, 64, "coopmat")
    yield _unpinned("fp16_large_coopmat", 2, 4, 257, 64, "coopmat")
    # float16 models: the tensor-core kernel's fp16 variants, and the
    # fallback through conversions.
    yield from _half("e64_s31_pad_float", 2, 2, 2, 31, 31, 64, "pad_float", False,
                     pins=("coopmat", _REGS, "auto"))
    yield from _half("e32_s13_causal_pad_bool_3d_gqa", 2, 4, 2, 13, 13, 32, "causal_pad_bool", True)
    yield from _half("e80_cross_s7_t21_none", 1, 2, 2, 7, 21, 80, "none", False,
                     pins=("coopmat", _REGS, "fused"))
    yield from _half("e64_s40_float_st_b1", 1, 2, 2, 40, 40, 64, "float_st", False)
