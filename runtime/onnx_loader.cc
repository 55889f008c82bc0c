// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/onnx_loader.h"

#include <google/protobuf/io/coded_stream.h>

#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "gpu/status_macros.h"
#include "onnx/onnx_pb.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;

// Upper bound on one tensor's elements: far beyond any GPU binding, low
// enough that byte counts cannot overflow.
constexpr int64_t kMaxElements = int64_t{1} << 40;

struct Context {
  std::string name;      // for messages
  std::string base_dir;  // for external data; empty = refused
  std::map<std::string, int64_t> opsets;
};

absl::Status Malformed(const Context& ctx, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.name, ": ", what));
}

bool ParseBytes(std::string_view bytes, google::protobuf::MessageLite* message) {
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(std::min<size_t>(bytes.size(), INT_MAX)));
  stream.SetTotalBytesLimit(INT_MAX);
  return message->ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read ", path));
  return data;
}

absl::StatusOr<std::string> ReadExternal(const Context& ctx, const onnx::TensorProto& t,
                                         uint64_t expected) {
  std::string location;
  uint64_t offset = 0, length = 0;
  bool has_length = false;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(kv.value().c_str(), &end, 10);
      if (kv.value().empty() || *end != '\0') {
        return Malformed(ctx, absl::StrCat("tensor '", t.name(), "': bad external ", kv.key()));
      }
      if (kv.key() == "offset") offset = v; else { length = v; has_length = true; }
    }
  }
  if (ctx.base_dir.empty()) {
    return Malformed(ctx, absl::StrCat("tensor '", t.name(), "' has external data, but the model was not loaded from a file"));
  }
  const fs::path rel(location);
  if (location.empty() || rel.is_absolute()) {
    return Malformed(ctx, absl::StrCat("tensor '", t.name(), "': external data location '", location, "' must be a relative path"));
  }
  for (const auto& part : rel) {
    if (part == "..") {
      return Malformed(ctx, absl::StrCat("tensor '", t.name(), "': external data location '", location, "' leaves the model directory"));
    }
  }
  if (has_length && length != expected) {
    return Malformed(ctx, absl::StrCat("tensor '", t.name(), "': external length ", length, " but shape needs ", expected, " bytes"));
  }
  const fs::path path = fs::path(ctx.base_dir) / rel;
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(ctx.name, ": tensor '", t.name(), "': cannot open external data ", path.string()));
  in.seekg(0, std::ios::end);
  const uint64_t file_size = static_cast<uint64_t>(in.tellg());
  if (offset > file_size || expected > file_size - offset) {
    return Malformed(ctx, absl::StrCat("tensor '", t.name(), "': external data [", offset, ", +", expected, ") exceeds ", path.string(), " (", file_size, " bytes)"));
  }
  std::string data(expected, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(data.data(), static_cast<std::streamsize>(expected));
  if (!in) return absl::DataLossError(absl::StrCat(ctx.name, ": reading ", path.string(), " failed"));
  return data;
}

