// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The ORT-format loader against ONNX Runtime's own writer: small models from
// make_ort_cases.py (python3-onnx) are converted to `.ort` by
// onnxruntime-node at optimization levels basic and all, and each must load
// into a Graph with the same inputs and outputs (names, types, fixed and
// symbolic dimensions, denotations) as the `.onnx` it came from, with the
// stored attributes and initializer bytes.
//
// Then the files are corrupted thousands of ways — truncated at many
// offsets, random bit flips, words replaced by huge lengths and offsets, a
// wrong identifier or version, a table shared by two references, node
// inputs rewired into a cycle — and every load must end in a clear Status
// (never a crash or a hang), allocating at most a small multiple of the
// file's size while it runs (a counting operator new below measures it).
#include "runtime/loaders/ort_loader.h"

#include <gmock/gmock.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "runtime/loaders/model_file.h"
#include "runtime/loaders/onnx_loader.h"
#include "runtime/loaders/ort_format_generated.h"

// Live heap bytes and their peak, for the allocation bound.
namespace {
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};

void* CountedAlloc(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  const int64_t live = g_live_bytes += static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak_bytes.load();
  while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void CountedFree(void* p) {
  if (p == nullptr) return;
  g_live_bytes -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}
}  // namespace

void* operator new(size_t n) { return CountedAlloc(n); }
void* operator new[](size_t n) { return CountedAlloc(n); }
void operator delete(void* p) noexcept { CountedFree(p); }
void operator delete[](void* p) noexcept { CountedFree(p); }
void operator delete(void* p, size_t) noexcept { CountedFree(p); }
void operator delete[](void* p, size_t) noexcept { CountedFree(p); }

namespace vkserve {
namespace {

namespace fs = std::filesystem;
namespace fbs = ::onnxruntime::fbs;
using ::testing::HasSubstr;

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const char* kModels[] = {"chain", "attributes", "subgraph"};
const char* kLevels[] = {"basic", "all"};

// The .onnx models and their .ort conversions, made once per binary.
struct Cases {
  fs::path dir;
  std::string error;
};

const Cases& GetCases() {
  static const Cases* cases = [] {
    auto* c = new Cases;
    c->dir = fs::temp_directory_path() / ("vkserve_ort_loader_test_" + std::to_string(getpid()));
    fs::remove_all(c->dir);
    fs::create_directories(c->dir);
    const std::string src = Env("VKSERVE_SOURCE_DIR", ".");
    std::vector<std::string> commands = {Env("VKSERVE_PYTHON", "/usr/bin/python3") + " " +
                                         Quote(src + "/tests/runtime/make_ort_cases.py") + " " +
                                         Quote(c->dir.string())};
    for (const char* m : kModels) {
      for (const char* level : kLevels) {
        commands.push_back(Env("NODE", "node") + " " + Quote(src + "/tests/reference/ort_run.js") +
                           " " + Quote((c->dir / (std::string(m) + ".onnx")).string()) +
                           " --convert-ort " +
                           Quote((c->dir / (std::string(m) + "_" + level + ".ort")).string()) +
                           " --level " + level);
      }
    }
    for (const std::string& command : commands) {
      if (std::system((command + " >/dev/null").c_str()) != 0) {
        c->error = "failed: " + command;
        break;
      }
    }
    std::atexit([] { fs::remove_all(GetCases().dir); });
    return c;
  }();
  return *cases;
}

fs::path OrtPath(const std::string& model, const std::string& level) {
  return GetCases().dir / (model + "_" + level + ".ort");
}

void ExpectSameValues(const std::vector<ValueInfo>& got, const std::vector<ValueInfo>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(want[i].name);
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].type.dtype, want[i].type.dtype);
    EXPECT_EQ(got[i].type.has_shape, want[i].type.has_shape);
    ASSERT_EQ(got[i].type.shape.size(), want[i].type.shape.size());
    for (size_t d = 0; d < got[i].type.shape.size(); ++d) {
      EXPECT_EQ(got[i].type.shape[d].value, want[i].type.shape[d].value) << "axis " << d;
      EXPECT_EQ(got[i].type.shape[d].param, want[i].type.shape[d].param) << "axis " << d;
      EXPECT_EQ(got[i].type.shape[d].denotation, want[i].type.shape[d].denotation) << "axis " << d;
    }
  }
}

