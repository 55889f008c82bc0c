// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The ONNX loader against independent facts:
//  - the four model fixtures in tests/data/models (squeezenet1_1,
//    mobilenet_v2, bert_tiny, gpt2_tiny): inputs, outputs, node/initializer counts, opsets and a
//    weight, as reported by Debian's python3-onnx (hard-coded below);
//  - small models written at test time by tests/runtime/make_loader_cases.py
//    with the onnx Python package: external data, anonymous and unsorted
//    nodes, subgraphs, every attribute kind and element type (compared with
//    numpy's bytes), and malformed models that must fail with a Status naming
//    the file and the item;
//  - the ONNX node cases' TensorProto .pb files (tests/data/onnx-node-tests),
//    compared with numpy_helper.to_array;
//  - thousands of truncated, mutated (bytes, and fields via make_loader_cases.py)
//    and random inputs, which must only ever produce a Status (run under
//    -DVKSERVE_SANITIZE=ON to check for UB too).
// Needs no GPU.
#include "runtime/loaders/onnx_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "runtime/loaders/npy.h"
#include "tests/testing/test_data.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}
using testing::ModelsDir;
using testing::OnnxNodeTestsDir;
using testing::SourceDir;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs make_loader_cases.py once per binary into a temporary directory.
class LoaderCases : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() /
                        ("vkserve_loader_test_" + std::to_string(getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    const std::string cmd = Env("VKSERVE_PYTHON", "/usr/bin/python3") + " '" + SourceDir() +
                            "/tests/runtime/make_loader_cases.py' '" + dir_->string() + "' '" +
                            OnnxNodeTestsDir() + "' > '" + dir_->string() + "/log.txt' 2>&1";
    ok_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }
  void SetUp() override {
    ASSERT_TRUE(ok_) << "make_loader_cases.py failed:\n" << ReadAll(*dir_ / "log.txt");
  }
  static std::string Case(const std::string& name) { return (*dir_ / name).string(); }

  static fs::path* dir_;
  static bool ok_;
};
fs::path* LoaderCases::dir_ = nullptr;
bool LoaderCases::ok_ = false;

// Every node input is a graph input, an initializer or an earlier node's
// output (the loader's topological order), or an outer-scope name.
void ExpectTopologicallySorted(const Graph& g, std::set<std::string> defined = {}) {
  for (const ValueInfo& in : g.inputs) defined.insert(in.name);
  for (const auto& [name, t] : g.initializers) defined.insert(name);
  for (const Node& n : g.nodes) {
    for (const std::string& in : n.inputs) {
      if (!in.empty()) {
        EXPECT_TRUE(defined.count(in)) << n.name << " reads " << in << " before it is made";
      }
    }
    for (const std::string& out : n.outputs) defined.insert(out);
  }
}

// ---- the model fixtures ---------------------------------------------------------

struct DimFact {
  int64_t value;      // -1: symbolic
  const char* param;  // when symbolic
};
struct ValueFact {
  const char* name;
  DataType dtype;
  std::vector<DimFact> dims;
};
struct ModelFact {
  const char* file;
  int64_t ir_version;
  int64_t opset;
  const char* producer;
  std::vector<ValueFact> inputs;
  std::vector<ValueFact> outputs;
  size_t nodes;
  size_t initializers;
  const char* first_node;
  const char* first_initializer;
  std::vector<int64_t> first_initializer_dims;
  double first_initializer_sum;
};

