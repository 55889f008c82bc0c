// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Tensor comparison for the reference tests (op cases, ONNX conformance,
// models): dtype and shape must match exactly; floating-point values must
// satisfy |got - want| <= atol + rtol * |want| (NaN matches NaN, an infinity
// only itself); integers and bools must be equal. Failures name the worst
// element. Stateless; thread-safe.
#ifndef VKSERVE_TESTS_TESTING_TENSOR_COMPARE_H_
#define VKSERVE_TESTS_TESTING_TENSOR_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace vkserve::testing {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// "" when `got` matches `want`, else a message: the dtype or shape mismatch,
// or how many elements differ and the worst one (largest error relative to
// what is allowed) with its index, both values, the error and the bound.
std::string CompareTensors(const HostTensor& got, const HostTensor& want, Tolerance tol);

// "" when dtype, shape and every byte are equal, else the first difference.
std::string CompareBitwise(const HostTensor& got, const HostTensor& want);

// Element i as a double, for every numeric dtype (float16 and bfloat16
// included). REQUIRES: i < t.num_elements().
double ElementAsDouble(const HostTensor& t, int64_t i);

// max |got - want| over the elements finite in both; 0 when the dtypes or
// shapes differ.
double MaxAbsDiff(const HostTensor& got, const HostTensor& want);

// max |element| over the finite elements; 0 for an empty or non-float tensor.
double MaxAbsFinite(const HostTensor& t);

// "[1,3,224,224]".
std::string ShapeString(const std::vector<int64_t>& shape);

// "float[1,3,224,224]".
std::string TensorTypeString(const HostTensor& t);

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_TESTING_TENSOR_COMPARE_H_