class OrtLoaderTest : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {
 protected:
  void SetUp() override { ASSERT_TRUE(GetCases().error.empty()) << GetCases().error; }
};

TEST_P(OrtLoaderTest, SameInterfaceAsTheOnnxItCameFrom) {
  const auto [model, level] = GetParam();
  auto onnx = LoadOnnxModel((GetCases().dir / (std::string(model) + ".onnx")).string());
  ASSERT_TRUE(onnx.ok()) << onnx.status();
  auto ort = LoadOrtModel(OrtPath(model, level).string());
  ASSERT_TRUE(ort.ok()) << ort.status();
  EXPECT_EQ(ort->format, "ort");
  EXPECT_TRUE(IsSupportedOrtFormatVersion(ort->ort_format_version)) << ort->ort_format_version;
  ExpectSameValues(ort->inputs, onnx->inputs);
  ExpectSameValues(ort->outputs, onnx->outputs);
  EXPECT_EQ(ort->opset_imports.at(""), onnx->opset_imports.at(""));
  EXPECT_FALSE(ort->nodes.empty());
  for (const Node& n : ort->nodes) {
    EXPECT_GT(n.since_version, 0) << n.name;
    EXPECT_TRUE(ort->opset_imports.count(n.domain)) << n.name << " in " << n.domain;
  }
  // The content, not the extension, picks the loader.
  const fs::path renamed = GetCases().dir / (std::string(model) + "_" + level + "_renamed.onnx");
  fs::copy_file(OrtPath(model, level), renamed, fs::copy_options::overwrite_existing);
  auto by_content = LoadModelFile(renamed.string());
  ASSERT_TRUE(by_content.ok()) << by_content.status();
  EXPECT_EQ(by_content->format, "ort");
}

INSTANTIATE_TEST_SUITE_P(Models, OrtLoaderTest,
                         ::testing::Combine(::testing::ValuesIn(kModels),
                                            ::testing::ValuesIn(kLevels)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" +
                                  std::get<1>(info.param);
                         });

TEST(OrtLoaderContentTest, AttributesAndInitializersAsStored) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  auto onnx = LoadOnnxModel((GetCases().dir / "attributes.onnx").string());
  auto ort = LoadOrtModel(OrtPath("attributes", "basic").string());
  ASSERT_TRUE(onnx.ok() && ort.ok()) << onnx.status() << ort.status();
  const Node* conv = nullptr;
  const Node* leaky = nullptr;
  const Node* resize = nullptr;
  for (const Node& n : ort->nodes) {
    if (n.op_type == "Conv") conv = &n;
    if (n.op_type == "LeakyRelu") leaky = &n;
    if (n.op_type == "Resize") resize = &n;
  }
  ASSERT_TRUE(conv && leaky && resize);
  EXPECT_EQ(conv->GetInts("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(conv->GetInts("kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_FLOAT_EQ(leaky->GetFloat("alpha", 0), 0.25f);
  EXPECT_EQ(resize->GetString("mode", ""), "nearest");
  const HostTensor& want = onnx->initializers.at("W");
  const HostTensor& got = ort->initializers.at(conv->inputs[1]);
  EXPECT_EQ(got.dtype, DataType::kFloat);
  EXPECT_EQ(got.shape, want.shape);
  EXPECT_EQ(got.data, want.data);
  // Loaded from a file, a weight of 432 float bytes is the file's own bytes;
  // loaded from caller-owned bytes, a copy.
  EXPECT_TRUE(got.data.is_view());
  auto copied = LoadOrtModelFromBytes(ReadBytes(OrtPath("attributes", "basic")), "attributes.ort");
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_FALSE(copied->initializers.at(conv->inputs[1]).data.is_view());
  EXPECT_EQ(copied->initializers.at(conv->inputs[1]).data, want.data);
}

TEST(TensorBytesTest, WritingAViewCopiesItFirst) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::vector<uint8_t>{1, 2, 3, 4});
  TensorBytes view = TensorBytes::View(owner, owner->data() + 1, 2);
  const TensorBytes& read = view;
  EXPECT_TRUE(view.is_view());
  EXPECT_EQ(read[0], 2);
  EXPECT_EQ(read.ToVector(), (std::vector<uint8_t>{2, 3}));
  view[1] = 9;  // a write: the view becomes an owned copy
  EXPECT_FALSE(view.is_view());
  EXPECT_EQ(view.ToVector(), (std::vector<uint8_t>{2, 9}));
  EXPECT_EQ(*owner, (std::vector<uint8_t>{1, 2, 3, 4}));
  TensorBytes again = TensorBytes::View(owner, owner->data(), 4);
  again.assign(again.begin() + 2, again.begin() + 4);  // from its own bytes
  EXPECT_EQ(again.ToVector(), (std::vector<uint8_t>{3, 4}));
}

