// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// TfIdfVectorizer (opset 9) over int32 or int64 tokens, [C] or [N, C]:
// counts the n-grams of the pool (pool_int64s, grouped by length through
// ngram_counts) that occur in each row — lengths min_gram_length to
// max_gram_length, tokens up to max_skip_count apart — into the output slot
// ngram_indexes gives each, as TF (the count), IDF (the gram's weight when
// it occurs) or TFIDF (count × weight). The pool and the slot tables are
// built on the host and uploaded with the plan; the counting runs on the GPU
// (shaders/ops/tfidf_vectorizer.comp), one invocation per row and slot.
// String pools are not supported (vkserve has no string tensors).
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/dispatch_kernel.h"
#include "runtime/op/op_registry.h"
#include "runtime/op/op_util.h"

namespace vkserve {
namespace {

constexpr uint32_t kTfidfVectorizerLocal = 64;
// The output has rows x slots floats and the slot table a word per slot.
constexpr int64_t kTfidfVectorizerMaxSlots = int64_t{1} << 22;

// The pool as the attributes state it, checked.
struct Pool {
  std::vector<int64_t> n;       // per gram: its length
  std::vector<int64_t> offset;  // per gram: its first token in `tokens`
  std::vector<int64_t> slot;    // per gram: its output slot
  std::vector<float> weight;    // per gram (1 without weights)
  std::vector<int64_t> tokens;
  int64_t slots = 0;
  uint32_t mode = 0;  // 0 TF, 1 IDF, 2 TFIDF
};

absl::StatusOr<Pool> PoolOf(const Node& node) {
  if (node.FindAttribute("pool_strings") != nullptr) {
    return absl::UnimplementedError("TfIdfVectorizer over strings (vkserve has no string tensors)");
  }
  Pool pool;
  const std::string mode = node.GetString("mode", "");
  if (mode == "TF")
    pool.mode = 0;
  else if (mode == "IDF")
    pool.mode = 1;
  else if (mode == "TFIDF")
    pool.mode = 2;
  else
    return absl::InvalidArgumentError(
        absl::StrCat("mode must be TF, IDF or TFIDF, not \"", mode.substr(0, 16), "\""));
  pool.tokens = node.GetInts("pool_int64s");
  const std::vector<int64_t> counts = node.GetInts("ngram_counts");
  const std::vector<int64_t> indexes = node.GetInts("ngram_indexes");
  const std::vector<float> weights = node.GetFloats("weights");
  const int64_t size = static_cast<int64_t>(pool.tokens.size());
  for (size_t level = 0; level < counts.size(); ++level) {
    const int64_t begin = counts[level];
    const int64_t end = level + 1 < counts.size() ? counts[level + 1] : size;
    const int64_t n = static_cast<int64_t>(level) + 1;
    if (begin < 0 || end < begin || end > size || (end - begin) % n != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("ngram_counts does not split the pool into ", n, "-grams"));
    }
    for (int64_t at = begin; at < end; at += n) {
      pool.n.push_back(n);
      pool.offset.push_back(at);
    }
  }
  if (indexes.size() != pool.n.size() || (!weights.empty() && weights.size() != pool.n.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("the pool holds ", pool.n.size(), " n-grams but ngram_indexes has ",
                     indexes.size(), " and weights ", weights.size()));
  }
  for (size_t g = 0; g < indexes.size(); ++g) {
    if (indexes[g] < 0 || indexes[g] >= kTfidfVectorizerMaxSlots) {
      return absl::InvalidArgumentError(
          absl::StrCat("ngram_indexes value ", indexes[g], " out of range"));
    }
    pool.slots = std::max(pool.slots, indexes[g] + 1);
  }
  pool.slot = indexes;
  pool.weight = weights.empty() ? std::vector<float>(pool.n.size(), 1.0f) : weights;
  const int64_t min_n = node.GetInt("min_gram_length", 1),
                max_n = node.GetInt("max_gram_length", 1);
  if (min_n < 1 || max_n < min_n || node.GetInt("max_skip_count", 0) < 0) {
    return absl::InvalidArgumentError(
        "need 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0");
  }
  return pool;
}

// slot_start, gram ids, the gram table and the pool, as TfIdfVectorizer's
// shader reads them; `*grams_at` and `*pool_at` are where the last two start.
std::vector<uint32_t> Tables(const Pool& pool, int64_t min_n, int64_t max_n, uint32_t* grams_at,
                             uint32_t* pool_at) {
  // slot_start as a prefix sum of the grams each slot takes, then the gram
  // ids in slot order.
  const size_t slots = static_cast<size_t>(pool.slots);
  std::vector<uint32_t> t(slots + 1, 0);
  auto counted = [&](size_t g) { return pool.n[g] >= min_n && pool.n[g] <= max_n; };
  for (size_t g = 0; g < pool.n.size(); ++g) {
    if (counted(g)) ++t[static_cast<size_t>(pool.slot[g]) + 1];
  }
  for (size_t s = 0; s < slots; ++s) t[s + 1] += t[s];
  std::vector<uint32_t> ids(t[slots]);
  std::vector<uint32_t> next(t.begin(), t.end() - 1);
  for (size_t g = 0; g < pool.n.size(); ++g) {
    if (counted(g)) ids[next[static_cast<size_t>(pool.slot[g])]++] = static_cast<uint32_t>(g);
  }
  t.insert(t.end(), ids.begin(), ids.end());
  *grams_at = static_cast<uint32_t>(t.size());
  for (size_t g = 0; g < pool.n.size(); ++g) {
    uint32_t weight = 0;
    std::memcpy(&weight, &pool.weight[g], 4);
    t.insert(t.end(),
             {static_cast<uint32_t>(pool.n[g]), static_cast<uint32_t>(pool.offset[g]), weight, 0u});
  }
  *pool_at = static_cast<uint32_t>(t.size());
  for (int64_t token : pool.tokens) {
    const uint64_t bits = static_cast<uint64_t>(token);
    t.push_back(static_cast<uint32_t>(bits));
    t.push_back(static_cast<uint32_t>(bits >> 32));
  }
  return t;
}

class TfIdfVectorizerOp : public Op {
 public:
  absl::Status Validate(const Node& node) const override { return PoolOf(node).status(); }

