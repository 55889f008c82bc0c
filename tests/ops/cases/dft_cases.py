# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# DFT (opsets 17 and 20) and STFT (opset 17) against onnxruntime: real and
# complex signals, forward and inverse, one-sided output, the inverse of a
# one-sided spectrum (irfft) at even and odd lengths, dft_length padding and
# truncating, the axis first, in the middle or counted from the back, and
# STFT frames with and without a window, one-sided or full, at Whisper's
# 400-sample frames, double and float16 signals; MelWeightMatrix's filter
# banks. The sums are direct (n terms per bin), so the
# tolerance grows with n.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import make_model

_RNG = np.random.default_rng(20261128)


def _signal(shape):
    return _RNG.standard_normal(shape).astype(np.float32)


def _dft_f16():
    # onnxruntime has no float16 DFT: numpy's FFT of the same fp16 values,
    # rounded to fp16, within fp16's precision.
    x = _signal((2, 10, 1)).astype(np.float16)
    y = np.fft.fft(x[..., 0].astype(np.float64), axis=1)
    expected = np.stack([y.real, y.imag], axis=-1).astype(np.float16)
    node = helper.make_node("DFT", ["x"], ["y"], axis=1)
    return {"name": "dft_float16", "model": make_model([node], {"x": x}, [("y", TensorProto.FLOAT16)], 17),
            "inputs": {"x": x}, "expected": [expected], "atol": 1e-2, "rtol": 1e-2}


def _dft(name, x, opset, axis=None, length=None, atol=1e-4, **attrs):
    inputs = {"x": x}
    inits = {}
    names = ["x", ""]
    if length is not None:
        inits["n"] = np.array(length, np.int64)
        names[1] = "n"
    if opset >= 20:
        if axis is not None:
            inits["axis"] = np.array(axis, np.int64)
            names.append("axis")
    elif axis is not None:
        attrs["axis"] = axis
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node("DFT", names, ["y"], **attrs)
    out_type = TensorProto.DOUBLE if x.dtype == np.float64 else TensorProto.FLOAT
    return {"name": f"dft_{name}", "model": make_model([node], inputs, [("y", out_type)], opset, inits),
            "inputs": inputs, "atol": atol}


def _stft(name, batch, samples, complex_signal, step, length=None, window=None, onesided=None, atol=1e-4,
          dtype=np.float32):
    x = _signal((batch, samples, 2 if complex_signal else 1)).astype(dtype)
    inputs = {"signal": x}
    inits = {"step": np.array(step, np.int64)}
    names = ["signal", "step", "", ""]
    if window is not None:
        inits["window"] = window.astype(dtype)
        names[2] = "window"
    if length is not None:
        inits["length"] = np.array(length, np.int64)
        names[3] = "length"
    while names[-1] == "":
        names.pop()
    attrs = {} if onesided is None else {"onesided": onesided}
    node = helper.make_node("STFT", names, ["y"], **attrs)
    out_type = TensorProto.DOUBLE if dtype == np.float64 else TensorProto.FLOAT
    return {"name": f"stft_{name}", "model": make_model([node], inputs, [("y", out_type)], 17, inits),
            "inputs": inputs, "atol": atol}


def cases():
    yield _dft("real_axis1", _signal((2, 12, 3, 1)), 20, axis=1)
    yield _dft("complex_default_axis", _signal((3, 5, 9, 2)), 20)
    yield _dft("complex_inverse", _signal((2, 16, 2)), 20, axis=-2, inverse=1)
    yield _dft("real_inverse", _signal((4, 7, 1)), 20, axis=1, inverse=1)
    yield _dft("onesided_even", _signal((2, 3, 20, 1)), 20, axis=2, onesided=1)
    yield _dft("onesided_odd", _signal((3, 15, 1)), 20, axis=1, onesided=1)
    yield _dft("pad_length", _signal((2, 6, 4, 1)), 20, axis=1, length=11)
    yield _dft("truncate_length", _signal((2, 13, 2)), 20, axis=1, length=8)
    yield _dft("irfft_even", _signal((2, 9, 3, 2)), 20, axis=1, inverse=1, onesided=1)
    yield _dft("irfft_odd_length", _signal((2, 6, 2)), 20, axis=1, length=11, inverse=1, onesided=1)
    yield _dft("opset17_axis2", _signal((2, 3, 10, 2)), 17, axis=2)
    yield _dft("opset17_default", _signal((3, 8, 1)), 17)
    yield _dft("long_256", _signal((2, 256, 1)), 20, axis=1, onesided=1, atol=5e-4)
    yield _stft("plain", 2, 64, False, 8, length=16)
    yield _stft("hann_window", 1, 100, False, 10, window=np.hanning(20))
    yield _stft("full_spectrum", 2, 50, False, 7, length=12, onesided=0)
    yield _stft("complex_signal", 1, 40, True, 5, length=10, onesided=0)
    yield _stft("whisper_frames", 1, 3200, False, 160, window=np.hanning(400), atol=2e-3)
    # Other float types convert at the node's boundary.
    yield _dft("double", _signal((2, 12, 2)).astype(np.float64), 20, axis=1, inverse=1)
    yield _stft("double_window", 1, 48, False, 6, window=np.hanning(12), dtype=np.float64)
    yield _dft_f16()
    yield from mel_cases()


def _mel(name, bins, dft_length, rate, low, high):
    inputs = {"bins": np.array(bins, np.int64), "n": np.array(dft_length, np.int64),
              "rate": np.array(rate, np.int64), "low": np.array(low, np.float32),
              "high": np.array(high, np.float32)}
    node = helper.make_node("MelWeightMatrix", list(inputs), ["w"])
    return {"name": f"melweightmatrix_{name}",
            "model": make_model([node], inputs, [("w", TensorProto.FLOAT)], 17), "inputs": inputs}


def mel_cases():
    # Model inputs read when the model is planned (value inputs).
    yield _mel("whisper", 80, 400, 16000, 0.0, 8000.0)
    yield _mel("speech", 40, 512, 16000, 20.0, 7600.0)
    yield _mel("narrow_bands", 8, 16, 8192, 0.0, 4096.0)