TEST(OrtLoaderContentTest, SubgraphsReadOuterValues) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  auto ort = LoadOrtModel(OrtPath("subgraph", "basic").string());
  ASSERT_TRUE(ort.ok()) << ort.status();
  ASSERT_EQ(ort->nodes.size(), 1u);
  const Node& branch = ort->nodes[0];
  ASSERT_EQ(branch.op_type, "If");
  for (const char* name : {"then_branch", "else_branch"}) {
    const Attribute* a = branch.FindAttribute(name);
    ASSERT_NE(a, nullptr) << name;
    ASSERT_EQ(a->type, Attribute::Type::kGraph);
    ASSERT_EQ(a->graphs.size(), 1u);
    ASSERT_EQ(a->graphs[0]->nodes.size(), 1u);
    EXPECT_EQ(a->graphs[0]->nodes[0].inputs[0], "x");  // the outer graph's input
  }
}

// ---- Corrupted files -------------------------------------------------------

// Byte offset of a flatbuffer object inside `bytes`.
size_t OffsetOf(const std::string& bytes, const void* p) {
  return static_cast<size_t>(static_cast<const char*>(p) - bytes.data());
}

void PutU32(std::string* bytes, size_t at, uint32_t v) { std::memcpy(bytes->data() + at, &v, 4); }

const fbs::Graph* GraphOf(const std::string& bytes) {
  return fbs::GetInferenceSession(bytes.data())->model()->graph();
}

struct LoadOutcome {
  absl::Status status;
  int64_t peak_bytes = 0;  // above the live bytes before the load
};

LoadOutcome LoadCounted(const std::string& bytes) {
  const int64_t before = g_live_bytes.load();
  g_peak_bytes = before;
  LoadOutcome out;
  out.status = LoadOrtModelFromBytes(bytes, "corrupt.ort").status();
  out.peak_bytes = g_peak_bytes.load() - before;
  return out;
}

// A load of damaged bytes: any clear error, or success when the damage hit
// nothing that matters (a doc string, an unused field); never a crash, and
// memory bounded by the file.
void ExpectContained(const std::string& bytes, const std::string& what) {
  const LoadOutcome r = LoadCounted(bytes);
  const int64_t bound = 8 * static_cast<int64_t>(bytes.size()) + (int64_t{2} << 20);
  EXPECT_LE(r.peak_bytes, bound) << what;
  if (r.status.ok()) return;
  EXPECT_THAT(r.status.code(),
              ::testing::AnyOf(absl::StatusCode::kInvalidArgument, absl::StatusCode::kUnimplemented,
                               absl::StatusCode::kResourceExhausted))
      << what << ": " << r.status;
  EXPECT_THAT(std::string(r.status.message()), HasSubstr("corrupt.ort: ")) << what;
}