absl::StatusOr<HostTensor> ConvertTensor(const Context& ctx, const onnx::TensorProto& t) {
  const std::string what = absl::StrCat("tensor '", t.name(), "'");
  if (!IsKnownDataType(t.data_type())) {
    return absl::UnimplementedError(absl::StrCat(ctx.name, ": ", what, " has unsupported element type ", t.data_type()));
  }
  HostTensor out;
  out.dtype = static_cast<DataType>(t.data_type());
  if (out.dtype == DataType::kString || out.dtype == DataType::kUndefined) {
    return absl::UnimplementedError(absl::StrCat(ctx.name, ": ", what, " has type ", std::string(DataTypeName(out.dtype)), ", which vkserve does not support"));
  }
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) return Malformed(ctx, absl::StrCat(what, " has a negative dimension"));
    if (d > 0 && n > kMaxElements / d) return Malformed(ctx, absl::StrCat(what, " is too large"));
    n *= d;
    out.shape.push_back(d);
  }
  const size_t elem = DataTypeSize(out.dtype);
  const uint64_t bytes = static_cast<uint64_t>(n) * elem;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    ASSIGN_OR_RETURN(std::string data, ReadExternal(ctx, t, bytes));
    out.data.assign(data.begin(), data.end());
    return out;
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes) {
      return Malformed(ctx, absl::StrCat(what, " has ", t.raw_data().size(), " bytes of raw data; its shape needs ", bytes));
    }
    out.data.assign(t.raw_data().begin(), t.raw_data().end());
    return out;
  }
  out.data.resize(bytes);
  auto check = [&](int count, int per_element) -> absl::Status {
    if (static_cast<int64_t>(count) != n * per_element) {
      return Malformed(ctx, absl::StrCat(what, " has ", count, " values; its shape needs ", n * per_element));
    }
    return absl::OkStatus();
  };
  uint8_t* p = out.data.data();
  switch (out.dtype) {
    case DataType::kFloat:
      RETURN_IF_ERROR(check(t.float_data_size(), 1));
      if (n) std::memcpy(p, t.float_data().data(), bytes);
      break;
    case DataType::kComplex64:
      RETURN_IF_ERROR(check(t.float_data_size(), 2));
      if (n) std::memcpy(p, t.float_data().data(), bytes);
      break;
    case DataType::kDouble:
      RETURN_IF_ERROR(check(t.double_data_size(), 1));
      if (n) std::memcpy(p, t.double_data().data(), bytes);
      break;
    case DataType::kComplex128:
      RETURN_IF_ERROR(check(t.double_data_size(), 2));
      if (n) std::memcpy(p, t.double_data().data(), bytes);
      break;
    case DataType::kInt64:
      RETURN_IF_ERROR(check(t.int64_data_size(), 1));
      if (n) std::memcpy(p, t.int64_data().data(), bytes);
      break;
    case DataType::kUint32:
    case DataType::kUint64:
      RETURN_IF_ERROR(check(t.uint64_data_size(), 1));
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t v = t.uint64_data(static_cast<int>(i));
        std::memcpy(p + i * elem, &v, elem);  // little-endian truncation for uint32
      }
      break;
    default:  // int32, int16, int8, uint16, uint8, bool, float16, bfloat16: int32_data
      RETURN_IF_ERROR(check(t.int32_data_size(), 1));
      for (int64_t i = 0; i < n; ++i) {
        const int32_t v = t.int32_data(static_cast<int>(i));
        std::memcpy(p + i * elem, &v, elem);
      }
  }
  return out;
}

absl::StatusOr<TensorType> ConvertType(const Context& ctx, const onnx::ValueInfoProto& v) {
  if (!v.type().has_tensor_type()) {
    return absl::UnimplementedError(absl::StrCat(ctx.name, ": value '", v.name(), "' is not a tensor (sequences, maps and optionals are not supported)"));
  }
  const auto& tt = v.type().tensor_type();
  TensorType type;
  if (!IsKnownDataType(tt.elem_type())) {
    return absl::UnimplementedError(absl::StrCat(ctx.name, ": value '", v.name(), "' has unsupported element type ", tt.elem_type()));
  }
  type.dtype = static_cast<DataType>(tt.elem_type());
  type.has_shape = tt.has_shape();
  for (const auto& d : tt.shape().dim()) {
    Dim dim;
    if (d.has_dim_value()) {
      if (d.dim_value() < 0) return Malformed(ctx, absl::StrCat("value '", v.name(), "' has a negative dimension"));
      dim.value = d.dim_value();
    } else {
      dim.param = d.dim_param();
    }
    dim.denotation = d.denotation();
    type.shape.push_back(std::move(dim));
  }
  return type;
}

absl::StatusOr<Graph> ConvertGraph(const Context& ctx, const onnx::GraphProto& g, int depth);

