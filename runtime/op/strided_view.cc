// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "runtime/op/strided_view.h"

#include <utility>

namespace vkserve {
namespace {

// A view whose dims are each a product of factors (size, stride), outermost
// first: what a Reshape merging dims of different strides leaves, which a
// later Reshape may split back.
struct Factor {
  int64_t size = 1, stride = 0;
};
struct FactoredView {
  std::vector<std::vector<Factor>> dims;
  int64_t offset = 0;
};

bool IsMovement(const Node& n) {
  if (!n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1) return false;
  const std::string& t = n.op_type;
  return t == "Reshape" || t == "Unsqueeze" || t == "Squeeze" || t == "Flatten" ||
         t == "Identity" || t == "Transpose" || (t == "Gather" && n.inputs.size() == 2);
}

// Gather's index when it is one integer known at load; `keep_dim` when the
// index tensor is [1] rather than a scalar.
std::optional<int64_t> GatherIndex(const Node& gather,
                                   const std::map<std::string, TensorDesc>& shapes,
                                   bool* keep_dim) {
  const TensorDesc* index = FindShape(shapes, gather.inputs[1]);
  if (index == nullptr || index->value == nullptr || index->value->num_elements() != 1 ||
      (index->dtype != DataType::kInt64 && index->dtype != DataType::kInt32) ||
      index->shape.size() > 1) {
    return std::nullopt;
  }
  *keep_dim = index->shape.size() == 1;
  return index->value->GetInt(0);
}

FactoredView Dense(const std::vector<int64_t>& shape) {
  FactoredView v;
  v.dims.resize(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    v.dims[d] = {{shape[d], stride}};
    stride *= shape[d];
  }
  return v;
}

// The same elements in row-major order regrouped into `shape`: the factors
// in order, a factor split where a dim boundary falls inside it.
std::optional<FactoredView> Reshape(const FactoredView& view, const std::vector<int64_t>& shape) {
  std::vector<Factor> flat;
  for (const std::vector<Factor>& dim : view.dims) {
    for (const Factor& f : dim) {
      if (f.size == 0) return std::nullopt;  // empty tensors: nothing to read
      if (f.size != 1) flat.push_back(f);
    }
  }
  FactoredView out;
  out.offset = view.offset;
  size_t next = 0;
  for (int64_t size : shape) {
    std::vector<Factor> dim;
    int64_t have = 1;
    while (have < size) {
      if (next == flat.size()) return std::nullopt;
      Factor& f = flat[next];
      if (have * f.size <= size) {
        if (size % (have * f.size) != 0) return std::nullopt;
        have *= f.size;
        dim.push_back(f);
        ++next;
        continue;
      }
      // The dim ends inside f: its outer part here, the inner part left.
      const int64_t outer = size / have;
      if (size % have != 0 || f.size % outer != 0) return std::nullopt;
      const int64_t inner = f.size / outer;
      dim.push_back({outer, f.stride * inner});
      f.size = inner;
      have = size;
    }
    if (have != size) return std::nullopt;
    out.dims.push_back(std::move(dim));
  }
  if (next != flat.size()) return std::nullopt;
  return out;
}

std::optional<FactoredView> Transpose(const FactoredView& view, const std::vector<int64_t>& perm) {
  if (perm.size() != view.dims.size()) return std::nullopt;
  FactoredView out;
  out.offset = view.offset;
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[static_cast<size_t>(p)])
      return std::nullopt;
    seen[static_cast<size_t>(p)] = true;
    out.dims.push_back(view.dims[static_cast<size_t>(p)]);
  }
  return out;
}

int64_t Size(const std::vector<Factor>& dim) {
  int64_t size = 1;
  for (const Factor& f : dim) size *= f.size;
  return size;
}

std::optional<FactoredView> Gather(const FactoredView& view, int64_t axis, int64_t index,
                                   bool keep_dim) {
  const int64_t rank = static_cast<int64_t>(view.dims.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  std::vector<Factor> dim = view.dims[static_cast<size_t>(axis)];
  if (index < 0) index += Size(dim);
  if (index < 0 || index >= Size(dim)) return std::nullopt;
  FactoredView out = view;
  // The index in mixed radix over the dim's factors, innermost first.
  for (size_t f = dim.size(); f-- > 0;) {
    out.offset += index % dim[f].size * dim[f].stride;
    index /= dim[f].size;
  }
  if (keep_dim) {
    out.dims[static_cast<size_t>(axis)] = {};
  } else {
    out.dims.erase(out.dims.begin() + axis);
  }
  return out;
}

// One stride per dim, or nullopt where a dim's factors are not one stride apart.
std::optional<StridedView> Strided(const FactoredView& view) {
  StridedView out;
  out.offset = view.offset;
  for (const std::vector<Factor>& dim : view.dims) {
    int64_t size = 1, stride = 0;
    for (size_t f = dim.size(); f-- > 0;) {
      if (dim[f].size == 1) continue;
      if (size != 1 && dim[f].stride != stride * size) return std::nullopt;
      if (size == 1) stride = dim[f].stride;
      size *= dim[f].size;
    }
    out.shape.push_back(size);
    out.strides.push_back(size == 1 ? 0 : stride);
  }
  return out;
}

}  // namespace

MovementChain MovementChainOf(const Graph& graph, const GraphUses& uses, const std::string& value,
                              const std::map<std::string, TensorDesc>& shapes) {
  MovementChain chain;
  std::string at = value;
  for (std::optional<size_t> p = uses.Producer(at); p && IsMovement(graph.nodes[*p]);
       p = uses.Producer(at)) {
    const Node& n = graph.nodes[*p];
    bool keep = false;
    if (n.op_type == "Gather" && !GatherIndex(n, shapes, &keep)) break;
    chain.nodes.push_back(*p);
    at = n.inputs[0];
    chain.roots.push_back(at);
  }
  return chain;
}

std::optional<StridedView> ViewInRoot(const Graph& graph, const MovementChain& chain, size_t depth,
                                      const std::map<std::string, TensorDesc>& shapes) {
  const TensorDesc* root = FindShape(shapes, chain.roots[depth]);
  if (root == nullptr) return std::nullopt;
  std::optional<FactoredView> view = Dense(root->shape);
  for (size_t i = depth + 1; i-- > 0 && view;) {
    const Node& n = graph.nodes[chain.nodes[i]];
    const TensorDesc* out = FindShape(shapes, n.outputs[0]);
    if (out == nullptr) return std::nullopt;
    if (n.op_type == "Transpose") {
      std::vector<int64_t> perm = n.GetInts("perm");
      if (perm.empty()) {  // the default reverses the dims
        for (size_t d = view->dims.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
      }
      view = Transpose(*view, perm);
    } else if (n.op_type == "Gather") {
      bool keep = false;
      std::optional<int64_t> index = GatherIndex(n, shapes, &keep);
      if (!index) return std::nullopt;
      view = Gather(*view, n.GetInt("axis", 0), *index, keep);
    } else {
      view = Reshape(*view, out->shape);
    }
    if (!view || view->dims.size() != out->shape.size()) return std::nullopt;
    for (size_t d = 0; d < out->shape.size(); ++d) {
      if (Size(view->dims[d]) != out->shape[d]) return std::nullopt;
    }
  }
  if (!view) return std::nullopt;
  return Strided(*view);
}

}  // namespace vkserve
