// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/loaders/onnx_loader.h"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <new>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "onnx/onnx_pb.h"
#include "runtime/ir/graph_builder.h"
#include "runtime/loaders/model_file.h"

static_assert(std::endian::native == std::endian::little,
              "HostTensor data is little-endian; big-endian hosts are not supported");

namespace vkserve {
namespace {

namespace fs = std::filesystem;
struct Context {
  std::string name;      // the file (or caller-given name) for messages
  std::string base_dir;  // for external data; empty = refused
  OnnxLoadOptions options;
  std::map<std::string, int64_t> opsets;  // normalized domain -> version
};

absl::Status Malformed(const Context& ctx, absl::string_view what) {
  return MalformedModel(ctx.name, what);
}

absl::Status Unsupported(const Context& ctx, absl::string_view what) {
  return UnsupportedModel(ctx.name, what);
}

std::string NormalizeDomain(const std::string& domain) { return domain == "ai.onnx" ? "" : domain; }

// Parses protobuf bytes without exceptions escaping and without silently
// truncating inputs over 2 GiB (CodedInputStream takes an int size).
absl::Status ParseBytes(std::string_view bytes, google::protobuf::MessageLite* message,
                        const std::string& name, absl::string_view kind) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": ", bytes.size(),
                     " bytes is over protobuf's 2 GiB limit (store weights as external data)"));
  }
  bool ok = false;
  try {
    google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                  static_cast<int>(bytes.size()));
    stream.SetTotalBytesLimit(INT_MAX);
    ok = message->ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(name, ": out of memory parsing the ", kind));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not a valid ", kind, " (", e.what(), ")"));
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not a valid ", kind, " (protobuf parse failed)"));
  }
  return absl::OkStatus();
}