absl::StatusOr<Attribute> ConvertAttribute(const Context& ctx, const onnx::AttributeProto& a,
                                           const std::string& node, int depth) {
  Attribute out;
  const std::string what = absl::StrCat("node '", node, "' attribute '", a.name(), "'");
  switch (a.type()) {
    case onnx::AttributeProto::FLOAT: out.type = Attribute::Type::kFloat; out.f = a.f(); break;
    case onnx::AttributeProto::INT: out.type = Attribute::Type::kInt; out.i = a.i(); break;
    case onnx::AttributeProto::STRING: out.type = Attribute::Type::kString; out.s = a.s(); break;
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
      ASSIGN_OR_RETURN(out.t, ConvertTensor(ctx, a.t()));
      break;
    }
    case onnx::AttributeProto::TENSORS:
      out.type = Attribute::Type::kTensors;
      for (const auto& t : a.tensors()) {
        ASSIGN_OR_RETURN(HostTensor ht, ConvertTensor(ctx, t));
        out.tensors.push_back(std::move(ht));
      }
      break;
    case onnx::AttributeProto::GRAPH: {
      out.type = Attribute::Type::kGraph;
      ASSIGN_OR_RETURN(Graph sub, ConvertGraph(ctx, a.g(), depth + 1));
      out.graphs.push_back(std::make_shared<const Graph>(std::move(sub)));
      break;
    }
    case onnx::AttributeProto::GRAPHS:
      out.type = Attribute::Type::kGraphs;
      for (const auto& g : a.graphs()) {
        ASSIGN_OR_RETURN(Graph sub, ConvertGraph(ctx, g, depth + 1));
        out.graphs.push_back(std::make_shared<const Graph>(std::move(sub)));
      }
      break;
    default:
      return absl::UnimplementedError(absl::StrCat(ctx.name, ": ", what, " has unsupported attribute type ", static_cast<int>(a.type())));
  }
  return out;
}

absl::StatusOr<Graph> ConvertGraph(const Context& ctx, const onnx::GraphProto& g, int depth) {
  if (depth > 16) return Malformed(ctx, "subgraphs nested too deeply");
  Graph graph;
  graph.opset_imports = ctx.opsets;
  std::set<std::string> defined;
  for (const auto& t : g.initializer()) {
    if (t.name().empty()) return Malformed(ctx, "an initializer has no name");
    ASSIGN_OR_RETURN(HostTensor ht, ConvertTensor(ctx, t));
    if (!graph.initializers.emplace(t.name(), std::move(ht)).second) {
      return Malformed(ctx, absl::StrCat("initializer '", t.name(), "' is defined twice"));
    }
    defined.insert(t.name());
  }
  if (g.sparse_initializer_size() > 0) {
    return absl::UnimplementedError(absl::StrCat(ctx.name, ": sparse initializers are not supported"));
  }
  for (const auto& in : g.input()) {
    if (graph.initializers.count(in.name())) continue;  // IR < 4: initializers listed as inputs
    if (in.name().empty()) return Malformed(ctx, "a graph input has no name");
    if (!defined.insert(in.name()).second) {
      return Malformed(ctx, absl::StrCat("graph input '", in.name(), "' is defined twice"));
    }
    ASSIGN_OR_RETURN(TensorType type, ConvertType(ctx, in));
    graph.inputs.push_back({in.name(), std::move(type)});
  }
  for (const auto& out : g.output()) {
    ASSIGN_OR_RETURN(TensorType type, ConvertType(ctx, out));
    graph.outputs.push_back({out.name(), std::move(type)});
  }
  for (const auto& vi : g.value_info()) {
    auto type = ConvertType(ctx, vi);
    if (type.ok()) graph.value_info.push_back({vi.name(), std::move(type).value()});
  }

  // Nodes, then a topological sort (files need not be sorted, but must be acyclic).
  std::vector<Node> nodes;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& np = g.node(i);
    Node node;
    node.op_type = np.op_type();
    node.domain = np.domain() == "ai.onnx" ? "" : np.domain();
    node.name = np.name().empty() ? absl::StrCat(np.op_type(), "_", i) : np.name();
    if (node.op_type.empty()) return Malformed(ctx, absl::StrCat("node '", node.name, "' has no op_type"));
    auto opset = ctx.opsets.find(node.domain);
    if (opset == ctx.opsets.end()) {
      return Malformed(ctx, absl::StrCat("node '", node.name, "' (", node.op_type, ") uses domain '", node.domain.empty() ? "ai.onnx" : node.domain, "', which the model does not import"));
    }
    node.opset = opset->second;
    node.inputs.assign(np.input().begin(), np.input().end());
    node.outputs.assign(np.output().begin(), np.output().end());
    for (const auto& a : np.attribute()) {
      if (a.name().rfind("_vkserve_", 0) == 0) {
        return Malformed(ctx, absl::StrCat("node '", node.name, "' uses reserved attribute '", a.name(), "'"));
      }
      if (!a.ref_attr_name().empty()) {
        return absl::UnimplementedError(absl::StrCat(ctx.name, ": node '", node.name, "' attribute '", a.name(), "' refers to a function attribute"));
      }
      ASSIGN_OR_RETURN(Attribute attr, ConvertAttribute(ctx, a, node.name, depth));
      if (!node.attributes.emplace(a.name(), std::move(attr)).second) {
        return Malformed(ctx, absl::StrCat("node '", node.name, "' has attribute '", a.name(), "' twice"));
      }
    }
    nodes.push_back(std::move(node));
  }
  std::set<std::string> produced;
  for (const Node& n : nodes) {
    for (const std::string& o : n.outputs) {
      if (o.empty()) continue;
      if (defined.count(o) || !produced.insert(o).second) {
        return Malformed(ctx, absl::StrCat("value '", o, "' (output of node '", n.name, "') is defined more than once"));
      }
    }
  }
  std::vector<bool> placed(nodes.size(), false);
  size_t remaining = nodes.size();
  while (remaining > 0) {
    bool progress = false;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (placed[i]) continue;
      bool ready = true;
      for (const std::string& in : nodes[i].inputs) {
        if (!in.empty() && !defined.count(in)) { ready = false; break; }
      }
      // Subgraph nodes may read outer-scope values; only the main graph is checked strictly.
      if (!ready && depth == 0) continue;
      placed[i] = true;
      --remaining;
      progress = true;
      for (const std::string& o : nodes[i].outputs) if (!o.empty()) defined.insert(o);
      graph.nodes.push_back(nodes[i]);
    }
    if (!progress) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (placed[i]) continue;
        for (const std::string& in : nodes[i].inputs) {
          if (in.empty() || defined.count(in)) continue;
          const bool dangling = !produced.count(in);
          return Malformed(ctx, absl::StrCat("node '", nodes[i].name, "' (", nodes[i].op_type, ") reads '", in, "', which ", dangling ? "nothing defines" : "is part of a cycle"));
        }
      }
    }
  }
  for (const ValueInfo& out : graph.outputs) {
    if (!defined.count(out.name) && depth == 0) {
      return Malformed(ctx, absl::StrCat("graph output '", out.name, "' is never produced"));
    }
  }
  return graph;
}

}  // namespace

