// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/loaders/ort_loader.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "runtime/ir/graph_builder.h"
#include "runtime/loaders/model_file.h"
#include "runtime/loaders/ort_format_generated.h"

namespace vkserve {
namespace {

namespace fbs = ::onnxruntime::fbs;
using FbString = ::flatbuffers::String;
template <typename T>
using FbVector = ::flatbuffers::Vector<T>;
template <typename T>
using FbTables = ::flatbuffers::Vector<::flatbuffers::Offset<T>>;

// Verifier limits. A legitimate model nests Graph > Node > Attribute > Graph
// ... a few levels per subgraph; each level of our own depth limit costs
// about four flatbuffer levels.
constexpr uint32_t kFlatbufferDepthPerSubgraph = 8;
constexpr uint64_t kFixedByteAllowance = uint64_t{1} << 20;
// Every table of a well-formed file has at least an offset to its vtable and
// one field: a file of N bytes holds under N/8 of them.
constexpr uint64_t kBytesPerTable = 8;

// Initializers at least this large alias the file's bytes (when aligned for
// their element type) instead of being copied; smaller ones are copied so a
// model of few weights does not keep its whole file.
constexpr uint64_t kMinAliasBytes = 128;

struct OrtContext {
  std::string name;
  std::shared_ptr<const void> file_owner;  // the loaded file's bytes, when they may be aliased
  OrtLoadOptions options;
  std::map<std::string, int64_t> opsets;  // normalized domain -> version
  uint64_t budget = 0;                    // bytes the Graph may still take
  std::unordered_set<const void*> seen;   // tables converted so far

  absl::Status Malformed(absl::string_view what) const { return MalformedModel(name, what); }
  absl::Status Unsupported(absl::string_view what) const { return UnsupportedModel(name, what); }

  // Charges `bytes` of Graph memory; RESOURCE_EXHAUSTED past the budget.
  absl::Status Charge(uint64_t bytes, absl::string_view what) {
    if (bytes > budget) {
      return absl::ResourceExhaustedError(absl::StrCat(
          name, ": ", std::string(what), " would make the loaded model larger than ",
          options.max_bytes_per_file_byte, " times the file (a malformed file sharing its data?)"));
    }
    budget -= bytes;
    return absl::OkStatus();
  }