// Reads `expected` bytes of external data for tensor `t` into `out`.
absl::Status ReadExternal(const Context& ctx, const onnx::TensorProto& t, const std::string& what,
                          uint64_t expected, std::vector<uint8_t>* out) {
  std::string location;
  uint64_t offset = 0;
  uint64_t length = 0;
  bool has_length = false;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      uint64_t v = 0;
      if (!absl::SimpleAtoi(kv.value(), &v)) {
        return Malformed(ctx, absl::StrCat(what, ": external data ", kv.key(), " '", kv.value(),
                                           "' is not a non-negative integer"));
      }
      if (kv.key() == "offset") {
        offset = v;
      } else {
        length = v;
        has_length = true;
      }
    }
  }
  if (!ctx.options.allow_external_data || ctx.base_dir.empty()) {
    return Malformed(ctx,
                     absl::StrCat(what, " has external data ('", location,
                                  "'), which is not allowed here (load the model from a file)"));
  }
  if (location.empty())
    return Malformed(ctx, absl::StrCat(what, ": external data has no location"));
  if (location.find('\0') != std::string::npos) {
    return Malformed(ctx, absl::StrCat(what, ": external data location contains a NUL byte"));
  }
  const fs::path rel(location);
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory()) {
    return Malformed(ctx, absl::StrCat(what, ": external data location '", location,
                                       "' must be a path relative to the model's directory"));
  }
  for (const auto& part : rel) {
    if (part == "..") {
      return Malformed(ctx, absl::StrCat(what, ": external data location '", location,
                                         "' leaves the model's directory"));
    }
  }
  if (has_length && length != expected) {
    return Malformed(ctx, absl::StrCat(what, ": external data length ", length,
                                       " but its shape needs ", expected, " bytes"));
  }
  const fs::path path = fs::path(ctx.base_dir) / rel;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    return absl::NotFoundError(absl::StrCat(ctx.name, ": ", what, ": external data file ",
                                            path.string(), " does not exist"));
  }
  if (!fs::is_regular_file(st)) {
    return Malformed(
        ctx, absl::StrCat(what, ": external data ", path.string(), " is not a regular file"));
  }
  // Symbolic links must not lead outside the model's directory either.
  const fs::path real_base = fs::weakly_canonical(fs::path(ctx.base_dir), ec);
  const fs::path real_file = ec ? fs::path() : fs::weakly_canonical(path, ec);
  if (ec)
    return Malformed(ctx,
                     absl::StrCat(what, ": cannot resolve ", path.string(), ": ", ec.message()));
  const auto mismatch =
      std::mismatch(real_base.begin(), real_base.end(), real_file.begin(), real_file.end());
  if (mismatch.first != real_base.end()) {
    return Malformed(ctx, absl::StrCat(what, ": external data ", path.string(),
                                       " resolves outside the model's directory"));
  }
  const uintmax_t file_size = fs::file_size(path, ec);
  if (ec)
    return absl::NotFoundError(absl::StrCat(ctx.name, ": ", what, ": cannot stat ", path.string()));
  if (offset > file_size || expected > file_size - offset) {
    return Malformed(ctx,
                     absl::StrCat(what, ": external data [", offset, ", ", offset, "+", expected,
                                  ") lies outside ", path.string(), " (", file_size, " bytes)"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(absl::StrCat(ctx.name, ": ", what, ": cannot open ", path.string()));
  out->resize(static_cast<size_t>(expected));
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(out->data()), static_cast<std::streamsize>(expected));
  if (static_cast<uint64_t>(in.gcount()) != expected) {
    return absl::DataLossError(
        absl::StrCat(ctx.name, ": ", what, ": short read from ", path.string()));
  }
  return absl::OkStatus();
}

// The 2-bit types are stored four to a byte, element 0 in the low bits, in
// raw_data or one packed byte per int32_data entry; vkserve holds one element
// per byte (int2 sign-extended).
absl::StatusOr<HostTensor> ConvertTwoBitTensor(const Context& ctx, const onnx::TensorProto& t,
                                               HostTensor out, uint64_t n,
                                               const std::string& what) {
  const uint64_t packed_bytes = (n + 3) / 4;
  std::vector<uint8_t> packed;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    RETURN_IF_ERROR(ReadExternal(ctx, t, what, packed_bytes, &packed));
  } else if (t.has_raw_data()) {
    packed.assign(t.raw_data().begin(), t.raw_data().end());
  } else {
    for (int32_t v : t.int32_data()) packed.push_back(static_cast<uint8_t>(v));
  }
  if (packed.size() != packed_bytes) {
    return Malformed(ctx, absl::StrCat(what, " holds ", packed.size(), " packed bytes; its ",
                                       std::string(DataTypeName(out.dtype)), " shape [",
                                       absl::StrJoin(out.shape, ","), "] needs ", packed_bytes));
  }
  std::vector<uint8_t> unpacked(n);
  const bool is_signed = out.dtype == DataType::kInt2;
  for (uint64_t i = 0; i < n; ++i) {
    const int v = (packed[i / 4] >> (2 * (i % 4))) & 3;
    unpacked[i] = static_cast<uint8_t>(is_signed ? ((v ^ 2) - 2) : v);
  }
  out.data = std::move(unpacked);
  return out;
}

