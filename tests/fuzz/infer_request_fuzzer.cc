// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// libFuzzer target: arbitrary bytes as a KServe ModelInferRequest, decoded
// the way the server decodes a client's request — model lookup, datatypes,
// shapes, raw and typed contents, parameters, shared-memory ranges, GPU
// handles — into bound inputs (PrepareInfer), or a handle request. Models are
// loaded once on the GPU (lavapipe here) from a small repository: float and
// int64 inputs, with and without a batch dimension in config. One registered
// shared-memory region lets inputs and outputs name real bytes. Every bound
// input's bytes are then read in full (ASan checks the views) and every
// shared-memory reader is called, as a run would.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnx/onnx_pb.h"
#include "proto/grpc_service.pb.h"
#include "server/grpc/infer_request.h"
#include "server/models/device_set.h"
#include "server/models/model_manager.h"
#include "server/models/resident_registry.h"
#include "server/models/shared_memory.h"
#include "spdlog/spdlog.h"
#include "tests/testing/temp_dir.h"

namespace vkserve {
namespace {

// y = x + Cast(ids) for x float[N,4] and ids int64[N,4] (or x + 1 alone).
std::string ModelBytes(bool with_ids) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("fuzz");
  auto add_io = [](onnx::ValueInfoProto* v, const char* name, int type) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    t->mutable_shape()->add_dim()->set_dim_param("N");
    t->mutable_shape()->add_dim()->set_dim_value(4);
  };
  add_io(g->add_input(), "x", onnx::TensorProto::FLOAT);
  add_io(g->add_output(), "y", onnx::TensorProto::FLOAT);
  onnx::NodeProto* add = g->add_node();
  add->set_op_type("Add");
  add->mutable_input()->Add(std::string("x"));
  add->mutable_output()->Add(std::string("y"));
  if (with_ids) {
    add_io(g->add_input(), "ids", onnx::TensorProto::INT64);
    onnx::NodeProto* cast = g->add_node();
    cast->set_op_type("Cast");
    cast->add_input("ids");
    cast->add_output("idf");
    onnx::AttributeProto* to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::FLOAT);
    add->add_input("idf");
  } else {
    onnx::TensorProto* one = g->add_initializer();
    one->set_name("one");
    one->set_data_type(onnx::TensorProto::FLOAT);
    one->add_float_data(1.0f);
    add->add_input("one");
  }
  return model.SerializeAsString();
}

struct Fixture {
  std::string dir;
  std::string shm_key;
  std::unique_ptr<DeviceSet> devices;
  std::unique_ptr<ModelManager> models;
  std::unique_ptr<ResidentRegistry> resident;
  std::unique_ptr<SharedMemoryManager> shm;
};

void Write(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

Fixture* Setup() {
  spdlog::set_level(spdlog::level::off);
  auto* f = new Fixture();
  f->dir = testing::MakeTempDir("fuzz");
  const std::filesystem::path repo = std::filesystem::path(f->dir) / "repository";
  Write(repo / "addone/1/model.onnx", ModelBytes(false));
  Write(repo / "castadd/1/model.onnx", ModelBytes(true));
  Write(repo / "batched/1/model.onnx", ModelBytes(false));
  Write(repo / "batched/config.pbtxt", "max_batch_size: 8\n");

  ServerSettings settings;
  settings.repository_path = repo.string();
  settings.pipeline_cache_path = "";
  DeviceSetOptions device_options;
  auto devices = DeviceSet::Create(device_options);
  if (!devices.ok()) std::abort();
  f->devices = *std::move(devices);
  f->models = std::make_unique<ModelManager>(f->devices.get(), settings);
  if (!f->models->LoadStartupModels().ok()) std::abort();
  f->resident = std::make_unique<ResidentRegistry>(ResidentLimits{});
  f->shm = std::make_unique<SharedMemoryManager>(true);
  f->shm_key = absl::StrCat("/vkserve_fuzz_", getpid());
  const int fd = shm_open(f->shm_key.c_str(), O_CREAT | O_RDWR, 0600);
  if (fd < 0 || ftruncate(fd, 256) != 0) std::abort();
  close(fd);
  if (!f->shm->Register("region0", f->shm_key, 0, 256).ok()) std::abort();
  // The region keeps its descriptor; the name and the repository can go, so
  // nothing is left behind however the fuzzer exits.
  shm_unlink(f->shm_key.c_str());
  std::filesystem::remove_all(f->dir);
  return f;
}

// Reads every byte a run would read from the bound inputs.
void Consume(const PreparedInfer& prepared) {
  volatile uint8_t sink = 0;
  for (const InputBinding& in : prepared.run.inputs) {
    if (const auto* bytes = std::get_if<HostBytes>(&in.source)) {
      for (uint8_t b : *bytes) sink = sink ^ b;
    } else if (const auto* reader = std::get_if<HostInputReader>(&in.source)) {
      uint64_t n = DataTypeSize(in.dtype);
      for (int64_t d : in.shape) n *= static_cast<uint64_t>(d);
      if (n > (uint64_t{1} << 20)) continue;
      std::vector<uint8_t> dst(n);
      (void)(*reader)(dst);
    }
  }
  (void)sink;
}

}  // namespace
}  // namespace vkserve

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vkserve;  // NOLINT
  static Fixture* const f = Setup();
  inference::ModelInferRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  if (IsHandleRequest(request)) {
    inference::ModelInferResponse response;
    (void)RunHandleRequest(request, *f->resident, &response);
    return 0;
  }
  auto model = f->models->Get(request.model_name(), request.model_version());
  if (!model.ok()) return 0;
  auto prepared = PrepareInfer(request, **model, *f->resident, *f->shm);
  if (prepared.ok()) Consume(**prepared);
  // VKSERVE_FUZZ_VERBOSE=1: what each input came to (seed corpus checks).
  static const bool verbose = std::getenv("VKSERVE_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "%s\n", prepared.status().ToString().substr(0, 200).c_str());
  return 0;
}
