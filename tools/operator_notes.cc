// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "tools/operator_notes.h"

namespace vkserve::tools {
namespace {

constexpr char kNchwc[] = "com.microsoft.nchwc";

constexpr OperatorNote kOperatorNotes[] = {
    // ai.onnx: GPU kernels.
    {"", "Attention", 0,
     "3-D or 4-D, grouped-query heads, additive float or bool masks, causal, past keys; a fused, "
     "unfused or tensor-core kernel chosen per shape (see Attention)"},
    {"", "AveragePool", 0, "1-D to 3-D"},
    {"", "BatchNormalization", 0, "training mode too: batch statistics and running outputs"},
    {"", "BitCast", 0, "between types of the same size"},
    {"", "Cast", 0, "float64 by rebiasing bits (no shaderFloat64); uint2/int2 held one per byte"},
    {"", "Clip", 0, "bool, 8- and 16-bit integers, float16 and float64 through float32"},
    {"", "Compress", 0, "single-workgroup scan, meant for index-sized inputs"},
    {"", "Constant", 0, "always folded when planned; never runs"},
    {"", "Conv", 0,
     "1-D to 3-D on the GEMM engine (1-D/2-D: implicit im2col; 3-D: im2col matrix, chunked, then a "
     "plain product); float16 natively (fp32 sums), depthwise too"},
    {"", "ConvTranspose", 0, "1-D to 3-D"},
    {"", "CumProd", 0, "float64 through float32"},
    {"", "CumSum", 0,
     "also int32, uint32, int64, uint64; float16, bfloat16 and float64 through float32"},
    {"", "DeformConv", 0, "2-D"},
    {"", "DequantizeLinear", 0, "uint2/int2 too"},
    {"", "DFT", 0,
     "direct sums over host-computed twiddles; forward, inverse, one-sided, irfft; float16, "
     "bfloat16 and float64 through float32"},
    {"", "Dropout", 0, "inference; training mode only with a ratio of 0"},
    {"", "Einsum", 0, "one or two operands: strided copies and one batched GEMM"},
    {"", "GatherND", 0, "every 1- to 16-byte type, bool included"},
    {"", "Gelu", 0, "exact and tanh forms; written-out GELU patterns become this op at load"},
    {"", "Hardmax", 0, "float16 and float64 computed in fp32"},
    {"", "If", 0, "the condition must be known when planned (see Control flow)"},
    {"", "LayerNormalization", 17,
     "RMS-specialized form for RMSNorm patterns and rewrites; written-out LayerNorm patterns "
     "become this op at load"},
    {"", "LinearAttention", 0,
     "every update rule, grouped heads; one invocation per state column walks the sequence"},
    {"", "LogSoftmax", 0, "float16 and float64 computed in fp32"},
    {"", "Loop", 0,
     "trip count and conditions known when planned; at most 4,096 iterations (see Control flow)"},
    {"", "LpPool", 0, "1-D to 3-D"},
    {"", "MatMul", 0, "float64 through float32"},
    {"", "Max", 0, "every integer width; float64 through float32"},
    {"", "MaxPool", 0, "1-D to 3-D, with Indices; bool and 8- and 16-bit integers through float32"},
    {"", "MaxUnpool", 0,
     "output_shape as onnxruntime reads it; float16 and float64 computed in fp32"},
    {"", "MelWeightMatrix", 0, "computed when the model is planned"},
    {"", "Min", 0, "every integer width; float64 through float32"},
    {"", "Mod", 0, "every integer width; float64 through float32"},
    {"", "NonMaxSuppression", 0,
     "ranked, IoU bit masks, then a greedy keep pass per class; up to 98,304 boxes"},
    {"", "NonZero", 0, "single-workgroup scan, meant for index-sized inputs"},
    {"", "Pow", 0, "every integer width, an integer base with float exponents too"},
    {"", "QuantizeLinear", 0, "uint2/int2 too"},
    {"", "ReduceMax", 0, "bool, 8- and 16-bit integers, float16 and float64 through float32"},
    {"", "ReduceMin", 0, "bool, 8- and 16-bit integers, float16 and float64 through float32"},
    {"", "Resize", 0, "every mode, antialias included"},
    {"", "Scan", 8, "opset 8's batched form"},
    {"", "Scan", 9, "unrolled over its sequence length when planned (see Control flow)"},
    {"", "Shape", 0, "always folded when planned; never runs"},
    {"", "Size", 0, "always folded when planned; never runs"},
    {"", "Softmax", 0, "float16 and float64 computed in fp32"},
    {"", "STFT", 0, "DFT's kernel over windowed frames"},
    {"", "Swish", 0, "x·Sigmoid(x) patterns (SiLU) become this op at load"},
    {"", "TensorScatter", 0,
     "the KV-cache update, linear or circular; write indices read on the GPU"},
    {"", "TfIdfVectorizer", 0, "integer tokens; pool tables built when planned"},
    {"", "TopK", 0,
     "every integer width; bool, 8- and 16-bit integers and float16 through float32"},
    {"", "Unique", 0, "single-workgroup, quadratic in the rows"},

    // ai.onnx: rewritten at load.
    {"", "BlackmanWindow", 0, "Range, then elementwise Cos/Mul/Sub/Add (the function body)"},
    {"", "CausalConvWithState", 0,
     "Concat or Pad, a grouped Conv, Sigmoid·x and Slice (the function body)"},
    {"", "ConvInteger", 0, "a float Conv and a Cast to int32 (see Quantized operators)"},
    {"", "DynamicQuantizeLinear", 0, "ReduceMin/ReduceMax and elementwise ops"},
    {"", "GRU", 0, "a Scan over the cell (see Recurrent operators)"},
    {"", "HammingWindow", 0, "Range, then elementwise Cos/Mul/Sub/Add (the function body)"},
    {"", "HannWindow", 0, "Range, then elementwise Cos/Mul/Sub/Add (the function body)"},
    {"", "LayerNormalization", 1,
     "ONNX Runtime's own LayerNormalization at since_version 1: becomes the opset-17 op"},
    {"", "LSTM", 0, "a Scan over the cell, peepholes included (see Recurrent operators)"},
    {"", "MatMulInteger", 0, "a float MatMul and a Cast to int32 (see Quantized operators)"},
    {"", "QLinearConv", 0, "a float Conv between dequantize and requantize steps"},
    {"", "QLinearMatMul", 0, "a float MatMul between dequantize and requantize steps"},
    {"", "RMSNormalization", 0, "LayerNormalization's RMS form"},
    {"", "RNN", 0, "a Scan over the cell (see Recurrent operators)"},
    {"", "SimplifiedLayerNormalization", 0,
     "ONNX Runtime's RMSNorm at since_version 1: LayerNormalization's RMS form"},
    {"", "Upsample", 0, "Resize"},

    // ai.onnx.preview
    {"ai.onnx.preview", "FlexAttention", 0,
     "one Attention node without hooks; else MatMul, score_mod inlined, Softmax, prob_mod "
     "inlined, MatMul, key/value heads repeated for grouped queries"},

    // com.microsoft
    {"com.microsoft", "Attention", 0,
     "1-D, 2-D and 3-D masks, causal, past/present: MatMuls over the split packed weight and the "
     "attention core (the fused kernel when there is no mask and no past)"},
    {"com.microsoft", "BiasAdd", 0, "Adds"},
    {"com.microsoft", "BiasGelu", 0, "Add and Gelu, which fold into the MatMul before them"},
    {"com.microsoft", "BiasSoftmax", 0, "Add and Softmax over ONNX Runtime's flattened rows"},
    {"com.microsoft", "EmbedLayerNormalization", 0, "Gathers, Adds and LayerNormalization"},
    {"com.microsoft", "FastGelu", 0, "Add and Gelu (tanh form)"},
    {"com.microsoft", "FusedConv", 0,
     "Conv, Add of the sum input, the activation: fused back into one Conv kernel"},
    {"com.microsoft", "FusedGemm", 0, "Gemm and the activation, fused back into one kernel"},
    {"com.microsoft", "FusedMatMul", 0, "MatMul with transposes and alpha"},
    {"com.microsoft", "Gelu", 0, "ONNX Gelu"},
    {"com.microsoft", "MultiHeadAttention", 0,
     "the attention core over given projections (the fused kernel when there is no mask and no "
     "past)"},
    {"com.microsoft", "NhwcMaxPool", 0,
     "Transpose, MaxPool, Transpose; float tensors only (ONNX Runtime defines it for int8/uint8)"},
    {"com.microsoft", "QuickGelu", 0, "x·Sigmoid(alpha·x)"},
    {"com.microsoft", "SkipLayerNormalization", 0, "Adds and LayerNormalization"},
    {"com.microsoft", "SkipSimplifiedLayerNormalization", 0,
     "Adds and LayerNormalization's RMS form"},
    {"com.microsoft", "TransposeMatMul", 0, "FusedMatMul's older name"},

    // com.microsoft.nchwc
    {kNchwc, "AveragePool", 0, "AveragePool on the un-blocked tensor"},
    {kNchwc, "Conv", 0,
     "Conv on the weights laid back out to OIHW, Add of the sum input and the activation"},
    {kNchwc, "GlobalAveragePool", 0, "the ONNX pooling op on the un-blocked tensor"},
    {kNchwc, "GlobalMaxPool", 0, "the ONNX pooling op on the un-blocked tensor"},
    {kNchwc, "MaxPool", 0, "MaxPool on the un-blocked tensor"},
    {kNchwc, "ReorderInput", 0,
     "channels zero-padded to the block size (Pad; Transpose from NHWC)"},
    {kNchwc, "ReorderOutput", 0, "the first `channels` channels (Slice; Transpose to NHWC)"},
    {kNchwc, "Upsample", 0, "Resize with the same scales"},

    // vkserve
    {"vkserve", "AttentionMask", 0,
     "applies ONNX Runtime's attention masks to the scaled scores in one pass"},
};

constexpr DomainNote kDomainNotes[] = {
    {"",
     "The ONNX standard operators. Some older or composite ones are rewritten at load into "
     "others, as are ONNX Runtime's own LayerNormalization and SimplifiedLayerNormalization, "
     "which it registers in this domain."},
    {"ai.onnx.preview", "ONNX's preview operators."},
    {"com.microsoft",
     "ONNX Runtime's contrib operators, which its graph optimizers write into `.onnx` and `.ort` "
     "files (FusedConv, SkipLayerNormalization, ...). Most are rewritten at load into plain "
     "operators, which the fusion passes then merge back into GPU kernels."},
    {"com.microsoft.nchwc",
     "ONNX Runtime's blocked-layout (NCHWc) operators, which its CPU optimizations write. "
     "vkserve keeps their values in NCHW of the padded channel count and lays the weights "
     "back out to OIHW; the block size (8 or 16) is told from the shapes and weights, else "
     "taken as ONNX Runtime would pick it on this host."},
    {"vkserve",
     "vkserve's own operators, written by its load-time rewrites and never by exporters."},
};

}  // namespace

std::span<const OperatorNote> OperatorNotes() { return kOperatorNotes; }
std::span<const DomainNote> DomainNotes() { return kDomainNotes; }

}  // namespace vkserve::tools