// From /usr/bin/python3 + onnx 1.12: onnx.load(path); graph.input minus
// initializers, graph.output, len(graph.node), len(graph.initializer), and
// numpy_helper.to_array(graph.initializer[0]).astype(float64).sum().
const ModelFact kModels[] = {
    {"squeezenet1_1.onnx",
     7,
     13,
     "pytorch",
     {{"input", DataType::kFloat, {{-1, "N"}, {3, ""}, {224, ""}, {224, ""}}}},
     {{"logits", DataType::kFloat, {{-1, "N"}, {1000, ""}}}},
     83,
     34,
     "Identity_0",
     "features.0.weight",
     {64, 3, 3, 3},
     -1.9712549721007235},
    {"mobilenet_v2.onnx",
     10,
     18,
     "pytorch",
     {{"input", DataType::kFloat, {{1, ""}, {3, ""}, {224, ""}, {224, ""}}}},
     {{"logits", DataType::kFloat, {{1, ""}, {1000, ""}}}},
     100,
     57,
     "node_Conv_810",
     "features.0.0.weight",
     {32, 3, 3, 3},
     2.3009163504757453},
    {"bert_tiny.onnx",
     8,
     17,
     "pytorch",
     {{"input_ids", DataType::kInt64, {{-1, "N"}, {-1, "S"}}},
      {"attention_mask", DataType::kInt64, {{-1, "N"}, {-1, "S"}}}},
     {{"last_hidden_state", DataType::kFloat, {{-1, "N"}, {-1, "S"}, {128, ""}}}},
     299,
     18,
     "Identity_93",
     "m.embeddings.word_embeddings.weight",
     {1000, 128},
     -8.898819611696958},
    {"gpt2_tiny.onnx",
     10,
     18,
     "pytorch",
     {{"input_ids", DataType::kInt64, {{1, ""}, {16, ""}}}},
     {{"logits", DataType::kFloat, {{1, ""}, {16, ""}, {1000, ""}}}},
     94,
     32,
     "node_view",
     "m.transformer.wpe.weight",
     {128, 128},
     -1.5312927329127888},
};

void ExpectValues(const std::vector<ValueInfo>& got, const std::vector<ValueFact>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].name);
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].type.dtype, want[i].dtype);
    EXPECT_TRUE(got[i].type.has_shape);
    ASSERT_EQ(got[i].type.shape.size(), want[i].dims.size());
    for (size_t d = 0; d < want[i].dims.size(); ++d) {
      EXPECT_EQ(got[i].type.shape[d].value, want[i].dims[d].value) << "axis " << d;
      EXPECT_EQ(got[i].type.shape[d].param, want[i].dims[d].param) << "axis " << d;
    }
  }
}

class ModelFixtureTest : public ::testing::TestWithParam<ModelFact> {};

TEST_P(ModelFixtureTest, MatchesPythonOnnx) {
  const ModelFact& fact = GetParam();
  const std::string path = ModelsDir() + "/" + fact.file;
  ASSERT_TRUE(fs::exists(path)) << "missing model fixture " << path;
  absl::StatusOr<Graph> g = LoadOnnxModel(path);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->ir_version, fact.ir_version);
  EXPECT_EQ(g->producer_name, fact.producer);
  ASSERT_EQ(g->opset_imports.size(), 1u);
  EXPECT_EQ(g->opset_imports.at(""), fact.opset);
  ExpectValues(g->inputs, fact.inputs);
  ExpectValues(g->outputs, fact.outputs);
  ASSERT_EQ(g->nodes.size(), fact.nodes);
  EXPECT_EQ(g->initializers.size(), fact.initializers);
  EXPECT_EQ(g->nodes[0].name, fact.first_node);  // files already sorted keep their order
  for (const Node& n : g->nodes) {
    EXPECT_EQ(n.domain, "");
    EXPECT_EQ(n.opset, fact.opset);
    EXPECT_FALSE(n.name.empty());
  }
  ExpectTopologicallySorted(*g);
  auto w = g->initializers.find(fact.first_initializer);
  ASSERT_NE(w, g->initializers.end());
  EXPECT_EQ(w->second.dtype, DataType::kFloat);
  EXPECT_EQ(w->second.shape, fact.first_initializer_dims);
  ASSERT_EQ(w->second.byte_size(), static_cast<size_t>(w->second.num_elements()) * 4);
  double sum = 0;
  for (int64_t i = 0; i < w->second.num_elements(); ++i) sum += w->second.GetDouble(i);
  EXPECT_NEAR(sum, fact.first_initializer_sum, 1e-9 * w->second.num_elements());
}

