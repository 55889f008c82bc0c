// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins]
// triangular filter bank that maps a one-sided spectrum onto the mel scale.
// Every input is a scalar read on the host when the model is planned, so
// the matrix is computed there once per plan (as ONNX defines it: band
// edges spaced evenly in mel, 2595 log10(1 + f / 700), over
// num_mel_bins + 2 steps, each edge mapped to the spectrogram bin
// floor((dft_length + 1) f / sample_rate)) and uploaded with the plan's
// constants; no kernel runs. float output only.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/host_fold.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

// Plans hold the matrix in host memory and a constant buffer: bounded.
constexpr int64_t kMelWeightMatrixMaxElements = int64_t{1} << 24;

struct MelInputs {
  int64_t mel_bins = 0, dft_length = 0, sample_rate = 0;
  double lower_hz = 0, upper_hz = 0;
};

absl::StatusOr<MelInputs> ReadInputs(const InferContext& ctx) {
  std::vector<const HostTensor*> v;
  for (size_t i = 0; i < 5; ++i) {
    ASSIGN_OR_RETURN(const HostTensor* t, RequireHostInput(ctx, i));
    if (t->num_elements() != 1)
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " must be a scalar"));
    v.push_back(t);
  }
  MelInputs in{ElementAsInt(*v[0], 0), ElementAsInt(*v[1], 0), ElementAsInt(*v[2], 0),
               v[3]->GetDouble(0), v[4]->GetDouble(0)};
  if (in.mel_bins < 1 || in.dft_length < 1 || in.sample_rate < 1) {
    return absl::InvalidArgumentError("num_mel_bins, dft_length and sample_rate must be positive");
  }
  if (!(in.lower_hz >= 0 && in.lower_hz <= in.upper_hz && std::isfinite(in.upper_hz))) {
    return absl::InvalidArgumentError(
        "the edges must satisfy 0 <= lower_edge_hertz <= upper_edge_hertz");
  }
  if ((in.dft_length / 2 + 1) * in.mel_bins > kMelWeightMatrixMaxElements) {
    return absl::InvalidArgumentError(absl::StrCat("a ", in.dft_length / 2 + 1, " x ", in.mel_bins,
                                                   " matrix is larger than vkserve plans (",
                                                   kMelWeightMatrixMaxElements, " elements)"));
  }
  return in;
}

absl::StatusOr<HostTensor> MelMatrix(const MelInputs& in) {
  const int64_t spectrum = in.dft_length / 2 + 1, edges = in.mel_bins + 2;
  // The edges' mels in float, as the ONNX reference computes them from
  // float inputs; the rest in double.
  const float low_mel = 2595.0f * std::log10(1.0f + static_cast<float>(in.lower_hz) / 700.0f);
  const float high_mel = 2595.0f * std::log10(1.0f + static_cast<float>(in.upper_hz) / 700.0f);
  const double mel_step = static_cast<double>(high_mel - low_mel) / static_cast<double>(edges);
  std::vector<int64_t> bin(edges);
  for (int64_t e = 0; e < edges; ++e) {
    const double hz = 700.0 * (std::pow(10.0, (e * mel_step + low_mel) / 2595.0) - 1.0);
    bin[e] = static_cast<int64_t>(std::floor(static_cast<double>(in.dft_length + 1) * hz /
                                             static_cast<double>(in.sample_rate)));
    if (bin[e] < 0 || bin[e] >= spectrum) {
      return absl::InvalidArgumentError(absl::StrCat(
          "upper_edge_hertz ", in.upper_hz, " lies past the spectrum's last bin (sample_rate ",
          in.sample_rate, ", dft_length ", in.dft_length, ")"));
    }
  }
  std::vector<float> w(static_cast<size_t>(spectrum * in.mel_bins), 0.0f);
  auto at = [&](int64_t j, int64_t i) -> float& {
    return w[static_cast<size_t>(j * in.mel_bins + i)];
  };
  for (int64_t i = 0; i < in.mel_bins; ++i) {
    const int64_t left = bin[i], center = bin[i + 1], right = bin[i + 2];
    if (center == left) {
      at(center, i) = 1.0f;
    } else {
      for (int64_t j = left; j <= center; ++j) {
        at(j, i) =
            static_cast<float>(static_cast<double>(j - left) / static_cast<double>(center - left));
      }
    }
    for (int64_t j = center; j < right; ++j) {
      at(j, i) =
          static_cast<float>(static_cast<double>(right - j) / static_cast<double>(right - center));
    }
  }
  return HostTensor::FromFloats(w, {spectrum, in.mel_bins});
}

class MelWeightMatrixOp : public Op {
 public:
  bool IsHostInput(const Node& /*node*/, size_t /*input_index*/) const override { return true; }

  absl::Status Validate(const Node& node) const override {
    RETURN_IF_ERROR(CheckAttributeType(node, "output_datatype", Attribute::Type::kInt));
    if (node.GetInt("output_datatype", 1) != 1) {
      return absl::UnimplementedError("MelWeightMatrix output_datatype other than float");
    }
    return absl::OkStatus();
  }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const MelInputs in, ReadInputs(ctx));
    ASSIGN_OR_RETURN(HostTensor m, MelMatrix(in));
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = m.shape;
    ctx.outputs[0].value = Share(std::move(m));
    return absl::OkStatus();
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "MelWeightMatrix", 17, 27, MelWeightMatrixOp);

}  // namespace vkserve