// A tensor whose `n` elements (`bytes` in all) are in TensorProto's typed
// fields (float_data, int32_data, ...) into `out` (dtype and shape set).
absl::Status ConvertTypedFields(const Context& ctx, const onnx::TensorProto& t,
                                const std::string& what, uint64_t n, uint64_t bytes,
                                HostTensor* out) {
  const size_t elem = DataTypeSize(out->dtype);
  // Typed fields: count first, allocate after (the dims are untrusted).
  auto check = [&](int count, uint64_t per_element, const char* field) -> absl::Status {
    if (static_cast<uint64_t>(count) != n * per_element) {
      return Malformed(ctx,
                       absl::StrCat(what, " has ", count, " values in ", field, "; its ",
                                    std::string(DataTypeName(out->dtype)), " shape [",
                                    absl::StrJoin(out->shape, ","), "] needs ", n * per_element));
    }
    return absl::OkStatus();
  };
  switch (out->dtype) {
    case DataType::kFloat:
    case DataType::kComplex64:
      RETURN_IF_ERROR(
          check(t.float_data_size(), out->dtype == DataType::kFloat ? 1 : 2, "float_data"));
      out->data.resize(bytes);
      if (bytes) std::memcpy(out->data.data(), t.float_data().data(), bytes);
      break;
    case DataType::kDouble:
    case DataType::kComplex128:
      RETURN_IF_ERROR(
          check(t.double_data_size(), out->dtype == DataType::kDouble ? 1 : 2, "double_data"));
      out->data.resize(bytes);
      if (bytes) std::memcpy(out->data.data(), t.double_data().data(), bytes);
      break;
    case DataType::kInt64:
      RETURN_IF_ERROR(check(t.int64_data_size(), 1, "int64_data"));
      out->data.resize(bytes);
      if (bytes) std::memcpy(out->data.data(), t.int64_data().data(), bytes);
      break;
    case DataType::kUint32:
    case DataType::kUint64:
      RETURN_IF_ERROR(check(t.uint64_data_size(), 1, "uint64_data"));
      out->data.resize(bytes);
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t v = t.uint64_data(static_cast<int>(i));
        std::memcpy(out->data.data() + i * elem, &v, elem);  // low bytes: uint32 truncation
      }
      break;
    default:  // int32, int16, int8, uint16, uint8, bool, float16, bfloat16 live in int32_data
      RETURN_IF_ERROR(check(t.int32_data_size(), 1, "int32_data"));
      out->data.resize(bytes);
      for (uint64_t i = 0; i < n; ++i) {
        const int32_t v = t.int32_data(static_cast<int>(i));
        std::memcpy(out->data.data() + i * elem, &v, elem);  // low bytes (fp16 bits, int8, ...)
      }
  }
  return absl::OkStatus();
}

absl::StatusOr<HostTensor> ConvertTensor(const Context& ctx, const onnx::TensorProto& t,
                                         const std::string& what) {
  HostTensor out;
  ASSIGN_OR_RETURN(out.dtype,
                   CheckElementType(ctx.name, t.data_type(), what, /*allow_undefined=*/false));
  if (t.has_segment())
    return Unsupported(ctx, absl::StrCat(what, " is segmented, which vkserve does not support"));
  const size_t elem = DataTypeSize(out.dtype);
  out.shape.assign(t.dims().begin(), t.dims().end());
  ASSIGN_OR_RETURN(const uint64_t bytes, CheckedTensorBytes(ctx.name, out.dtype, out.shape,
                                                            ctx.options.max_tensor_bytes, what));
  const uint64_t n = bytes / elem;
  if (out.dtype == DataType::kUint2 || out.dtype == DataType::kInt2) {
    return ConvertTwoBitTensor(ctx, t, std::move(out), n, what);
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    std::vector<uint8_t> external;
    RETURN_IF_ERROR(ReadExternal(ctx, t, what, bytes, &external));
    out.data = std::move(external);
    return out;
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes) {
      return Malformed(ctx,
                       absl::StrCat(what, " has ", t.raw_data().size(), " bytes of raw_data; its ",
                                    std::string(DataTypeName(out.dtype)), " shape [",
                                    absl::StrJoin(out.shape, ","), "] needs ", bytes));
    }
    out.data.assign(t.raw_data().begin(), t.raw_data().end());
    return out;
  }
  RETURN_IF_ERROR(ConvertTypedFields(ctx, t, what, n, bytes, &out));
  return out;
}

// Converts a declared value type. `lenient`: a value with no type at all is
// accepted as kUndefined/unknown rank (subgraphs, value_info).
absl::StatusOr<TensorType> ConvertType(const Context& ctx, const onnx::ValueInfoProto& v,
                                       absl::string_view kind, bool lenient) {
  const std::string what = absl::StrCat(kind, " '", v.name(), "'");
  TensorType type;
  switch (v.type().value_case()) {
    case onnx::TypeProto::kTensorType:
      break;
    case onnx::TypeProto::VALUE_NOT_SET:
      if (lenient) return type;
      return Malformed(ctx, absl::StrCat(what, " has no type"));
    default:
      return Unsupported(ctx, absl::StrCat(what,
                                           " is not a tensor (sequence, map, optional and sparse "
                                           "values are not supported)"));
  }
  const auto& tt = v.type().tensor_type();
  ASSIGN_OR_RETURN(type.dtype, CheckElementType(ctx.name, tt.elem_type(), what, lenient));
  type.has_shape = tt.has_shape();
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& d = tt.shape().dim(i);
    Dim dim;
    if (d.has_dim_value()) {
      if (d.dim_value() < 0) {
        return Malformed(
            ctx, absl::StrCat(what, " has negative dimension ", d.dim_value(), " at axis ", i));
      }
      dim.value = d.dim_value();
    } else if (d.has_dim_param()) {
      dim.param = d.dim_param();
    }
    dim.denotation = d.denotation();
    type.shape.push_back(std::move(dim));
  }
  return type;
}

