// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/onnx_loader.h"

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
#include "gpu/status_macros.h"
#include "onnx/onnx_pb.h"

static_assert(std::endian::native == std::endian::little,
              "HostTensor data is little-endian; big-endian hosts are not supported");

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using NameSet = std::unordered_set<std::string>;

// The names visible from enclosing graphs: a chain of per-graph sets, so a
// subgraph costs nothing in the size of its enclosing graphs.
struct Scope {
  const NameSet* defined = nullptr;   // values an enclosing graph has before its nodes run
  const NameSet* produced = nullptr;  // that graph's node outputs
  const Scope* parent = nullptr;
  bool Contains(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      if ((s->defined && s->defined->count(name)) || (s->produced && s->produced->count(name))) return true;
    }
    return false;
  }
};

// The last element type vkserve's DataType knows; ONNX numbers past it
// (float8 variants, int4, ...) are valid but unsupported.
constexpr int32_t kLastKnownType = static_cast<int32_t>(DataType::kBFloat16);

struct Context {
  std::string name;      // the file (or caller-given name) for messages
  std::string base_dir;  // for external data; empty = refused
  OnnxLoadOptions options;
  std::map<std::string, int64_t> opsets;  // normalized domain -> version
};

absl::Status Malformed(const Context& ctx, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.name, ": ", what));
}

absl::Status Unsupported(const Context& ctx, absl::string_view what) {
  return absl::UnimplementedError(absl::StrCat(ctx.name, ": ", what));
}

std::string NormalizeDomain(const std::string& domain) { return domain == "ai.onnx" ? "" : domain; }

// Parses protobuf bytes without exceptions escaping and without silently
// truncating inputs over 2 GiB (CodedInputStream takes an int size).
absl::Status ParseBytes(std::string_view bytes, google::protobuf::MessageLite* message,
                        const std::string& name, absl::string_view kind) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": ", bytes.size(), " bytes is over protobuf's 2 GiB limit (store weights as external data)"));
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
    return absl::InvalidArgumentError(absl::StrCat(name, ": not a valid ", kind, " (", e.what(), ")"));
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": not a valid ", kind, " (protobuf parse failed)"));
  }
  return absl::OkStatus();
}

// Reads a whole regular file. NOT_FOUND when it does not exist.
absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  if (!fs::is_regular_file(st)) return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return absl::NotFoundError(absl::StrCat(path, ": cannot stat: ", ec.message()));
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string data(static_cast<size_t>(size), '\0');
  in.read(data.data(), static_cast<std::streamsize>(size));
  if (static_cast<uintmax_t>(in.gcount()) != size) {
    return absl::DataLossError(absl::StrCat(path, ": short read"));
  }
  return data;
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
    return Malformed(ctx, absl::StrCat(what, " has external data ('", location,
                                       "'), which is not allowed here (load the model from a file)"));
  }
  if (location.empty()) return Malformed(ctx, absl::StrCat(what, ": external data has no location"));
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
    return Malformed(ctx, absl::StrCat(what, ": external data length ", length, " but its shape needs ",
                                       expected, " bytes"));
  }
  const fs::path path = fs::path(ctx.base_dir) / rel;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    return absl::NotFoundError(absl::StrCat(ctx.name, ": ", what, ": external data file ", path.string(),
                                            " does not exist"));
  }
  if (!fs::is_regular_file(st)) {
    return Malformed(ctx, absl::StrCat(what, ": external data ", path.string(), " is not a regular file"));
  }
  // Symbolic links must not lead outside the model's directory either.
  const fs::path real_base = fs::weakly_canonical(fs::path(ctx.base_dir), ec);
  const fs::path real_file = ec ? fs::path() : fs::weakly_canonical(path, ec);
  if (ec) return Malformed(ctx, absl::StrCat(what, ": cannot resolve ", path.string(), ": ", ec.message()));
  const auto mismatch = std::mismatch(real_base.begin(), real_base.end(), real_file.begin(), real_file.end());
  if (mismatch.first != real_base.end()) {
    return Malformed(ctx, absl::StrCat(what, ": external data ", path.string(),
                                       " resolves outside the model's directory"));
  }
  const uintmax_t file_size = fs::file_size(path, ec);
  if (ec) return absl::NotFoundError(absl::StrCat(ctx.name, ": ", what, ": cannot stat ", path.string()));
  if (offset > file_size || expected > file_size - offset) {
    return Malformed(ctx, absl::StrCat(what, ": external data [", offset, ", ", offset, "+", expected,
                                       ") lies outside ", path.string(), " (", file_size, " bytes)"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(ctx.name, ": ", what, ": cannot open ", path.string()));
  out->resize(static_cast<size_t>(expected));
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(out->data()), static_cast<std::streamsize>(expected));
  if (static_cast<uint64_t>(in.gcount()) != expected) {
    return absl::DataLossError(absl::StrCat(ctx.name, ": ", what, ": short read from ", path.string()));
  }
  return absl::OkStatus();
}