INSTANTIATE_TEST_SUITE_P(Models, ModelFixtureTest, ::testing::ValuesIn(kModels),
                         [](const auto& info) {
                           const std::string file = info.param.file;
                           return file.substr(0, file.find('.'));
                         });

TEST(OnnxLoaderTest, BertConstantAttributeTensor) {
  const std::string path = ModelsDir() + "/bert_tiny.onnx";
  ASSERT_TRUE(fs::exists(path)) << "missing model fixture " << path;
  absl::StatusOr<Graph> g = LoadOnnxModel(path);
  ASSERT_TRUE(g.ok()) << g.status();
  // python: the node '/m/embeddings/Constant' has attribute value = int64 scalar 0.
  for (const Node& n : g->nodes) {
    if (n.name != "/m/embeddings/Constant") continue;
    const Attribute* value = n.FindAttribute("value");
    ASSERT_NE(value, nullptr);
    EXPECT_EQ(value->type, Attribute::Type::kTensor);
    EXPECT_EQ(value->t.dtype, DataType::kInt64);
    EXPECT_TRUE(value->t.shape.empty());
    EXPECT_EQ(value->t.ToInts(), std::vector<int64_t>{0});
    return;
  }
  FAIL() << "no node /m/embeddings/Constant";
}

TEST(OnnxLoaderTest, MissingFileIsNotFoundNamingIt) {
  absl::StatusOr<Graph> g = LoadOnnxModel("/nonexistent/dir/model.onnx");
  EXPECT_TRUE(absl::IsNotFound(g.status())) << g.status();
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("/nonexistent/dir/model.onnx"));
  EXPECT_TRUE(absl::IsNotFound(ReadTensorProtoFile("/nonexistent/x.pb").status()));
}

TEST(OnnxLoaderTest, DirectoryIsInvalidArgument) {
  absl::StatusOr<Graph> g = LoadOnnxModel(fs::temp_directory_path().string());
  EXPECT_TRUE(absl::IsInvalidArgument(g.status())) << g.status();
}

TEST(OnnxLoaderTest, EmptyAndGarbageBytes) {
  absl::StatusOr<Graph> g = LoadOnnxModelFromBytes("", "", "empty.onnx");
  EXPECT_TRUE(absl::IsInvalidArgument(g.status())) << g.status();
  EXPECT_THAT(std::string(g.status().message()),
              AllOf(HasSubstr("empty.onnx"), HasSubstr("no graph")));
  g = LoadOnnxModelFromBytes("\xff\xff\xff\xff garbage", "", "junk.onnx");
  EXPECT_TRUE(absl::IsInvalidArgument(g.status())) << g.status();
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("junk.onnx"));
}

// ---- generated well-formed models -------------------------------------------------

