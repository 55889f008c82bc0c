// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Helpers for the end-to-end server tests: a temporary model repository
// (the example tinynet plus small generated models) and request builders.
// Not thread-safe unless noted.
#ifndef VKSERVE_TESTS_SERVER_SERVER_TEST_UTIL_H_
#define VKSERVE_TESTS_SERVER_SERVER_TEST_UTIL_H_

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "config/server_config.h"
#include "onnx/onnx_pb.h"
#include "proto/grpc_service.pb.h"

namespace vkserve::testing {

// The settings every server under test starts from: gRPC on loopback at a
// port the kernel picks, no metrics endpoint, explicit model control over
// `repository`, no pipeline cache file.
inline ServerSettings TestServerSettings(const std::string& repository) {
  ServerSettings settings;
  settings.grpc_address = "127.0.0.1";
  settings.grpc_port = 0;
  settings.metrics_enabled = false;
  settings.repository_path = repository;
  settings.model_control = ModelControlMode::kExplicit;
  settings.pipeline_cache_path = "";
  return settings;
}

// A plaintext channel to `address` with no message size limits, so tests can
// send what a hostile client would and see the server's own limit apply.
inline std::shared_ptr<grpc::Channel> UnlimitedChannel(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

// x float[N,4] -> Add(x, 1) -> y float[N,4], as ONNX bytes; with `width`
// -1 the second dimension is symbolic too ("S"): x float[N,S].
inline std::string AddOneModelBytes(int64_t width = 4) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("addone");
  auto add_io = [width](onnx::ValueInfoProto* v, const char* name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("N");
    if (width < 0) {
      t->mutable_shape()->add_dim()->set_dim_param("S");
    } else {
      t->mutable_shape()->add_dim()->set_dim_value(width);
    }
  };
  add_io(g->add_input(), "x");
  add_io(g->add_output(), "y");
  onnx::TensorProto* one = g->add_initializer();
  one->set_name("one");
  one->set_data_type(onnx::TensorProto::FLOAT);
  one->add_float_data(1.0f);
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Add");
  n->set_name("add");
  n->add_input(std::string("x"));  // (a const char* trips GCC 12's -Wrestrict when inlined)
  n->add_input(std::string("one"));
  n->add_output(std::string("y"));
  return model.SerializeAsString();
}

inline void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string FloatBytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

inline std::vector<float> BytesToFloats(const std::string& s) {
  std::vector<float> v(s.size() / sizeof(float));
  std::memcpy(v.data(), s.data(), v.size() * sizeof(float));
  return v;
}

// A ModelInferRequest with one FP32 input sent raw.
inline inference::ModelInferRequest RawRequest(const std::string& model, const std::string& input,
                                               const std::vector<int64_t>& shape,
                                               const std::vector<float>& values) {
  inference::ModelInferRequest r;
  r.set_model_name(model);
  r.set_id("test");
  auto* in = r.add_inputs();
  in->set_name(input);
  in->set_datatype("FP32");
  for (int64_t d : shape) in->add_shape(d);
  r.add_raw_input_contents(FloatBytes(values));
  return r;
}

}  // namespace vkserve::testing

#endif  // VKSERVE_TESTS_SERVER_SERVER_TEST_UTIL_H_