// Checks an element type number for a tensor or value called `what`.
absl::StatusOr<DataType> CheckElementType(const Context& ctx, int32_t type, const std::string& what,
                                          bool allow_undefined) {
  if (type == static_cast<int32_t>(DataType::kUndefined)) {
    if (allow_undefined) return DataType::kUndefined;
    return Malformed(ctx, absl::StrCat(what, " has no element type (0, UNDEFINED)"));
  }
  if (type < 0) return Malformed(ctx, absl::StrCat(what, " has invalid element type ", type));
  if (type > kLastKnownType || !IsKnownDataType(type)) {
    return Unsupported(ctx, absl::StrCat(what, " has element type ", type, ", which vkserve does not support"));
  }
  if (type == static_cast<int32_t>(DataType::kString)) {
    return Unsupported(ctx, absl::StrCat(what, " has element type string (8), which vkserve does not support"));
  }
  return static_cast<DataType>(type);
}

absl::StatusOr<HostTensor> ConvertTensor(const Context& ctx, const onnx::TensorProto& t, const std::string& what) {
  HostTensor out;
  ASSIGN_OR_RETURN(out.dtype, CheckElementType(ctx, t.data_type(), what, /*allow_undefined=*/false));
  if (t.has_segment()) return Unsupported(ctx, absl::StrCat(what, " is segmented, which vkserve does not support"));
  const size_t elem = DataTypeSize(out.dtype);
  // Element count and byte size, refusing overflow and oversized tensors.
  const uint64_t max_bytes = ctx.options.max_tensor_bytes;
  uint64_t n = 1;
  bool zero = false;
  for (int64_t d : t.dims()) {
    if (d < 0) return Malformed(ctx, absl::StrCat(what, " has negative dimension ", d));
    out.shape.push_back(d);
    if (d == 0) zero = true;
    if (zero) continue;
    if (static_cast<uint64_t>(d) > max_bytes / elem / n) {
      return Malformed(ctx, absl::StrCat(what, " is larger than ", max_bytes, " bytes"));
    }
    n *= static_cast<uint64_t>(d);
  }
  if (zero) n = 0;
  const uint64_t bytes = n * elem;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    RETURN_IF_ERROR(ReadExternal(ctx, t, what, bytes, &out.data));
    return out;
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes) {
      return Malformed(ctx, absl::StrCat(what, " has ", t.raw_data().size(), " bytes of raw_data; its ",
                                         std::string(DataTypeName(out.dtype)), " shape [",
                                         absl::StrJoin(out.shape, ","), "] needs ", bytes));
    }
    out.data.assign(t.raw_data().begin(), t.raw_data().end());
    return out;
  }
  // Typed fields: count first, allocate after (the dims are untrusted).
  auto check = [&](int count, uint64_t per_element, const char* field) -> absl::Status {
    if (static_cast<uint64_t>(count) != n * per_element) {
      return Malformed(ctx, absl::StrCat(what, " has ", count, " values in ", field, "; its ",
                                         std::string(DataTypeName(out.dtype)), " shape [",
                                         absl::StrJoin(out.shape, ","), "] needs ", n * per_element));
    }
    return absl::OkStatus();
  };
  switch (out.dtype) {
    case DataType::kFloat:
    case DataType::kComplex64:
      RETURN_IF_ERROR(check(t.float_data_size(), out.dtype == DataType::kFloat ? 1 : 2, "float_data"));
      out.data.resize(bytes);
      if (bytes) std::memcpy(out.data.data(), t.float_data().data(), bytes);
      break;
    case DataType::kDouble:
    case DataType::kComplex128:
      RETURN_IF_ERROR(check(t.double_data_size(), out.dtype == DataType::kDouble ? 1 : 2, "double_data"));
      out.data.resize(bytes);
      if (bytes) std::memcpy(out.data.data(), t.double_data().data(), bytes);
      break;
    case DataType::kInt64:
      RETURN_IF_ERROR(check(t.int64_data_size(), 1, "int64_data"));
      out.data.resize(bytes);
      if (bytes) std::memcpy(out.data.data(), t.int64_data().data(), bytes);
      break;
    case DataType::kUint32:
    case DataType::kUint64:
      RETURN_IF_ERROR(check(t.uint64_data_size(), 1, "uint64_data"));
      out.data.resize(bytes);
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t v = t.uint64_data(static_cast<int>(i));
        std::memcpy(out.data.data() + i * elem, &v, elem);  // low bytes: uint32 truncation
      }
      break;
    default:  // int32, int16, int8, uint16, uint8, bool, float16, bfloat16 live in int32_data
      RETURN_IF_ERROR(check(t.int32_data_size(), 1, "int32_data"));
      out.data.resize(bytes);
      for (uint64_t i = 0; i < n; ++i) {
        const int32_t v = t.int32_data(static_cast<int>(i));
        std::memcpy(out.data.data() + i * elem, &v, elem);  // low bytes (fp16 bits, int8, ...)
      }
  }
  return out;
}