TEST_F(LoaderCases, AnonymousNodesAreNamedByOpTypeAndIndex) {
  absl::StatusOr<Graph> g = LoadOnnxModel(Case("anonymous.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].name, "Relu_0");
  EXPECT_EQ(g->nodes[1].name, "Neg_1");
  EXPECT_EQ(g->nodes[1].Describe(), "Neg (node 'Neg_1', domain 'ai.onnx', opset 13)");
}

TEST_F(LoaderCases, UnsortedNodesAreSorted) {
  absl::StatusOr<Graph> g = LoadOnnxModel(Case("unsorted.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].name, "first");
  EXPECT_EQ(g->nodes[1].name, "second");
}

TEST_F(LoaderCases, DomainsAreNormalizedAndOpsetsAssigned) {
  absl::StatusOr<Graph> g = LoadOnnxModel(Case("domains.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].domain, "");
  EXPECT_EQ(g->nodes[0].opset, 13);
  EXPECT_EQ(g->nodes[1].domain, "com.microsoft");
  EXPECT_EQ(g->nodes[1].opset, 1);
  EXPECT_EQ(g->opset_imports.size(), 2u);
}

TEST_F(LoaderCases, InitializersListedAsInputsAreNotInputs) {
  absl::StatusOr<Graph> g = LoadOnnxModel(Case("ir3_inputs.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0].name, "X");
  ASSERT_TRUE(g->initializers.count("W"));
  EXPECT_EQ(g->initializers.at("W").GetDouble(5), 5.0);
  EXPECT_EQ(g->ir_version, 3);
}

TEST_F(LoaderCases, SymbolicDimsAndDenotations) {
  absl::StatusOr<Graph> g = LoadOnnxModel(Case("dims.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  const TensorType& x = g->inputs.at(0).type;
  ASSERT_TRUE(x.has_shape);
  ASSERT_EQ(x.shape.size(), 3u);
  EXPECT_FALSE(x.shape[0].is_fixed());
  EXPECT_EQ(x.shape[0].param, "N");
  EXPECT_EQ(x.shape[0].denotation, "DATA_BATCH");
  EXPECT_EQ(x.shape[1].value, 3);
  EXPECT_FALSE(x.shape[2].is_fixed());
  EXPECT_EQ(x.shape[2].param, "");
  EXPECT_FALSE(g->outputs.at(0).type.has_shape);
}

TEST_F(LoaderCases, TypedFieldsAndRawDataMatchNumpy) {
  for (const char* file : {"typed.onnx", "raw.onnx"}) {
    SCOPED_TRACE(file);
    absl::StatusOr<Graph> g = LoadOnnxModel(Case(file));
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->initializers.size(), 14u);
    for (const auto& [name, t] : g->initializers) {
      SCOPED_TRACE(name);
      absl::StatusOr<HostTensor> want = ReadNpy(Case("typed/" + name + ".npy"));
      ASSERT_TRUE(want.ok()) << want.status();
      EXPECT_EQ(t.dtype, want->dtype);
      EXPECT_EQ(t.shape, want->shape);
      EXPECT_EQ(t.data, want->data);
    }
    const HostTensor& f16 = g->initializers.at("f16");
    EXPECT_EQ(f16.GetDouble(0), 1.0);
    EXPECT_EQ(f16.GetDouble(1), -2.5);
    EXPECT_EQ(f16.GetDouble(2), 65504.0);
    EXPECT_EQ(f16.GetDouble(3), 5.960464477539063e-08);  // numpy: float(np.float16(6e-8))
    EXPECT_EQ(g->initializers.at("i64").GetInt(0), -(int64_t{1} << 62));
    EXPECT_EQ(g->initializers.at("u32").GetInt(1), 4294967295);
    EXPECT_EQ(g->initializers.at("i8").GetInt(0), -128);
    EXPECT_EQ(g->initializers.at("scalar").num_elements(), 1);
    EXPECT_EQ(g->initializers.at("empty").num_elements(), 0);
  }
}

TEST_F(LoaderCases, EveryAttributeKind) {
  absl::StatusOr<Graph> g = LoadOnnxModel(Case("attributes.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  const Node& n = g->nodes.at(0);
  EXPECT_EQ(n.domain, "com.example");
  EXPECT_EQ(n.GetFloat("f", 0), 0.5f);
  EXPECT_EQ(n.GetInt("i", 0), -3);
  EXPECT_EQ(n.GetString("s", ""), "hello");
  EXPECT_THAT(n.GetFloats("fs"), ElementsAre(1.0f, 2.5f));
  EXPECT_THAT(n.GetInts("is"), ElementsAre(4, 5, 6));
  EXPECT_THAT(n.FindAttribute("ss")->strings, ElementsAre("a", "bc"));
  EXPECT_EQ(n.FindAttribute("t")->t.ToInts(), (std::vector<int64_t>{1, 2, 3}));
  const Attribute* ts = n.FindAttribute("ts");
  ASSERT_EQ(ts->type, Attribute::Type::kTensors);
  ASSERT_EQ(ts->tensors.size(), 2u);
  EXPECT_EQ(ts->tensors[1].dtype, DataType::kBool);
  EXPECT_EQ(ts->tensors[1].ToInts(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(n.GetInt("legacy", 0), 7);  // type UNDEFINED, inferred from the field set
  EXPECT_EQ(n.GetInt("absent", 42), 42);
  EXPECT_EQ(n.GetInt("f", 42), 42);  // wrong type: the default
}

TEST_F(LoaderCases, SubgraphsAreLoadedAndOuterCapturesOrderNodes) {
  absl::StatusOr<Graph> g = LoadOnnxModel(Case("if_capture.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].name, "late_relu");  // the If's branches read its output
  const Node& if_node = g->nodes[1];
  EXPECT_EQ(if_node.name, "if");
  const Attribute* then_branch = if_node.FindAttribute("then_branch");
  ASSERT_NE(then_branch, nullptr);
  ASSERT_EQ(then_branch->type, Attribute::Type::kGraph);
  ASSERT_EQ(then_branch->graphs.size(), 1u);
  const Graph& body = *then_branch->graphs[0];
  ASSERT_EQ(body.nodes.size(), 1u);
  EXPECT_EQ(body.nodes[0].name, "then_id");
  EXPECT_EQ(body.nodes[0].opset, 13);
  EXPECT_THAT(body.nodes[0].inputs, ElementsAre("late"));
  EXPECT_EQ(body.outputs.at(0).name, "a");

  OnnxLoadOptions no_subgraphs;
  no_subgraphs.load_subgraphs = false;
  absl::StatusOr<Graph> refused = LoadOnnxModel(Case("if_capture.onnx"), no_subgraphs);
  EXPECT_TRUE(absl::IsUnimplemented(refused.status())) << refused.status();
  EXPECT_THAT(std::string(refused.status().message()),
              AllOf(HasSubstr("'if'"), HasSubstr("_branch'")));
}

TEST_F(LoaderCases, NestedSubgraphCapturesOrderTheMainGraph) {
  absl::StatusOr<Graph> g = LoadOnnxModel(Case("nested_capture.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].name, "late_relu");
  const Graph& outer_then = *g->nodes[1].FindAttribute("then_branch")->graphs.at(0);
  ASSERT_EQ(outer_then.nodes.size(), 1u);
  EXPECT_EQ(outer_then.nodes[0].name, "inner_if");
  const Graph& inner_then = *outer_then.nodes[0].FindAttribute("then_branch")->graphs.at(0);
  EXPECT_THAT(inner_then.nodes.at(0).inputs, ElementsAre("late"));
}

TEST_F(LoaderCases, ExternalData) {
  absl::StatusOr<Graph> g = LoadOnnxModel(Case("ext/model.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->initializers.at("A").data, HostTensor::FromFloats({0, 1, 2, 3, 4, 5}, {2, 3}).data);
  EXPECT_EQ(g->initializers.at("B").data,
            HostTensor::FromFloats(std::vector<float>(6, -1.5f), {2, 3}).data);
  absl::StatusOr<Graph> offset = LoadOnnxModel(Case("ext_offset_ok/model.onnx"));
  ASSERT_TRUE(offset.ok()) << offset.status();
  EXPECT_EQ(offset->initializers.at("W").data,
            HostTensor::FromFloats({0, 1, 2, 3, 4, 5}, {2, 3}).data);

  const std::string bytes = ReadAll(Case("ext/model.onnx"));
  absl::StatusOr<Graph> from_bytes = LoadOnnxModelFromBytes(bytes, Case("ext"), "bytes.onnx");
  ASSERT_TRUE(from_bytes.ok()) << from_bytes.status();
  EXPECT_EQ(from_bytes->initializers.at("A").data, g->initializers.at("A").data);
  absl::StatusOr<Graph> no_dir = LoadOnnxModelFromBytes(bytes, "", "bytes.onnx");
  EXPECT_TRUE(absl::IsInvalidArgument(no_dir.status())) << no_dir.status();
  EXPECT_THAT(std::string(no_dir.status().message()),
              AllOf(HasSubstr("bytes.onnx"), HasSubstr("'A'")));
  OnnxLoadOptions refuse;
  refuse.allow_external_data = false;
  EXPECT_TRUE(absl::IsInvalidArgument(LoadOnnxModel(Case("ext/model.onnx"), refuse).status()));
}

// ---- malformed models ---------------------------------------------------------------

struct BadCase {
  const char* file;
  absl::StatusCode code;
  std::vector<const char*> mentions;  // besides the file name
};

const BadCase kBadCases[] = {
    {"cycle.onnx", absl::StatusCode::kInvalidArgument, {"cycle", "'n1'", "'n2'", "'t1'"}},
    {"dangling.onnx", absl::StatusCode::kInvalidArgument, {"'reader'", "'nowhere'"}},
    {"missing_opset.onnx",
     absl::StatusCode::kInvalidArgument,
     {"'foo'", "com.example", "opset_import"}},
    {"duplicate_output.onnx", absl::StatusCode::kInvalidArgument, {"'Y'", "more than once"}},
    {"duplicate_initializer.onnx", absl::StatusCode::kInvalidArgument, {"'W'", "twice"}},
    {"output_not_produced.onnx", absl::StatusCode::kInvalidArgument, {"'Y'", "never produced"}},
    {"subgraph_dangling.onnx", absl::StatusCode::kInvalidArgument, {"then_g", "'g'", "'ghost'"}},
    {"bad_raw.onnx",
     absl::StatusCode::kInvalidArgument,
     {"'W'", "20 bytes of raw_data", "needs 24"}},
    {"bad_typed.onnx",
     absl::StatusCode::kInvalidArgument,
     {"'W'", "5 values in float_data", "needs 6"}},
    {"huge.onnx", absl::StatusCode::kInvalidArgument, {"'W'", "larger than"}},
    {"huge_no_data.onnx", absl::StatusCode::kInvalidArgument, {"'W'", "0 values in float_data"}},
    {"negative_dim.onnx", absl::StatusCode::kInvalidArgument, {"'W'", "negative dimension -3"}},
    {"string_tensor.onnx", absl::StatusCode::kUnimplemented, {"'W'", "string"}},
    {"unknown_type_initializer.onnx", absl::StatusCode::kUnimplemented, {"'W'", "element type 99"}},
    {"unknown_type_input.onnx", absl::StatusCode::kUnimplemented, {"'X'", "element type 42"}},
    {"sparse_attribute.onnx",
     absl::StatusCode::kUnimplemented,
     {"'sparse_user'", "'sp'", "SPARSE_TENSOR"}},
    {"ext_escape/model.onnx",
     absl::StatusCode::kInvalidArgument,
     {"'W'", "../outside.bin", "leaves"}},
    {"ext_absolute/model.onnx",
     absl::StatusCode::kInvalidArgument,
     {"'W'", "outside.bin", "relative"}},
    {"ext_missing/model.onnx", absl::StatusCode::kNotFound, {"'W'", "nothere.bin"}},
    {"ext_out_of_bounds/model.onnx",
     absl::StatusCode::kInvalidArgument,
     {"'W'", "data.bin", "24 bytes"}},
    {"ext_bad_length/model.onnx", absl::StatusCode::kInvalidArgument, {"'W'", "length 20"}},
    {"ext_bad_offset/model.onnx", absl::StatusCode::kInvalidArgument, {"'W'", "offset '-4'"}},
    {"ext_symlink/model.onnx", absl::StatusCode::kInvalidArgument, {"'W'", "link.bin", "outside"}},
};

TEST_F(LoaderCases, MalformedModelsFailNamingFileAndItem) {
  for (const BadCase& c : kBadCases) {
    SCOPED_TRACE(c.file);
    absl::StatusOr<Graph> g = LoadOnnxModel(Case(c.file));
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.status().code(), c.code) << g.status();
    EXPECT_THAT(std::string(g.status().message()), HasSubstr(Case(c.file)));
    for (const char* m : c.mentions) EXPECT_THAT(std::string(g.status().message()), HasSubstr(m));
  }
}

// ---- conformance TensorProto files --------------------------------------------------

TEST_F(LoaderCases, ConformanceTensorProtosMatchNumpyHelper) {
  const std::string list = ReadAll(Case("pb_list.txt"));
  ASSERT_FALSE(list.empty()) << "no TensorProto files under " << OnnxNodeTestsDir();
  int checked = 0;
  for (absl::string_view line : absl::StrSplit(list, '\n', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(line, '\t');
    ASSERT_EQ(parts.size(), 2u);
    SCOPED_TRACE(parts[0]);
    absl::StatusOr<HostTensor> got = ReadTensorProtoFile(parts[0]);
    ASSERT_TRUE(got.ok()) << got.status();
    absl::StatusOr<HostTensor> want = ReadNpy(parts[1]);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_EQ(got->dtype, want->dtype);
    EXPECT_EQ(got->shape, want->shape);
    EXPECT_EQ(got->data, want->data);
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

// ---- robustness: truncations, mutations, garbage -------------------------------------

// Loads `bytes` (no external data allowed). It must not crash; a failure must
// be a Status with a message; a success must be internally consistent.
void LoadMustNotCrash(const std::string& bytes, int* ok_count) {
  absl::StatusOr<Graph> g = LoadOnnxModelFromBytes(bytes, "", "fuzz.onnx");
  if (g.ok()) {
    ++*ok_count;
    ExpectTopologicallySorted(*g);
    for (const auto& [name, t] : g->initializers) {
      ASSERT_EQ(t.byte_size(), static_cast<size_t>(t.num_elements()) * DataTypeSize(t.dtype))
          << name;
    }
    return;
  }
  EXPECT_FALSE(g.status().message().empty());
  const absl::StatusCode code = g.status().code();
  EXPECT_TRUE(code == absl::StatusCode::kInvalidArgument ||
              code == absl::StatusCode::kUnimplemented)
      << g.status();
}

TEST_F(LoaderCases, StructureAwareMutationsFailCleanly) {
  // fuzz/<i>.onnx: valid protobuf with one to three fields changed anywhere.
  int files = 0;
  int ok_count = 0;
  for (const auto& entry : fs::directory_iterator(Case("fuzz"))) {
    SCOPED_TRACE(entry.path().string());
    ++files;
    LoadMustNotCrash(ReadAll(entry.path()), &ok_count);
    absl::StatusOr<Graph> g =
        LoadOnnxModel(entry.path().string());  // external data may point anywhere
    if (!g.ok()) {
      EXPECT_THAT(std::string(g.status().message()), HasSubstr(entry.path().string()));
      EXPECT_NE(g.status().code(), absl::StatusCode::kInternal) << g.status();
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_EQ(files, 400);
  EXPECT_GT(ok_count, 0);
  EXPECT_LT(ok_count, files);
}

TEST_F(LoaderCases, EveryTruncationOfASmallModelFailsCleanly) {
  const std::string seed = ReadAll(Case("fuzz_seed.onnx"));
  ASSERT_GT(seed.size(), 100u);
  int ok_count = 0;
  LoadMustNotCrash(seed, &ok_count);
  ASSERT_EQ(ok_count, 1) << "the seed itself must load";
  for (size_t n = 0; n < seed.size(); ++n) LoadMustNotCrash(seed.substr(0, n), &ok_count);
}

TEST_F(LoaderCases, RandomMutationsNeverCrash) {
  std::mt19937 rng(20260611);
  std::vector<std::string> seeds = {ReadAll(Case("fuzz_seed.onnx")),
                                    ReadAll(Case("attributes.onnx")), ReadAll(Case("typed.onnx"))};
  int ok_count = 0;
  for (int iter = 0; iter < 6000; ++iter) {
    std::string m = seeds[iter % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !m.empty(); ++e) {
      const size_t at = rng() % m.size();
      switch (rng() % 6) {
        case 0:
          m[at] = static_cast<char>(m[at] ^ (1 << (rng() % 8)));
          break;
        case 1:
          m[at] = static_cast<char>(rng() % 256);
          break;
        case 2:
          m[at] = static_cast<char>(rng() % 2 ? 0xff : 0x7f);
          break;
        case 3:
          m.erase(at, 1 + rng() % 8);
          break;
        case 4:
          m.insert(at, std::string(1 + rng() % 4, static_cast<char>(rng() % 256)));
          break;
        case 5: {  // duplicate a slice (repeats fields, nests messages oddly)
          const size_t len = std::min<size_t>(1 + rng() % 32, m.size() - at);
          m.insert(rng() % m.size(), m.substr(at, len));
          break;
        }
      }
    }
    LoadMustNotCrash(m, &ok_count);
    if (::testing::Test::HasFatalFailure()) return;
  }
  RecordProperty("loaded_ok", ok_count);
}

TEST_F(LoaderCases, RandomGarbageNeverCrashes) {
  std::mt19937 rng(7);
  int ok_count = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string bytes(rng() % 512, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 256);
    LoadMustNotCrash(bytes, &ok_count);
    absl::StatusOr<HostTensor> t = ParseTensorProto(bytes, "garbage.pb");
    if (!t.ok()) {
      EXPECT_FALSE(t.status().message().empty());
    }
  }
}

TEST(OnnxLoaderTest, MutatedRealModelNeverCrashes) {
  const std::string path = ModelsDir() + "/gpt2_tiny.onnx";
  ASSERT_TRUE(fs::exists(path)) << "missing model fixture " << path;
  const std::string seed = ReadAll(path);
  std::mt19937 rng(99);
  int ok_count = 0;
  for (int iter = 0; iter < 150; ++iter) {
    std::string m = seed;
    if (iter % 3 == 0) {
      m.resize(rng() % m.size());
    } else {
      for (int e = 0; e < 8; ++e) m[rng() % m.size()] = static_cast<char>(rng() % 256);
    }
    LoadMustNotCrash(m, &ok_count);
  }
}

TEST_F(LoaderCases, MutatedTensorProtosNeverCrash) {
  const std::string list = ReadAll(Case("pb_list.txt"));
  ASSERT_FALSE(list.empty()) << "no TensorProto files under " << OnnxNodeTestsDir();
  std::vector<std::string> seeds;
  for (absl::string_view line : absl::StrSplit(list, '\n', absl::SkipEmpty())) {
    seeds.push_back(ReadAll(std::string(*absl::StrSplit(line, '\t').begin())));
  }
  std::mt19937 rng(3);
  for (int iter = 0; iter < 3000; ++iter) {
    std::string m = seeds[iter % seeds.size()];
    if (m.empty()) continue;
    for (int e = 0; e < 3; ++e) m[rng() % m.size()] = static_cast<char>(rng() % 256);
    if (iter % 4 == 0) m.resize(rng() % m.size());
    absl::StatusOr<HostTensor> t = ParseTensorProto(m, "mutated.pb");
    if (t.ok()) {
      EXPECT_EQ(t->byte_size(), static_cast<size_t>(t->num_elements()) * DataTypeSize(t->dtype));
    } else {
      EXPECT_THAT(std::string(t.status().message()), HasSubstr("mutated.pb"));
    }
  }
}

TEST(DataTypeTest, SizesAndNames) {
  EXPECT_EQ(DataTypeSize(DataType::kFloat), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kFloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kComplex128), 16u);
  EXPECT_EQ(DataTypeSize(DataType::kString), 0u);
  EXPECT_EQ(DataTypeSize(static_cast<DataType>(99)), 0u);
  EXPECT_EQ(DataTypeName(DataType::kInt64), "int64");
  EXPECT_EQ(DataTypeName(static_cast<DataType>(99)), "unknown");
  EXPECT_EQ(DataTypeKServeName(DataType::kFloat), "FP32");
  EXPECT_EQ(DataTypeKServeName(DataType::kBool), "BOOL");
  EXPECT_TRUE(IsKnownDataType(16));
  EXPECT_FALSE(IsKnownDataType(17));
  EXPECT_FALSE(IsKnownDataType(-1));
}

}  // namespace
}  // namespace vkserve
