// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The Attention op's kernel choice in planning (runtime/kernels/attention/attention_choice.h)
// on this device, one model with a symbolic sequence length: a short
// sequence plans the fused kernel; a long one the GEMM lowering, unless its
// scores would pass the 256 MiB budget or the device's storage-buffer range
// (then the fused kernel, which keeps no scores); a pin overrides the rule,
// and a pinned lowering that cannot hold its scores fails planning with a
// clear error; a malformed pin fails the load. Outputs are checked by the
// attention_pick op cases; this test only plans (inspect's kernel line).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/kernels/attention/attention_choice.h"
#include "runtime/model.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve {
namespace {

using testing::GpuTest;

constexpr int64_t kHeads = 16, kHeadSize = 8;

// Y = Attention(Q, K, V), each float[1, 16, S, 8], S symbolic; `pin` sets
// vkserve_attention_kernel.
Graph AttentionGraph(std::optional<std::string> pin) {
  Graph g;
  g.opset_imports[""] = 23;
  TensorType type;
  type.dtype = DataType::kFloat;
  type.has_shape = true;
  type.shape = {Dim{1, "", ""}, Dim{kHeads, "", ""}, Dim{-1, "S", ""}, Dim{kHeadSize, "", ""}};
  for (const char* name : {"Q", "K", "V"}) g.inputs.push_back({name, type});
  g.outputs.push_back({"Y", type});
  Node n;
  n.name = "attention";
  n.op_type = "Attention";
  n.opset = 23;
  n.inputs = {"Q", "K", "V"};
  n.outputs = {"Y"};
  if (pin) {
    Attribute a;
    a.type = Attribute::Type::kString;
    a.s = *pin;
    n.attributes[kAttentionKernelAttr] = a;
  }
  g.nodes.push_back(std::move(n));
  return g;
}

class AttentionKernelTest : public GpuTest {
 protected:
  absl::StatusOr<std::shared_ptr<Model>> Load(std::optional<std::string> pin) {
    return Model::FromGraph(AttentionGraph(std::move(pin)),
                            {device_.get(), allocator_.get(), pipelines_.get()});
  }

  // The kernel inspect reports for the Attention at sequence length `s`.
  static absl::StatusOr<std::string> KernelAt(const Model& model, int64_t s) {
    const std::vector<int64_t> shape = {1, kHeads, s, kHeadSize};
    const std::vector<std::vector<int64_t>> shapes = {shape, shape, shape};
    absl::StatusOr<ModelReport> report = model.Inspect(&shapes);
    if (!report.ok()) return report.status();
    for (const NodeReport& n : report->nodes) {
      if (!n.kernel.empty()) return n.kernel;
    }
    return absl::NotFoundError("no node reports a kernel");
  }

  // True when the lowering's scores at length `s` fit this device.
  bool ScoresFit(int64_t s) const {
    const uint64_t bytes = static_cast<uint64_t>(kHeads) * s * s * sizeof(float);
    return bytes <= kAttentionScoresBudget && bytes <= device_->info().max_storage_buffer_range;
  }
};

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST_F(AttentionKernelTest, TheRuleChoosesPerSignature) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model, Load(std::nullopt));
  // 4 * 16 * 32^2 * 8 = 0.5 MFLOP: fused.
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::string kernel, KernelAt(*model, 32));
  EXPECT_TRUE(StartsWith(kernel, "fused flash-attention kernel")) << kernel;
  EXPECT_NE(kernel.find("(chosen at this shape)"), std::string::npos) << kernel;
  // s1024: 537 MFLOP, 64 MiB of scores: the lowering where the device's
  // storage range holds them.
  VKSERVE_ASSERT_OK_AND_ASSIGN(kernel, KernelAt(*model, 1024));
  EXPECT_TRUE(StartsWith(kernel, ScoresFit(1024) ? "unfused: GEMM" : "fused")) << kernel;
  // s2100: 269 MiB of scores, past the budget: fused.
  ASSERT_FALSE(ScoresFit(2100));
  VKSERVE_ASSERT_OK_AND_ASSIGN(kernel, KernelAt(*model, 2100));
  EXPECT_TRUE(StartsWith(kernel, "fused flash-attention kernel")) << kernel;
}

TEST_F(AttentionKernelTest, APinOverridesTheRule) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> fused, Load("fused"));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::string kernel, KernelAt(*fused, 1024));
  EXPECT_TRUE(StartsWith(kernel, "fused flash-attention kernel")) << kernel;
  EXPECT_NE(kernel.find("(pinned)"), std::string::npos) << kernel;
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> unfused, Load("unfused"));
  VKSERVE_ASSERT_OK_AND_ASSIGN(kernel, KernelAt(*unfused, 32));
  EXPECT_TRUE(StartsWith(kernel, "unfused: GEMM")) << kernel;
}

TEST_F(AttentionKernelTest, APinnedLoweringPastItsBudgetFailsPlanning) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model, Load("unfused"));
  const absl::StatusOr<std::string> kernel = KernelAt(*model, 2100);
  ASSERT_FALSE(kernel.ok()) << *kernel;
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kUnimplemented) << kernel.status();
  EXPECT_NE(kernel.status().message().find("bytes of scores"), std::string::npos)
      << kernel.status();
}

// A pin of the softmax in registers takes that form; two query blocks per
// subgroup exist only in it, and pinned without ":registers" the load says so.
TEST_F(AttentionKernelTest, ATensorCorePinNeedsTheSoftmaxItsRowsRunWith) {
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::shared_ptr<Model> model, Load("coopmat:2x32:registers"));
  VKSERVE_ASSERT_OK_AND_ASSIGN(std::string kernel, KernelAt(*model, 64));
  EXPECT_TRUE(StartsWith(kernel,
                         "coopmat flash-attention kernel, 32-row tiles of 32 keys, "
                         "softmax in registers"))
      << kernel;
  // The load plans its shapes, so it fails.
  const absl::StatusOr<std::shared_ptr<Model>> refused = Load("coopmat:2x64x32");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnimplemented) << refused.status();
  EXPECT_NE(refused.status().message().find("\":registers\""), std::string::npos)
      << refused.status();
}

TEST_F(AttentionKernelTest, AMalformedPinFailsTheLoad) {
  const absl::StatusOr<std::shared_ptr<Model>> model = Load("flash");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument) << model.status();
  EXPECT_NE(model.status().message().find(kAttentionKernelAttr), std::string::npos)
      << model.status();
}

}  // namespace
}  // namespace vkserve