// Converts a declared value type. `lenient`: a value with no type at all is
// accepted as kUndefined/unknown rank (subgraphs, value_info).
absl::StatusOr<TensorType> ConvertType(const Context& ctx, const onnx::ValueInfoProto& v, absl::string_view kind,
                                       bool lenient) {
  const std::string what = absl::StrCat(kind, " '", v.name(), "'");
  TensorType type;
  switch (v.type().value_case()) {
    case onnx::TypeProto::kTensorType:
      break;
    case onnx::TypeProto::VALUE_NOT_SET:
      if (lenient) return type;
      return Malformed(ctx, absl::StrCat(what, " has no type"));
    default:
      return Unsupported(ctx, absl::StrCat(what, " is not a tensor (sequence, map, optional and sparse "
                                           "values are not supported)"));
  }
  const auto& tt = v.type().tensor_type();
  ASSIGN_OR_RETURN(type.dtype, CheckElementType(ctx, tt.elem_type(), what, lenient));
  type.has_shape = tt.has_shape();
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& d = tt.shape().dim(i);
    Dim dim;
    if (d.has_dim_value()) {
      if (d.dim_value() < 0) {
        return Malformed(ctx, absl::StrCat(what, " has negative dimension ", d.dim_value(), " at axis ", i));
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
absl::StatusOr<Graph> ConvertGraph(const Context& ctx, const onnx::GraphProto& g, int depth, const Scope& outer,
                                   NameSet* captured);

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
                                           const std::string& node_what, int depth, const Scope& scope,
                                           NameSet* captured) {
  Attribute out;
  const std::string what = absl::StrCat(node_what, " attribute '", a.name(), "'");
  onnx::AttributeProto::AttributeType type = a.type();
  if (type == onnx::AttributeProto::UNDEFINED) type = InferAttributeType(a);
  auto subgraph = [&](const onnx::GraphProto& g) -> absl::Status {
    if (!ctx.options.load_subgraphs) return Unsupported(ctx, absl::StrCat(what, ": subgraphs are disabled"));
    ASSIGN_OR_RETURN(Graph sub, ConvertGraph(ctx, g, depth + 1, scope, captured));
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
        ASSIGN_OR_RETURN(HostTensor ht, ConvertTensor(ctx, a.tensors(i), absl::StrCat(what, " tensor ", i)));
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

// Topologically sorts `nodes` (stable: a sorted file keeps its order).
// `deps[i]` are the values node i reads, including names its subgraphs
// capture; `defined(name)` is true for values available before any node runs.
template <typename Defined>
absl::StatusOr<std::vector<Node>> SortNodes(const Context& ctx, std::vector<Node> nodes,
                                            const std::vector<std::vector<std::string>>& deps,
                                            const Defined& defined, absl::string_view graph_what) {
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& o : nodes[i].outputs) {
      if (!o.empty()) producer.emplace(o, i);
    }
  }
  std::vector<std::vector<size_t>> users(nodes.size());
  std::vector<size_t> pending(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& in : deps[i]) {
      if (in.empty() || defined(in)) continue;
      auto p = producer.find(in);
      if (p == producer.end()) {
        return Malformed(ctx, absl::StrCat(graph_what, "node '", nodes[i].name, "' (", nodes[i].op_type, ") reads '",
                                           in, "', which is not a graph input, an initializer or a node output"));
      }
      users[p->second].push_back(i);
      ++pending[i];
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<bool> placed(nodes.size(), false);
  std::vector<size_t> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    placed[i] = true;
    order.push_back(i);
    for (size_t u : users[i]) {
      if (--pending[u] == 0) ready.push(u);
    }
  }
  if (order.size() != nodes.size()) {
    // Walk unplaced producers from an unplaced node until one repeats: that
    // node is on a cycle.
    size_t at = 0;
    while (placed[at]) ++at;
    std::vector<size_t> seen_at(nodes.size(), SIZE_MAX);
    std::vector<size_t> path;
    std::vector<std::string> via;
    while (seen_at[at] == SIZE_MAX) {
      seen_at[at] = path.size();
      path.push_back(at);
      bool stepped = false;
      for (const std::string& in : deps[at]) {
        if (in.empty() || defined(in)) continue;
        const size_t p = producer.at(in);
        if (!placed[p]) {
          via.push_back(in);
          at = p;
          stepped = true;
          break;
        }
      }
      if (!stepped) {  // cannot happen: an unplaced node waits on an unplaced producer
        return Malformed(ctx, absl::StrCat(graph_what, "node '", nodes[at].name, "' cannot be ordered"));
      }
    }
    // "'a' reads 'x' from 'b', which reads 'y' from 'a'"
    std::string cycle = absl::StrCat("'", nodes[at].name, "'");
    for (size_t k = seen_at[at]; k < path.size(); ++k) {
      const size_t next = k + 1 < path.size() ? path[k + 1] : at;
      absl::StrAppend(&cycle, k == seen_at[at] ? " reads '" : ", which reads '", via[k], "' from '",
                      nodes[next].name, "'");
    }
    return Malformed(ctx, absl::StrCat(graph_what, "node '", nodes[at].name, "' (", nodes[at].op_type,
                                       ") is part of a cycle: ", cycle));
  }
  std::vector<Node> sorted;
  sorted.reserve(nodes.size());
  for (size_t i : order) sorted.push_back(std::move(nodes[i]));
  return sorted;
}

absl::StatusOr<Graph> ConvertGraph(const Context& ctx, const onnx::GraphProto& g, int depth, const Scope& outer,
                                   NameSet* captured) {
  if (depth > ctx.options.max_subgraph_depth) {
    return Malformed(ctx, absl::StrCat("subgraphs nested more than ", ctx.options.max_subgraph_depth, " deep"));
  }
  const std::string graph_what = depth == 0 ? "" : absl::StrCat("subgraph '", g.name(), "': ");
  const bool lenient = depth > 0;
  Graph graph;
  graph.opset_imports = ctx.opsets;
  NameSet defined;  // values of this graph available before any node runs
  if (g.sparse_initializer_size() > 0) {
    return Unsupported(ctx, absl::StrCat(graph_what, "sparse initializer '", g.sparse_initializer(0).values().name(),
                                         "' is not supported"));
  }
  for (int i = 0; i < g.initializer_size(); ++i) {
    const onnx::TensorProto& t = g.initializer(i);
    if (t.name().empty()) return Malformed(ctx, absl::StrCat(graph_what, "initializer #", i, " has no name"));
    ASSIGN_OR_RETURN(HostTensor ht, ConvertTensor(ctx, t, absl::StrCat(graph_what, "initializer '", t.name(), "'")));
    if (!graph.initializers.emplace(t.name(), std::move(ht)).second) {
      return Malformed(ctx, absl::StrCat(graph_what, "initializer '", t.name(), "' is defined twice"));
    }
    defined.insert(t.name());
  }
  for (int i = 0; i < g.input_size(); ++i) {
    const onnx::ValueInfoProto& in = g.input(i);
    if (in.name().empty()) return Malformed(ctx, absl::StrCat(graph_what, "graph input #", i, " has no name"));
    if (graph.initializers.count(in.name())) continue;  // IR < 4 style: initializers listed as inputs
    if (!defined.insert(in.name()).second) {
      return Malformed(ctx, absl::StrCat(graph_what, "graph input '", in.name(), "' is listed twice"));
    }
    ASSIGN_OR_RETURN(TensorType type, ConvertType(ctx, in, absl::StrCat(graph_what, "graph input"), lenient));
    graph.inputs.push_back({in.name(), std::move(type)});
  }
  std::set<std::string> output_names;
  for (int i = 0; i < g.output_size(); ++i) {
    const onnx::ValueInfoProto& out = g.output(i);
    if (out.name().empty()) return Malformed(ctx, absl::StrCat(graph_what, "graph output #", i, " has no name"));
    if (!output_names.insert(out.name()).second) {
      return Malformed(ctx, absl::StrCat(graph_what, "graph output '", out.name(), "' is listed twice"));
    }
    ASSIGN_OR_RETURN(TensorType type, ConvertType(ctx, out, absl::StrCat(graph_what, "graph output"), lenient));
    graph.outputs.push_back({out.name(), std::move(type)});
  }
  for (const auto& vi : g.value_info()) {  // advisory: entries we cannot use are skipped
    auto type = ConvertType(ctx, vi, "value_info", /*lenient=*/true);
    if (type.ok() && !vi.name().empty()) graph.value_info.push_back({vi.name(), std::move(type).value()});
  }

  // Node outputs are single assignments: no value is defined twice.
  NameSet produced;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& np = g.node(i);
    for (const std::string& o : np.output()) {
      if (o.empty()) continue;
      if (defined.count(o) || !produced.insert(o).second) {
        const std::string node = np.name().empty() ? absl::StrCat(np.op_type(), "_", i) : np.name();
        return Malformed(ctx, absl::StrCat(graph_what, "value '", o, "' (output of node '", node,
                                           "') is defined more than once"));
      }
    }
  }
  // Subgraphs see everything this graph and its enclosing graphs define.
  const Scope scope{&defined, &produced, &outer};

  std::vector<Node> nodes;
  std::vector<std::vector<std::string>> deps;
  nodes.reserve(static_cast<size_t>(g.node_size()));
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& np = g.node(i);
    Node node;
    node.op_type = np.op_type();
    node.domain = NormalizeDomain(np.domain());
    node.name = np.name().empty() ? absl::StrCat(np.op_type(), "_", i) : np.name();
    if (node.op_type.empty()) return Malformed(ctx, absl::StrCat(graph_what, "node #", i, " has no op_type"));
    auto opset = ctx.opsets.find(node.domain);
    if (opset == ctx.opsets.end()) {
      return Malformed(ctx, absl::StrCat(graph_what, "node '", node.name, "' (", node.op_type, ") uses domain '",
                                         node.domain.empty() ? "ai.onnx" : node.domain,
                                         "', which the model's opset_import does not list"));
    }
    node.opset = opset->second;
    node.inputs.assign(np.input().begin(), np.input().end());
    node.outputs.assign(np.output().begin(), np.output().end());
    NameSet node_captured;  // outer names this node's subgraphs read
    for (const auto& a : np.attribute()) {
      if (a.name().empty()) {
        return Malformed(ctx, absl::StrCat(graph_what, "node '", node.name, "' has an attribute with no name"));
      }
      if (a.name().rfind("_vkserve_", 0) == 0) {
        return Malformed(ctx, absl::StrCat(graph_what, "node '", node.name, "' uses reserved attribute '",
                                           a.name(), "'"));
      }
      if (!a.ref_attr_name().empty()) {
        return Unsupported(ctx, absl::StrCat(graph_what, "node '", node.name, "' attribute '", a.name(),
                                             "' refers to a function attribute"));
      }
      ASSIGN_OR_RETURN(Attribute attr,
                       ConvertAttribute(ctx, a, absl::StrCat(graph_what, "node '", node.name, "'"), depth,
                                        scope, &node_captured));
      if (!node.attributes.emplace(a.name(), std::move(attr)).second) {
        return Malformed(ctx, absl::StrCat(graph_what, "node '", node.name, "' has attribute '", a.name(), "' twice"));
      }
    }
    std::vector<std::string> node_deps = node.inputs;
    node_deps.insert(node_deps.end(), node_captured.begin(), node_captured.end());
    // Values from enclosing graphs are available up front, but are recorded
    // as captured so the enclosing graph orders its nodes by them.
    for (const std::string& in : node_deps) {
      if (in.empty() || defined.count(in) || produced.count(in)) continue;
      if (outer.Contains(in)) captured->insert(in);
    }
    deps.push_back(std::move(node_deps));
    nodes.push_back(std::move(node));
  }
  auto available = [&](const std::string& name) {
    return defined.count(name) > 0 || (!produced.count(name) && outer.Contains(name));
  };
  ASSIGN_OR_RETURN(graph.nodes, SortNodes(ctx, std::move(nodes), deps, available, graph_what));
  for (const ValueInfo& out : graph.outputs) {
    if (defined.count(out.name) || produced.count(out.name)) continue;
    if (outer.Contains(out.name)) {
      captured->insert(out.name);
      continue;
    }
    return Malformed(ctx, absl::StrCat(graph_what, "graph output '", out.name, "' is never produced"));
  }
  return graph;
}