// Converts `g`. `outer` holds the names visible from enclosing graphs (empty
// for the main graph). Names read from `outer` are added to `captured`.
absl::StatusOr<Graph> ConvertGraph(const Context& ctx, const onnx::GraphProto& g, int depth,
                                   const GraphScope* outer, NameSet* captured);

// Attribute type when the file leaves it UNDEFINED (IR version 1 files).
onnx::AttributeProto::AttributeType InferAttributeType(const onnx::AttributeProto& a) {
  if (a.has_f()) return onnx::AttributeProto::FLOAT;
  if (a.has_i()) return onnx::AttributeProto::INT;
  if (a.has_s()) return onnx::AttributeProto::STRING;
  if (a.has_t()) return onnx::AttributeProto::TENSOR;
  if (a.has_g()) return onnx::AttributeProto::GRAPH;
  if (a.floats_size() > 0) return onnx::AttributeProto::FLOATS;
  if (a.ints_size() > 0) return onnx::AttributeProto::INTS;
  if (a.strings_size() > 0) return onnx::AttributeProto::STRINGS;
  if (a.tensors_size() > 0) return onnx::AttributeProto::TENSORS;
  if (a.graphs_size() > 0) return onnx::AttributeProto::GRAPHS;
  return onnx::AttributeProto::UNDEFINED;
}

// `node_what` names the node in messages ("node 'conv1'", "subgraph 'body': node 'n'").
absl::StatusOr<Attribute> ConvertAttribute(const Context& ctx, const onnx::AttributeProto& a,
                                           const std::string& node_what, int depth,
                                           const GraphScope& scope, NameSet* captured) {
  Attribute out;
  const std::string what = absl::StrCat(node_what, " attribute '", a.name(), "'");
  onnx::AttributeProto::AttributeType type = a.type();
  if (type == onnx::AttributeProto::UNDEFINED) type = InferAttributeType(a);
  auto subgraph = [&](const onnx::GraphProto& g) -> absl::Status {
    if (!ctx.options.load_subgraphs)
      return Unsupported(ctx, absl::StrCat(what, ": subgraphs are disabled"));
    ASSIGN_OR_RETURN(Graph sub, ConvertGraph(ctx, g, depth + 1, &scope, captured));
    out.graphs.push_back(std::make_shared<const Graph>(std::move(sub)));
    return absl::OkStatus();
  };
  switch (type) {
    case onnx::AttributeProto::FLOAT:
      out.type = Attribute::Type::kFloat;
      out.f = a.f();
      break;
    case onnx::AttributeProto::INT:
      out.type = Attribute::Type::kInt;
      out.i = a.i();
      break;
    case onnx::AttributeProto::STRING:
      out.type = Attribute::Type::kString;
      out.s = a.s();
      break;
    case onnx::AttributeProto::FLOATS:
      out.type = Attribute::Type::kFloats;
      out.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case onnx::AttributeProto::INTS:
      out.type = Attribute::Type::kInts;
      out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::STRINGS:
      out.type = Attribute::Type::kStrings;
      out.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case onnx::AttributeProto::TENSOR: {
      out.type = Attribute::Type::kTensor;
      ASSIGN_OR_RETURN(out.t, ConvertTensor(ctx, a.t(), absl::StrCat(what, " tensor")));
      break;
    }
    case onnx::AttributeProto::TENSORS:
      out.type = Attribute::Type::kTensors;
      for (int i = 0; i < a.tensors_size(); ++i) {
        ASSIGN_OR_RETURN(HostTensor ht,
                         ConvertTensor(ctx, a.tensors(i), absl::StrCat(what, " tensor ", i)));
        out.tensors.push_back(std::move(ht));
      }
      break;
    case onnx::AttributeProto::GRAPH:
      out.type = Attribute::Type::kGraph;
      RETURN_IF_ERROR(subgraph(a.g()));
      break;
    case onnx::AttributeProto::GRAPHS:
      out.type = Attribute::Type::kGraphs;
      for (const auto& g : a.graphs()) RETURN_IF_ERROR(subgraph(g));
      break;
    case onnx::AttributeProto::UNDEFINED:
      return Malformed(ctx, absl::StrCat(what, " has no type and no value"));
    default:  // SPARSE_TENSOR(S), TYPE_PROTO(S)
      return Unsupported(ctx, absl::StrCat(what, " has attribute type ",
                                           onnx::AttributeProto::AttributeType_Name(type),
                                           ", which vkserve does not support"));
  }
  return out;
}