class OrtCorruptionTest : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
    bytes_ = ReadBytes(OrtPath(std::get<0>(GetParam()), std::get<1>(GetParam())));
    ASSERT_GT(bytes_.size(), 64u);
    ASSERT_TRUE(LoadOrtModelFromBytes(bytes_, "corrupt.ort").ok());
  }
  std::string bytes_;
};

TEST_P(OrtCorruptionTest, TruncatedAnywhere) {
  for (size_t n = 0; n < bytes_.size(); n += 1 + n / 64) {
    const LoadOutcome r = LoadCounted(bytes_.substr(0, n));
    EXPECT_FALSE(r.status.ok()) << "truncated to " << n;
    EXPECT_TRUE(absl::IsInvalidArgument(r.status)) << n << ": " << r.status;
  }
}

TEST_P(OrtCorruptionTest, RandomBitFlipsAndHugeWords) {
  std::mt19937 rng(2026);
  std::uniform_int_distribution<size_t> pos(0, bytes_.size() - 1);
  const uint32_t huge[] = {0x7fffffffu, 0xfffffff0u, 0x80000000u,
                           static_cast<uint32_t>(bytes_.size()),
                           static_cast<uint32_t>(bytes_.size()) - 4};
  for (int i = 0; i < 600; ++i) {
    std::string damaged = bytes_;
    const int flips = 1 + i % 4;
    for (int f = 0; f < flips; ++f) damaged[pos(rng)] ^= static_cast<char>(1u << (rng() % 8));
    ExpectContained(damaged, "bit flips #" + std::to_string(i));
  }
  for (int i = 0; i < 600; ++i) {
    std::string damaged = bytes_;
    const size_t at = (pos(rng) & ~size_t{3}) % (bytes_.size() - 4);
    PutU32(&damaged, at, huge[i % std::size(huge)]);
    ExpectContained(damaged, "huge word at " + std::to_string(at));
  }
}

TEST_P(OrtCorruptionTest, HugeVectorLengthsAndOutsideOffsets) {
  const fbs::Graph* g = GraphOf(bytes_);
  std::vector<size_t> lengths;  // offsets of vector length fields
  lengths.push_back(OffsetOf(bytes_, g->nodes()));
  if (g->initializers() && g->initializers()->size() > 0) {
    lengths.push_back(OffsetOf(bytes_, g->initializers()));
    const fbs::Tensor* t = g->initializers()->Get(0);
    if (t->raw_data()) lengths.push_back(OffsetOf(bytes_, t->raw_data()));
    if (t->dims()) lengths.push_back(OffsetOf(bytes_, t->dims()));
  }
  for (const fbs::Node* n : *g->nodes()) {
    if (n->inputs()) lengths.push_back(OffsetOf(bytes_, n->inputs()));
    if (n->attributes()) lengths.push_back(OffsetOf(bytes_, n->attributes()));
  }
  for (size_t at : lengths) {
    for (uint32_t v : {0x7fffffffu, 0x3fffffffu, static_cast<uint32_t>(bytes_.size())}) {
      std::string damaged = bytes_;
      PutU32(&damaged, at, v);
      const LoadOutcome r = LoadCounted(damaged);
      EXPECT_TRUE(absl::IsInvalidArgument(r.status))
          << "length " << v << " at " << at << ": " << r.status;
    }
  }
  // The root offset and the first element offset of the node vector, pointed
  // past the end of the buffer.
  for (size_t at : {size_t{0}, OffsetOf(bytes_, g->nodes()) + 4}) {
    std::string damaged = bytes_;
    PutU32(&damaged, at, static_cast<uint32_t>(bytes_.size()) * 2);
    EXPECT_TRUE(absl::IsInvalidArgument(LoadCounted(damaged).status)) << "offset at " << at;
  }
}

TEST_P(OrtCorruptionTest, WrongIdentifierAndVersions) {
  std::string damaged = bytes_;
  damaged[5] = 'X';
  auto r = LoadOrtModelFromBytes(damaged, "corrupt.ort");
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("ORTM"));
  const size_t version = OffsetOf(bytes_, fbs::GetInferenceSession(bytes_.data())->ort_version());
  for (char v : {'0', '7', '9'}) {
    damaged = bytes_;
    damaged[version + 4] = v;  // the version string's one character
    r = LoadOrtModelFromBytes(damaged, "corrupt.ort");
    EXPECT_TRUE(absl::IsUnimplemented(r.status())) << r.status();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(std::string("version '") + v + "'"));
  }
}