  // Refuses a table met a second time: writers never share tables, and a
  // shared one would be converted (and charged) once per reference.
  absl::Status Visit(const void* table, absl::string_view what) {
    if (table == nullptr) return Malformed(absl::StrCat(std::string(what), " is missing"));
    if (!seen.insert(table).second) {
      return Malformed(absl::StrCat(std::string(what), " shares its table with another item"));
    }
    return absl::OkStatus();
  }
};

std::string NormalizeOrtDomain(std::string domain) { return domain == "ai.onnx" ? "" : domain; }

// Copies a flatbuffers string (null reads as empty), charging its bytes.
absl::StatusOr<std::string> Str(OrtContext& ctx, const FbString* s, absl::string_view what) {
  if (s == nullptr) return std::string();
  RETURN_IF_ERROR(ctx.Charge(s->size() + sizeof(std::string), what));
  return s->str();
}

absl::StatusOr<std::vector<std::string>> Strings(OrtContext& ctx, const FbTables<FbString>* v,
                                                 absl::string_view what) {
  std::vector<std::string> out;
  if (v == nullptr) return out;
  out.reserve(v->size());
  for (const FbString* s : *v) {
    ASSIGN_OR_RETURN(std::string str, Str(ctx, s, what));
    out.push_back(std::move(str));
  }
  return out;
}

// Copies a vector of scalars. The Verifier checks a vector's length field
// but not that its elements are aligned for T, so the bytes are copied, never
// read through a T pointer.
template <typename T>
absl::StatusOr<std::vector<T>> Scalars(OrtContext& ctx, const FbVector<T>* v,
                                       absl::string_view what) {
  std::vector<T> out;
  if (v == nullptr) return out;
  RETURN_IF_ERROR(ctx.Charge(uint64_t{v->size()} * sizeof(T), what));
  out.resize(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

absl::StatusOr<HostTensor> ConvertOrtTensor(OrtContext& ctx, const fbs::Tensor* t,
                                            const std::string& what) {
  RETURN_IF_ERROR(ctx.Visit(t, what));
  HostTensor out;
  ASSIGN_OR_RETURN(out.dtype, CheckElementType(ctx.name, static_cast<int64_t>(t->data_type()), what,
                                               /*allow_undefined=*/false));
  if (t->external_data_offset() >= 0) {
    return ctx.Unsupported(
        absl::StrCat(what, " keeps its data in an external file, which vkserve does not read"));
  }
  ASSIGN_OR_RETURN(out.shape, Scalars(ctx, t->dims(), what));
  ASSIGN_OR_RETURN(const uint64_t bytes, CheckedTensorBytes(ctx.name, out.dtype, out.shape,
                                                            ctx.options.max_tensor_bytes, what));
  const uint64_t stored = t->raw_data() == nullptr ? 0 : t->raw_data()->size();
  if (stored != bytes) {
    return ctx.Malformed(absl::StrCat(what, " has ", stored, " bytes of raw_data; its ",
                                      std::string(DataTypeName(out.dtype)), " shape [",
                                      absl::StrJoin(out.shape, ","), "]", " needs ", bytes));
  }
  if (bytes == 0) return out;
  const uint8_t* raw = t->raw_data()->data();
  const size_t align = std::min<size_t>(DataTypeSize(out.dtype), alignof(std::max_align_t));
  if (ctx.file_owner != nullptr && bytes >= kMinAliasBytes &&
      reinterpret_cast<uintptr_t>(raw) % align == 0) {
    // The file stays alive with the Graph; its bytes are the tensor's.
    out.data = TensorBytes::View(ctx.file_owner, raw, bytes);
    return out;
  }
  RETURN_IF_ERROR(ctx.Charge(bytes, what));
  out.data.assign(raw, raw + bytes);
  return out;
}

// A declared value type. `lenient`: a missing type reads as unknown
// (subgraphs, value infos) instead of an error.
absl::StatusOr<TensorType> ConvertOrtType(OrtContext& ctx, const fbs::TypeInfo* info,
                                          const std::string& what, bool lenient) {
  TensorType type;
  if (info == nullptr || info->value_type() == fbs::TypeInfoValue::NONE) {
    if (lenient) return type;
    return ctx.Malformed(absl::StrCat(what, " has no type"));
  }
  const fbs::TensorTypeAndShape* tensor = info->value_as_tensor_type();
  if (tensor == nullptr) {
    return ctx.Unsupported(
        absl::StrCat(what, " is not a tensor (sequence and map values are not supported)"));
  }
  ASSIGN_OR_RETURN(type.dtype, CheckElementType(ctx.name, static_cast<int64_t>(tensor->elem_type()),
                                                what, lenient));
  const fbs::Shape* shape = tensor->shape();
  type.has_shape = shape != nullptr;
  if (shape == nullptr || shape->dim() == nullptr) return type;
  RETURN_IF_ERROR(ctx.Charge(uint64_t{shape->dim()->size()} * sizeof(Dim), what));
  for (uint32_t i = 0; i < shape->dim()->size(); ++i) {
    const fbs::Dimension* d = shape->dim()->Get(i);
    Dim dim;
    if (d != nullptr) {
      ASSIGN_OR_RETURN(dim.denotation, Str(ctx, d->denotation(), what));
      const fbs::DimensionValue* v = d->value();
      if (v != nullptr && v->dim_type() == fbs::DimensionValueType::VALUE) {
        if (v->dim_value() < 0) {
          return ctx.Malformed(
              absl::StrCat(what, " has negative dimension ", v->dim_value(), " at axis ", i));
        }
        dim.value = v->dim_value();
      } else if (v != nullptr && v->dim_type() == fbs::DimensionValueType::PARAM) {
        ASSIGN_OR_RETURN(dim.param, Str(ctx, v->dim_param(), what));
      }
    }
    type.shape.push_back(std::move(dim));
  }
  return type;
}

absl::StatusOr<Graph> ConvertOrtGraph(OrtContext& ctx, const fbs::Graph* g, int depth,
                                      const std::string& label, const GraphScope* outer,
                                      NameSet* captured);

absl::StatusOr<Attribute> ConvertOrtAttribute(OrtContext& ctx, const fbs::Attribute* a,
                                              const std::string& what, int depth,
                                              const GraphScope& scope, NameSet* captured) {
  Attribute out;
  auto subgraph = [&](const fbs::Graph* g, size_t k) -> absl::Status {
    ASSIGN_OR_RETURN(Graph sub, ConvertOrtGraph(ctx, g, depth + 1, absl::StrCat(what, " graph ", k),
                                                &scope, captured));
    out.graphs.push_back(std::make_shared<const Graph>(std::move(sub)));
    return absl::OkStatus();
  };
  switch (a->type()) {
    case fbs::AttributeType::FLOAT: {
      out.type = Attribute::Type::kFloat;
      out.f = a->f();
      break;
    }
    case fbs::AttributeType::INT: {
      out.type = Attribute::Type::kInt;
      out.i = a->i();
      break;
    }
    case fbs::AttributeType::STRING: {
      out.type = Attribute::Type::kString;
      ASSIGN_OR_RETURN(out.s, Str(ctx, a->s(), what));
      break;
    }
    case fbs::AttributeType::FLOATS: {
      out.type = Attribute::Type::kFloats;
      ASSIGN_OR_RETURN(out.floats, Scalars(ctx, a->floats(), what));
      break;
    }
    case fbs::AttributeType::INTS: {
      out.type = Attribute::Type::kInts;
      ASSIGN_OR_RETURN(out.ints, Scalars(ctx, a->ints(), what));
      break;
    }
    case fbs::AttributeType::STRINGS: {
      out.type = Attribute::Type::kStrings;
      ASSIGN_OR_RETURN(out.strings, Strings(ctx, a->strings(), what));
      break;
    }
    case fbs::AttributeType::TENSOR: {
      out.type = Attribute::Type::kTensor;
      ASSIGN_OR_RETURN(out.t, ConvertOrtTensor(ctx, a->t(), absl::StrCat(what, " tensor")));
      break;
    }
    case fbs::AttributeType::TENSORS: {
      out.type = Attribute::Type::kTensors;
      if (a->tensors() == nullptr) break;
      for (uint32_t i = 0; i < a->tensors()->size(); ++i) {
        ASSIGN_OR_RETURN(HostTensor t, ConvertOrtTensor(ctx, a->tensors()->Get(i),
                                                        absl::StrCat(what, " tensor ", i)));
        out.tensors.push_back(std::move(t));
      }
      break;
    }
    case fbs::AttributeType::GRAPH: {
      out.type = Attribute::Type::kGraph;
      RETURN_IF_ERROR(subgraph(a->g(), 0));
      break;
    }
    case fbs::AttributeType::GRAPHS: {
      out.type = Attribute::Type::kGraphs;
      if (a->graphs() == nullptr) break;
      for (uint32_t i = 0; i < a->graphs()->size(); ++i)
        RETURN_IF_ERROR(subgraph(a->graphs()->Get(i), i));
      break;
    }
    case fbs::AttributeType::UNDEFINED:
      return ctx.Malformed(absl::StrCat(what, " has no type"));
    default:
      return ctx.Unsupported(absl::StrCat(what, " has attribute type ",
                                          static_cast<int32_t>(a->type()),
                                          ", which vkserve does not support"));
  }
  return out;
}

// The declared types of a graph's values, by name (ORT's node_args).
absl::StatusOr<std::unordered_map<std::string, const fbs::ValueInfo*>> IndexNodeArgs(
    OrtContext& ctx, const GraphBuilder& builder, const fbs::Graph* g) {
  std::unordered_map<std::string, const fbs::ValueInfo*> types;
  if (g->node_args() == nullptr) return types;
  for (const fbs::ValueInfo* v : *g->node_args()) {
    RETURN_IF_ERROR(ctx.Visit(v, absl::StrCat(builder.graph_what(), "a node_args entry")));
    if (v->name() == nullptr) return builder.Malformed("a node_args entry has no name");
    types.emplace(v->name()->str(), v);
  }
  return types;
}

absl::Status AddInitializers(OrtContext& ctx, GraphBuilder& builder, const fbs::Graph* g) {
  if (g->sparse_initializers() != nullptr && g->sparse_initializers()->size() > 0) {
    return builder.Unsupported("sparse initializers are not supported");
  }
  if (g->initializers() == nullptr) return absl::OkStatus();
  for (uint32_t i = 0; i < g->initializers()->size(); ++i) {
    const fbs::Tensor* t = g->initializers()->Get(i);
    if (t == nullptr || t->name() == nullptr || t->name()->size() == 0) {
      return builder.Malformed(absl::StrCat("initializer #", i, " has no name"));
    }
    ASSIGN_OR_RETURN(std::string name, Str(ctx, t->name(), "an initializer name"));
    ASSIGN_OR_RETURN(
        HostTensor tensor,
        ConvertOrtTensor(ctx, t, absl::StrCat(builder.graph_what(), "initializer '", name, "'")));
    RETURN_IF_ERROR(builder.AddInitializer(name, std::move(tensor)));
  }
  return absl::OkStatus();
}

// Graph inputs and outputs are names whose types live in node_args.
absl::Status AddInputsAndOutputs(
    OrtContext& ctx, GraphBuilder& builder, const fbs::Graph* g,
    const std::unordered_map<std::string, const fbs::ValueInfo*>& types) {
  const bool lenient = builder.depth() > 0;
  for (const bool is_input : {true, false}) {
    const FbTables<FbString>* names = is_input ? g->inputs() : g->outputs();
    if (names == nullptr) continue;
    const std::string kind =
        absl::StrCat(builder.graph_what(), is_input ? "graph input" : "graph output");
    for (uint32_t i = 0; i < names->size(); ++i) {
      ASSIGN_OR_RETURN(std::string name, Str(ctx, names->Get(i), kind));
      if (name.empty()) return builder.Malformed(absl::StrCat(kind, " #", i, " has no name"));
      auto it = types.find(name);
      ASSIGN_OR_RETURN(TensorType type,
                       ConvertOrtType(ctx, it == types.end() ? nullptr : it->second->type(),
                                      absl::StrCat(kind, " '", name, "'"), lenient));
      ValueInfo value{std::move(name), std::move(type)};
      RETURN_IF_ERROR(is_input ? builder.AddInput(std::move(value))
                               : builder.AddOutput(std::move(value)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Node> ConvertNode(OrtContext& ctx, GraphBuilder& builder, const fbs::Node* n,
                                 size_t index, NameSet* node_captured) {
  Node node;
  ASSIGN_OR_RETURN(node.op_type, Str(ctx, n->op_type(), "an op type"));
  ASSIGN_OR_RETURN(std::string domain, Str(ctx, n->domain(), "a domain"));
  node.domain = NormalizeOrtDomain(std::move(domain));
  ASSIGN_OR_RETURN(node.name, Str(ctx, n->name(), "a node name"));
  if (node.name.empty()) node.name = absl::StrCat(node.op_type, "_", index);
  node.since_version = n->since_version();
  const std::string what = absl::StrCat(builder.graph_what(), "node '", node.name, "'");
  if (n->type() != fbs::NodeType::Primitive) {
    return ctx.Unsupported(absl::StrCat(what, " (", node.op_type,
                                        ") is a fused node compiled by an execution "
                                        "provider; vkserve runs only primitive nodes"));
  }
  ASSIGN_OR_RETURN(node.inputs, Strings(ctx, n->inputs(), what));
  ASSIGN_OR_RETURN(node.outputs, Strings(ctx, n->outputs(), what));
  if (n->attributes() == nullptr) return node;
  for (const fbs::Attribute* a : *n->attributes()) {
    RETURN_IF_ERROR(ctx.Visit(a, absl::StrCat(what, " attribute")));
    ASSIGN_OR_RETURN(std::string name, Str(ctx, a->name(), what));
    ASSIGN_OR_RETURN(Attribute attr,
                     ConvertOrtAttribute(ctx, a, absl::StrCat(what, " attribute '", name, "'"),
                                         builder.depth(), builder.scope(), node_captured));
    if (!node.attributes.emplace(name, std::move(attr)).second) {
      return builder.Malformed(
          absl::StrCat("node '", node.name, "' has attribute '", name, "' twice"));
    }
  }
  return node;
}

absl::StatusOr<Graph> ConvertOrtGraph(OrtContext& ctx, const fbs::Graph* g, int depth,
                                      const std::string& label, const GraphScope* outer,
                                      NameSet* captured) {
  if (depth > ctx.options.max_subgraph_depth) {
    return ctx.Malformed(
        absl::StrCat("subgraphs nested more than ", ctx.options.max_subgraph_depth, " deep"));
  }
  RETURN_IF_ERROR(ctx.Visit(g, depth == 0 ? "the model's graph" : label));
  GraphBuilder builder(ctx.name, ctx.opsets, depth, label, outer);
  RETURN_IF_ERROR(AddInitializers(ctx, builder, g));
  ASSIGN_OR_RETURN(auto types, IndexNodeArgs(ctx, builder, g));
  RETURN_IF_ERROR(AddInputsAndOutputs(ctx, builder, g, types));
  for (const auto& [name, v] : types) {  // advisory: entries we cannot use are skipped
    auto type = ConvertOrtType(ctx, v->type(), "value_info", /*lenient=*/true);
    if (type.ok()) builder.AddValueInfo({name, std::move(type).value()});
  }
  const FbTables<fbs::Node>* nodes = g->nodes();
  const uint32_t count = nodes == nullptr ? 0 : nodes->size();
  for (uint32_t i = 0; i < count; ++i) {
    const fbs::Node* n = nodes->Get(i);
    RETURN_IF_ERROR(ctx.Visit(n, absl::StrCat(builder.graph_what(), "node #", i)));
    ASSIGN_OR_RETURN(std::vector<std::string> outputs, Strings(ctx, n->outputs(), "node outputs"));
    const std::string label_i = n->name() != nullptr && n->name()->size() > 0
                                    ? n->name()->str()
                                    : absl::StrCat("node #", i);
    RETURN_IF_ERROR(builder.DeclareNodeOutputs(label_i, outputs));
  }
  for (uint32_t i = 0; i < count; ++i) {
    NameSet node_captured;  // outer names this node's subgraphs read
    ASSIGN_OR_RETURN(Node node, ConvertNode(ctx, builder, nodes->Get(i), i, &node_captured));
    RETURN_IF_ERROR(builder.AddNode(std::move(node), node_captured, i));
  }
  return builder.Finish(captured);
}

absl::StatusOr<std::map<std::string, int64_t>> ReadOpsets(const OrtContext& ctx,
                                                          const fbs::Model* model) {
  std::map<std::string, int64_t> opsets;
  if (model->opset_import() == nullptr || model->opset_import()->size() == 0) {
    return ctx.Malformed("the model has no opset_import");
  }
  for (const fbs::OperatorSetId* op : *model->opset_import()) {
    const std::string domain =
        NormalizeOrtDomain(op->domain() == nullptr ? "" : op->domain()->str());
    if (op->version() < 0) {
      return ctx.Malformed(absl::StrCat("opset_import for domain '", domain,
                                        "' has negative version ", op->version()));
    }
    auto [it, inserted] = opsets.emplace(domain, op->version());
    if (!inserted && it->second != op->version()) {
      return ctx.Malformed(absl::StrCat("opset_import lists domain '", domain,
                                        "' twice, as versions ", it->second, " and ",
                                        op->version()));
    }
  }
  return opsets;
}

// Checks the identifier and verifies the whole buffer; returns its root.
absl::StatusOr<const fbs::InferenceSession*> VerifiedRoot(const OrtContext& ctx,
                                                          absl::string_view bytes) {
  if (bytes.size() < 8 || !fbs::InferenceSessionBufferHasIdentifier(bytes.data())) {
    return ctx.Malformed("not an ONNX Runtime model (no \"ORTM\" identifier at bytes 4-7)");
  }
  if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return ctx.Malformed(absl::StrCat(bytes.size(), " bytes is over the flatbuffers 2 GiB limit"));
  }
  const uint64_t max_tables = std::max<uint64_t>(bytes.size() / kBytesPerTable, 1024);
  flatbuffers::Verifier verifier(
      reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
      static_cast<flatbuffers::uoffset_t>((ctx.options.max_subgraph_depth + 1) *
                                          kFlatbufferDepthPerSubgraph),
      static_cast<flatbuffers::uoffset_t>(std::min<uint64_t>(max_tables, UINT32_MAX)));
  if (!fbs::VerifyInferenceSessionBuffer(verifier)) {
    return ctx.Malformed(
        "the ORT flatbuffer fails verification (truncated or corrupt file, an offset outside "
        "the buffer, or nesting/table count over the limits)");
  }
  return fbs::GetInferenceSession(bytes.data());
}

absl::StatusOr<Graph> LoadBytes(absl::string_view bytes, std::shared_ptr<const void> owner,
                                const std::string& name, const OrtLoadOptions& options) {
  OrtContext ctx;
  ctx.name = name;
  ctx.file_owner = std::move(owner);
  ctx.options = options;
  ctx.budget = bytes.size() * options.max_bytes_per_file_byte + kFixedByteAllowance;
  ASSIGN_OR_RETURN(const fbs::InferenceSession* session, VerifiedRoot(ctx, bytes));
  const std::string version =
      session->ort_version() == nullptr ? "" : session->ort_version()->str();
  if (!IsSupportedOrtFormatVersion(version)) {
    return ctx.Unsupported(absl::StrCat("ORT format version '", version.substr(0, 16),
                                        "' is not supported; vkserve reads versions 1 to 6"));
  }
  const fbs::Model* model = session->model();
  if (model == nullptr) return ctx.Malformed("the file has no model");
  if (model->graph() == nullptr) return ctx.Malformed("the model has no graph");
  ASSIGN_OR_RETURN(ctx.opsets, ReadOpsets(ctx, model));
  NameSet captured;
  ASSIGN_OR_RETURN(Graph graph, ConvertOrtGraph(ctx, model->graph(), 0, "", nullptr, &captured));
  graph.ir_version = model->ir_version();
  ASSIGN_OR_RETURN(graph.producer_name, Str(ctx, model->producer_name(), "producer_name"));
  ASSIGN_OR_RETURN(graph.producer_version, Str(ctx, model->producer_version(), "producer_version"));
  graph.format = "ort";
  graph.ort_format_version = version;
  return graph;
}

}  // namespace

bool IsSupportedOrtFormatVersion(absl::string_view version) {
  return version.size() == 1 && version[0] >= '1' && version[0] <= '6';
}

absl::StatusOr<Graph> LoadOrtModelFromBytes(absl::string_view bytes, const std::string& name,
                                            const OrtLoadOptions& options) {
  return LoadWithoutExceptions<Graph>(name,
                                      [&] { return LoadBytes(bytes, nullptr, name, options); });
}

absl::StatusOr<Graph> LoadOrtModel(const std::string& path, const OrtLoadOptions& options) {
  return LoadWithoutExceptions<Graph>(path, [&]() -> absl::StatusOr<Graph> {
    ASSIGN_OR_RETURN(std::string read, ReadModelFileBytes(path));
    auto bytes = std::make_shared<const std::string>(std::move(read));
    return LoadBytes(*bytes, bytes, path, options);
  });
}

}  // namespace vkserve