absl::StatusOr<Graph> ConvertGraph(const Context& ctx, const onnx::GraphProto& g, int depth,
                                   const GraphScope* outer, NameSet* captured) {
  if (depth > ctx.options.max_subgraph_depth) {
    return Malformed(
        ctx, absl::StrCat("subgraphs nested more than ", ctx.options.max_subgraph_depth, " deep"));
  }
  GraphBuilder builder(ctx.name, ctx.opsets, depth, g.name(), outer);
  const std::string& graph_what = builder.graph_what();
  const bool lenient = depth > 0;
  if (g.sparse_initializer_size() > 0) {
    return builder.Unsupported(absl::StrCat(
        "sparse initializer '", g.sparse_initializer(0).values().name(), "' is not supported"));
  }
  for (int i = 0; i < g.initializer_size(); ++i) {
    const onnx::TensorProto& t = g.initializer(i);
    if (t.name().empty())
      return builder.Malformed(absl::StrCat("initializer #", i, " has no name"));
    ASSIGN_OR_RETURN(
        HostTensor ht,
        ConvertTensor(ctx, t, absl::StrCat(graph_what, "initializer '", t.name(), "'")));
    RETURN_IF_ERROR(builder.AddInitializer(t.name(), std::move(ht)));
  }
  for (int i = 0; i < g.input_size(); ++i) {
    const onnx::ValueInfoProto& in = g.input(i);
    if (in.name().empty())
      return builder.Malformed(absl::StrCat("graph input #", i, " has no name"));
    ASSIGN_OR_RETURN(TensorType type,
                     ConvertType(ctx, in, absl::StrCat(graph_what, "graph input"), lenient));
    RETURN_IF_ERROR(builder.AddInput({in.name(), std::move(type)}));
  }
  for (int i = 0; i < g.output_size(); ++i) {
    const onnx::ValueInfoProto& out = g.output(i);
    if (out.name().empty())
      return builder.Malformed(absl::StrCat("graph output #", i, " has no name"));
    ASSIGN_OR_RETURN(TensorType type,
                     ConvertType(ctx, out, absl::StrCat(graph_what, "graph output"), lenient));
    RETURN_IF_ERROR(builder.AddOutput({out.name(), std::move(type)}));
  }
  for (const auto& vi : g.value_info()) {  // advisory: entries we cannot use are skipped
    auto type = ConvertType(ctx, vi, "value_info", /*lenient=*/true);
    if (type.ok()) builder.AddValueInfo({vi.name(), std::move(type).value()});
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& np = g.node(i);
    const std::string label = np.name().empty() ? absl::StrCat(np.op_type(), "_", i) : np.name();
    RETURN_IF_ERROR(builder.DeclareNodeOutputs(label, {np.output().begin(), np.output().end()}));
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& np = g.node(i);
    Node node;
    node.op_type = np.op_type();
    node.domain = NormalizeDomain(np.domain());
    node.name = np.name().empty() ? absl::StrCat(np.op_type(), "_", i) : np.name();
    node.inputs.assign(np.input().begin(), np.input().end());
    node.outputs.assign(np.output().begin(), np.output().end());
    NameSet node_captured;  // outer names this node's subgraphs read
    for (const auto& a : np.attribute()) {
      if (!a.ref_attr_name().empty()) {
        return builder.Unsupported(absl::StrCat("node '", node.name, "' attribute '", a.name(),
                                                "' refers to a function attribute"));
      }
      ASSIGN_OR_RETURN(Attribute attr,
                       ConvertAttribute(ctx, a, absl::StrCat(graph_what, "node '", node.name, "'"),
                                        depth, builder.scope(), &node_captured));
      if (!node.attributes.emplace(a.name(), std::move(attr)).second) {
        return builder.Malformed(
            absl::StrCat("node '", node.name, "' has attribute '", a.name(), "' twice"));
      }
    }
    RETURN_IF_ERROR(builder.AddNode(std::move(node), node_captured, static_cast<size_t>(i)));
  }
  return builder.Finish(captured);
}