TEST_P(OrtCorruptionTest, SharedTablesAreRefused) {
  const fbs::Graph* g = GraphOf(bytes_);
  if (g->nodes()->size() < 2) GTEST_SKIP() << "one node";
  // Point the second element of the node vector at the first node's table.
  const size_t first = OffsetOf(bytes_, g->nodes()) + 4;
  const size_t second = first + 4;
  const size_t first_table = OffsetOf(bytes_, g->nodes()->Get(0));
  std::string damaged = bytes_;
  PutU32(&damaged, second, static_cast<uint32_t>(first_table - second));
  auto r = LoadOrtModelFromBytes(damaged, "corrupt.ort");
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("shares its table"));
}

INSTANTIATE_TEST_SUITE_P(Models, OrtCorruptionTest,
                         ::testing::Combine(::testing::ValuesIn(kModels),
                                            ::testing::ValuesIn(kLevels)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) + "_" +
                                  std::get<1>(info.param);
                         });

// The chain's value names all have the same length; rewiring one node's input
// to a later node's output must be reported as a cycle naming the nodes.
TEST(OrtCycleTest, RewiredInputIsACycle) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  const std::string bytes = ReadBytes(OrtPath("chain", "basic"));
  const fbs::Graph* g = GraphOf(bytes);
  const fbs::Node* early = nullptr;
  const fbs::Node* late = nullptr;
  for (const fbs::Node* n : *g->nodes()) {
    if (n->name()->str() == "n04") early = n;
    if (n->name()->str() == "n09") late = n;
  }
  ASSERT_TRUE(early && late);
  // n04's first input offset now points at n09's first output string.
  const size_t slot = OffsetOf(bytes, early->inputs()) + 4;
  const size_t target = OffsetOf(bytes, late->outputs()->Get(0));
  std::string damaged = bytes;
  PutU32(&damaged, slot, static_cast<uint32_t>(target - slot));
  auto r = LoadOrtModelFromBytes(damaged, "corrupt.ort");
  ASSERT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("is part of a cycle"));
}

// ORT also stores node_edges, which repeat what the nodes' value names say.
// vkserve orders nodes by the value names alone, so edges rewired into a
// cycle or pointing at nodes that do not exist change nothing.
TEST(OrtCycleTest, NodeEdgesAreNotTrusted) {
  ASSERT_TRUE(GetCases().error.empty()) << GetCases().error;
  const std::string bytes = ReadBytes(OrtPath("chain", "basic"));
  const fbs::Graph* g = GraphOf(bytes);
  ASSERT_NE(g->node_edges(), nullptr);
  std::string damaged = bytes;
  int rewired = 0;
  for (const fbs::NodeEdge* e : *g->node_edges()) {
    for (const auto* edges : {e->input_edges(), e->output_edges()}) {
      if (edges == nullptr) continue;
      for (uint32_t k = 0; k < edges->size(); ++k) {
        const size_t at = OffsetOf(bytes, edges->Get(k));  // EdgeEnd.node_index
        PutU32(&damaged, at, k % 2 == 0 ? e->node_index() : 0xfffffff0u);
        ++rewired;
      }
    }
  }
  ASSERT_GT(rewired, 0);
  auto intact = LoadOrtModelFromBytes(bytes, "chain.ort");
  auto r = LoadOrtModelFromBytes(damaged, "corrupt.ort");
  ASSERT_TRUE(intact.ok() && r.ok()) << r.status();
  ASSERT_EQ(r->nodes.size(), intact->nodes.size());
  for (size_t i = 0; i < r->nodes.size(); ++i) EXPECT_EQ(r->nodes[i].name, intact->nodes[i].name);
}

}  // namespace
}  // namespace vkserve