absl::StatusOr<Graph> LoadOnnxModelFromBytes(std::string_view bytes, const std::string& base_dir,
                                             const std::string& name) {
  onnx::ModelProto model;
  if (!ParseBytes(bytes, &model)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": not a valid ONNX model (protobuf parse failed)"));
  }
  Context ctx{name, base_dir, {}};
  for (const auto& op : model.opset_import()) {
    const std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    ctx.opsets[domain] = op.version();
  }
  if (model.opset_import_size() == 0) ctx.opsets[""] = 1;  // IR < 3 models imply opset 1
  if (!model.has_graph()) return Malformed(ctx, "the model has no graph");
  ASSIGN_OR_RETURN(Graph graph, ConvertGraph(ctx, model.graph(), 0));
  graph.ir_version = model.ir_version();
  graph.producer_name = model.producer_name();
  graph.producer_version = model.producer_version();
  return graph;
}

absl::StatusOr<Graph> LoadOnnxModel(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  const std::string dir = fs::path(path).parent_path().string();
  return LoadOnnxModelFromBytes(bytes, dir.empty() ? "." : dir, path);
}

absl::StatusOr<HostTensor> ReadTensorProtoFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  onnx::TensorProto tensor;
  if (!ParseBytes(bytes, &tensor)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a serialized TensorProto"));
  }
  Context ctx{path, fs::path(path).parent_path().string(), {}};
  return ConvertTensor(ctx, tensor);
}

}  // namespace vkserve