  absl::Status Infer(InferContext& ctx) const override {
    ASSIGN_OR_RETURN(const TensorDesc* x, RequireInput(ctx, 0));
    RETURN_IF_ERROR(
        CheckDataType(x->dtype, {DataType::kInt32, DataType::kInt64}, "TfIdfVectorizer input"));
    if (x->shape.empty() || x->shape.size() > 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("TfIdfVectorizer input ", ShapeString(x->shape), " must be [C] or [N, C]"));
    }
    ASSIGN_OR_RETURN(const Pool pool, PoolOf(ctx.node));
    ctx.outputs[0].dtype = DataType::kFloat;
    ctx.outputs[0].shape = x->shape.size() == 1 ? std::vector<int64_t>{pool.slots}
                                                : std::vector<int64_t>{x->shape[0], pool.slots};
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Kernel>> CreateKernel(KernelContext& ctx) const override {
    const TensorDesc& x = *ctx.input(0);
    ASSIGN_OR_RETURN(const Pool pool, PoolOf(ctx.node()));
    const int64_t rows = x.shape.size() == 1 ? 1 : x.shape[0];
    const int64_t len = x.shape.back();
    const uint64_t count = static_cast<uint64_t>(rows * pool.slots);
    if (count == 0) return MakeEmptyKernel();
    if (count >= (uint64_t{1} << 31) || x.num_elements() >= (int64_t{1} << 30)) {
      return absl::UnimplementedError("TfIdfVectorizer: tensors too large");
    }
    uint32_t grams_at = 0, pool_at = 0;
    const std::vector<uint32_t> tables =
        Tables(pool, ctx.node().GetInt("min_gram_length", 1),
               ctx.node().GetInt("max_gram_length", 1), &grams_at, &pool_at);
    std::vector<uint8_t> bytes(tables.size() * 4);
    std::memcpy(bytes.data(), tables.data(), bytes.size());
    DispatchStep step;
    const int64_t max_skip = ctx.node().GetInt("max_skip_count", 0);
    for (uint64_t v : {count, static_cast<uint64_t>(pool.slots), static_cast<uint64_t>(len),
                       static_cast<uint64_t>(std::min<int64_t>(max_skip, len)), uint64_t{grams_at},
                       uint64_t{pool_at}}) {
      step.push.U32(static_cast<uint32_t>(v));
    }
    ASSIGN_OR_RETURN(
        step.pipeline,
        ctx.GetPipeline("ops/tfidf_vectorizer", 3, step.push.size(), {kTfidfVectorizerLocal, 1, 1},
                        {x.dtype == DataType::kInt64 ? 1u : 0u, pool.mode}));
    step.bindings = {BufferRef::Input(0), BufferRef::Constant(ctx.AddConstant(std::move(bytes))),
                     BufferRef::Output(0)};
    step.groups = GroupsFor(count, kTfidfVectorizerLocal, ctx.device());
    return MakeDispatchKernel(std::move(step));
  }
};

}  // namespace

VKSERVE_REGISTER_OP("", "TfIdfVectorizer", 9, 27, TfIdfVectorizerOp);

}  // namespace vkserve