absl::StatusOr<Graph> LoadModelBytes(std::string_view bytes, const std::string& base_dir, const std::string& name,
                                     const OnnxLoadOptions& options) {
  onnx::ModelProto model;
  RETURN_IF_ERROR(ParseBytes(bytes, &model, name, "ONNX model"));
  Context ctx{name, base_dir, options, {}};
  for (const auto& op : model.opset_import()) {
    const std::string domain = NormalizeDomain(op.domain());
    if (op.version() < 0) {
      return Malformed(ctx, absl::StrCat("opset_import for domain '", op.domain(), "' has negative version ",
                                         op.version()));
    }
    auto [it, inserted] = ctx.opsets.emplace(domain, op.version());
    if (!inserted && it->second != op.version()) {
      return Malformed(ctx, absl::StrCat("opset_import lists domain '", op.domain(), "' twice, as versions ",
                                         it->second, " and ", op.version()));
    }
  }
  if (model.opset_import_size() == 0) ctx.opsets[""] = 1;  // IR < 3 models imply opset 1
  if (!model.has_graph()) return Malformed(ctx, "the model has no graph");
  NameSet captured;
  ASSIGN_OR_RETURN(Graph graph, ConvertGraph(ctx, model.graph(), 0, Scope(), &captured));
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

// Runs `fn`, turning an allocation failure into a Status (huge but
// well-formed tensors must not take the process down).
template <typename T, typename Fn>
absl::StatusOr<T> NoThrow(const std::string& name, Fn&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(name, ": out of memory"));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(name, ": ", e.what()));
  }
}

std::string DirectoryOf(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

absl::StatusOr<Graph> LoadOnnxModelFromBytes(std::string_view bytes, const std::string& base_dir,
                                             const std::string& name, const OnnxLoadOptions& options) {
  return NoThrow<Graph>(name, [&] { return LoadModelBytes(bytes, base_dir, name, options); });
}

absl::StatusOr<Graph> LoadOnnxModel(const std::string& path, const OnnxLoadOptions& options) {
  return NoThrow<Graph>(path, [&]() -> absl::StatusOr<Graph> {
    ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
    return LoadModelBytes(bytes, DirectoryOf(path), path, options);
  });
}

absl::StatusOr<HostTensor> ReadTensorProtoFile(const std::string& path) {
  return NoThrow<HostTensor>(path, [&]() -> absl::StatusOr<HostTensor> {
    ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
    return ParseTensorBytes(bytes, path, DirectoryOf(path));
  });
}

absl::StatusOr<HostTensor> ParseTensorProto(std::string_view bytes, const std::string& name) {
  return NoThrow<HostTensor>(name, [&] { return ParseTensorBytes(bytes, name, ""); });
}

}  // namespace vkserve