absl::StatusOr<Graph> LoadModelBytes(std::string_view bytes, const std::string& base_dir,
                                     const std::string& name, const OnnxLoadOptions& options) {
  onnx::ModelProto model;
  RETURN_IF_ERROR(ParseBytes(bytes, &model, name, "ONNX model"));
  Context ctx{name, base_dir, options, {}};
  for (const auto& op : model.opset_import()) {
    const std::string domain = NormalizeDomain(op.domain());
    if (op.version() < 0) {
      return Malformed(ctx, absl::StrCat("opset_import for domain '", op.domain(),
                                         "' has negative version ", op.version()));
    }
    auto [it, inserted] = ctx.opsets.emplace(domain, op.version());
    if (!inserted && it->second != op.version()) {
      return Malformed(
          ctx, absl::StrCat("opset_import lists domain '", op.domain(), "' twice, as versions ",
                            it->second, " and ", op.version()));
    }
  }
  if (model.opset_import_size() == 0) ctx.opsets[""] = 1;  // IR < 3 models imply opset 1
  if (!model.has_graph()) return Malformed(ctx, "the model has no graph");
  NameSet captured;
  ASSIGN_OR_RETURN(Graph graph, ConvertGraph(ctx, model.graph(), 0, nullptr, &captured));
  graph.ir_version = model.ir_version();
  graph.producer_name = model.producer_name();
  graph.producer_version = model.producer_version();
  return graph;
}

absl::StatusOr<HostTensor> ParseTensorBytes(std::string_view bytes, const std::string& name,
                                            const std::string& base_dir) {
  onnx::TensorProto tensor;
  RETURN_IF_ERROR(ParseBytes(bytes, &tensor, name, "serialized TensorProto"));
  Context ctx{name, base_dir, OnnxLoadOptions(), {}};
  return ConvertTensor(ctx, tensor, absl::StrCat("tensor '", tensor.name(), "'"));
}

std::string DirectoryOf(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

absl::StatusOr<Graph> LoadOnnxModelFromBytes(std::string_view bytes, const std::string& base_dir,
                                             const std::string& name,
                                             const OnnxLoadOptions& options) {
  return LoadWithoutExceptions<Graph>(
      name, [&] { return LoadModelBytes(bytes, base_dir, name, options); });
}

absl::StatusOr<Graph> LoadOnnxModel(const std::string& path, const OnnxLoadOptions& options) {
  return LoadWithoutExceptions<Graph>(path, [&]() -> absl::StatusOr<Graph> {
    ASSIGN_OR_RETURN(std::string bytes, ReadModelFileBytes(path));
    return LoadModelBytes(bytes, DirectoryOf(path), path, options);
  });
}

absl::StatusOr<HostTensor> ReadTensorProtoFile(const std::string& path) {
  return LoadWithoutExceptions<HostTensor>(path, [&]() -> absl::StatusOr<HostTensor> {
    ASSIGN_OR_RETURN(std::string bytes, ReadModelFileBytes(path));
    return ParseTensorBytes(bytes, path, DirectoryOf(path));
  });
}

absl::StatusOr<HostTensor> ParseTensorProto(std::string_view bytes, const std::string& name) {
  return LoadWithoutExceptions<HostTensor>(name, [&] { return ParseTensorBytes(bytes, name, ""); });
}

}  // namespace vkserve
