// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The daemon against hostile clients: shared-memory objects shrunk under a
// registered region, floods of repository load/unload calls, corrupt model
// uploads, megabyte names and handles, and what error details may reveal.
// A Server on an ephemeral loopback port, driven by a C++ gRPC client in
// this process (a SIGBUS in the server kills the test).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/grpc_service.grpc.pb.h"
#include "proto/health.grpc.pb.h"
#include "server/daemon/server.h"
#include "server/grpc/infer_request.h"
#include "tests/server/server_test_util.h"
#include "tests/testing/temp_dir.h"

namespace vkserve {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace inference;  // NOLINT: the protocol's messages
using testing::BytesToFloats;
using testing::FloatBytes;
using testing::RawRequest;

class HardeningTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    namespace fs = std::filesystem;
    dir_ = new std::string(testing::MakeTempDir("hardening_test"));
    const fs::path repo = fs::path(*dir_) / "repository";
    const std::string addone = testing::AddOneModelBytes();
    testing::WriteFile(repo / "addone/1/model.onnx", addone);
    testing::WriteFile(repo / "spare/1/model.onnx", addone);
    testing::WriteFile(repo / "corrupt/1/model.onnx", "this is not an ONNX model");
    testing::WriteFile(repo / "badconfig/1/model.onnx", addone);
    testing::WriteFile(repo / "badconfig/config.pbtxt", "max_batch_size: \"eight\"\n");

    ServerSettings settings = testing::TestServerSettings(repo.string());
    settings.startup_models = {"addone"};
    settings.max_message_bytes = 4 << 20;
    settings.allow_shared_memory = true;
    settings.trace_directory = (fs::path(*dir_) / "traces").string();
    settings.exit_timeout = absl::Seconds(10);
    auto server = Server::Start(settings);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = server->release();
    channel_ = new std::shared_ptr<grpc::Channel>(testing::UnlimitedChannel(server_->address()));
  }
  static void TearDownTestSuite() {
    delete channel_;
    delete server_;
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }

  std::unique_ptr<GRPCInferenceService::Stub> Stub() {
    return GRPCInferenceService::NewStub(*channel_);
  }

  static std::unique_ptr<grpc::ClientContext> Context() {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return ctx;
  }

  grpc::Status Infer(const ModelInferRequest& req, ModelInferResponse* resp) {
    return Stub()->ModelInfer(Context().get(), req, resp);
  }

  static void ExpectError(const grpc::Status& status, grpc::StatusCode code,
                          const std::string& text) {
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(text));
  }

  void ExpectStillServing() {
    ModelInferResponse resp;
    grpc::Status s = Infer(RawRequest("addone", "x", {1, 4}, {1, 2, 3, 4}), &resp);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(BytesToFloats(resp.raw_output_contents(0)), (std::vector<float>{2, 3, 4, 5}));
  }

  grpc::Status RegisterRegion(const std::string& name, const std::string& key, uint64_t byte_size) {
    SystemSharedMemoryRegisterRequest req;
    req.set_name(name);
    req.set_key(key);
    req.set_byte_size(byte_size);
    SystemSharedMemoryRegisterResponse r;
    return Stub()->SystemSharedMemoryRegister(Context().get(), req, &r);
  }

  static std::string* dir_;
  static Server* server_;
  static std::shared_ptr<grpc::Channel>* channel_;
};

std::string* HardeningTest::dir_ = nullptr;
Server* HardeningTest::server_ = nullptr;
std::shared_ptr<grpc::Channel>* HardeningTest::channel_ = nullptr;

// A POSIX shared-memory object of `size` bytes, unlinked on destruction.
struct ShmObject {
  explicit ShmObject(const std::string& tag, off_t size)
      : key("/vkserve_hardening_" + tag + "_" + std::to_string(getpid())) {
    fd = shm_open(key.c_str(), O_CREAT | O_RDWR, 0600);
    if (fd >= 0 && ftruncate(fd, size) != 0) fd = -1;
  }
  ~ShmObject() {
    if (fd >= 0) close(fd);
    shm_unlink(key.c_str());
  }
  off_t size() const {
    struct stat st {};
    return fstat(fd, &st) == 0 ? st.st_size : -1;
  }
  std::string key;
  int fd = -1;
};

void SetShm(google::protobuf::Map<std::string, InferParameter>* params, const std::string& region,
            int64_t byte_size, int64_t offset) {
  (*params)["shared_memory_region"].set_string_param(region);
  (*params)["shared_memory_byte_size"].set_int64_param(byte_size);
  (*params)["shared_memory_offset"].set_int64_param(offset);
}

// A client shrinks the object behind a registered region: the server must
// answer OUT_OF_RANGE naming the region (reading or writing through a
// mapping of the lost pages would raise SIGBUS and kill it) and go on.
TEST_F(HardeningTest, SharedMemoryShrunkAfterRegistrationIsAnErrorNotACrash) {
  ShmObject in_obj("in", 64), out_obj("out", 64);
  ASSERT_GE(in_obj.fd, 0);
  ASSERT_GE(out_obj.fd, 0);
  const std::vector<float> x = {1, 2, 3, 4};
  ASSERT_EQ(pwrite(in_obj.fd, x.data(), 16, 0), 16);
  ASSERT_TRUE(RegisterRegion("shrink_in", in_obj.key, 64).ok());
  ASSERT_TRUE(RegisterRegion("shrink_out", out_obj.key, 64).ok());

  ModelInferRequest from_shm;
  from_shm.set_model_name("addone");
  auto* in = from_shm.add_inputs();
  in->set_name("x");
  in->set_datatype("FP32");
  in->add_shape(1);
  in->add_shape(4);
  SetShm(in->mutable_parameters(), "shrink_in", 16, 0);
  ModelInferRequest to_shm = RawRequest("addone", "x", {1, 4}, x);
  auto* out = to_shm.add_outputs();
  out->set_name("y");
  SetShm(out->mutable_parameters(), "shrink_out", 16, 32);

  // Both work while the objects are whole.
  ModelInferResponse resp;
  grpc::Status s = Infer(from_shm, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(BytesToFloats(resp.raw_output_contents(0)), (std::vector<float>{2, 3, 4, 5}));
  ASSERT_TRUE(Infer(to_shm, &resp).ok());
  std::vector<float> y(4);
  ASSERT_EQ(pread(out_obj.fd, y.data(), 16, 32), 16);
  EXPECT_EQ(y, (std::vector<float>{2, 3, 4, 5}));

  // Shrunk to nothing, then to less than the range needs.
  for (off_t shrunk : {off_t{0}, off_t{40}}) {
    ASSERT_EQ(ftruncate(in_obj.fd, shrunk == 0 ? 0 : 8), 0);
    ASSERT_EQ(ftruncate(out_obj.fd, shrunk), 0);
    ExpectError(Infer(from_shm, &resp), grpc::StatusCode::OUT_OF_RANGE, "region 'shrink_in'");
    ExpectError(Infer(to_shm, &resp), grpc::StatusCode::OUT_OF_RANGE, "region 'shrink_out'");
    EXPECT_EQ(out_obj.size(), shrunk) << "the server grew a shrunk object";
    ExpectStillServing();
  }

  // Grown back, the registered object (the server kept it open) works again.
  ASSERT_EQ(ftruncate(in_obj.fd, 64), 0);
  ASSERT_EQ(ftruncate(out_obj.fd, 64), 0);
  ASSERT_EQ(pwrite(in_obj.fd, x.data(), 16, 0), 16);
  s = Infer(from_shm, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(BytesToFloats(resp.raw_output_contents(0)), (std::vector<float>{2, 3, 4, 5}));
  ASSERT_TRUE(Infer(to_shm, &resp).ok());
  ASSERT_EQ(pread(out_obj.fd, y.data(), 16, 32), 16);
  EXPECT_EQ(y, (std::vector<float>{2, 3, 4, 5}));

  SystemSharedMemoryUnregisterRequest ureq;  // "" = every region
  SystemSharedMemoryUnregisterResponse ur;
  ASSERT_TRUE(Stub()->SystemSharedMemoryUnregister(Context().get(), ureq, &ur).ok());
}

// What is not a regular shared-memory object is refused at registration,
// and a FIFO does not block the server in open().
TEST_F(HardeningTest, SharedMemoryKeyNamingAFifoIsRefused) {
  const std::string key = "/vkserve_hardening_fifo_" + std::to_string(getpid());
  const std::string path = "/dev/shm" + key;
  ASSERT_EQ(mkfifo(path.c_str(), 0400), 0);
  grpc::Status s = RegisterRegion("fifo", key, 16);
  unlink(path.c_str());
  EXPECT_NE(s.error_code(), grpc::StatusCode::OK);
  EXPECT_THAT(s.error_message(), HasSubstr("'fifo'"));
  ExpectStillServing();
}

// Reads "<key>: <n>" from /proc/self/status.
long ProcStatus(const std::string& key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  }
  return -1;
}

long MemoryMaps() {
  std::ifstream f("/proc/self/maps");
  long n = 0;
  for (std::string line; std::getline(f, line);) ++n;
  return n;
}

// Every load/unload call used to leave a thread that was never joined: its
// stack stayed mapped, and ~30,000 calls exhausted the process's memory
// maps. Thousands of calls must leave threads and maps as they were.
TEST_F(HardeningTest, LoadUnloadFloodLeavesThreadsAndMapsFlat) {
  auto stub = Stub();
  auto call = [&](int i) {
    grpc::Status s;
    if (i % 2 == 0) {
      RepositoryModelLoadRequest req;
      req.set_model_name("nosuch" + std::to_string(i % 7));
      RepositoryModelLoadResponse r;
      s = stub->RepositoryModelLoad(Context().get(), req, &r);
    } else {
      RepositoryModelUnloadRequest req;
      req.set_model_name("nosuch" + std::to_string(i % 7));
      RepositoryModelUnloadResponse r;
      s = stub->RepositoryModelUnload(Context().get(), req, &r);
    }
    EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
  };
  for (int i = 0; i < 200; ++i) call(i);  // gRPC's own threads and buffers settle
  const long threads = ProcStatus("Threads"), maps = MemoryMaps();
  for (int i = 0; i < 3000; ++i) call(i);
  EXPECT_LE(ProcStatus("Threads"), threads + 4);
#ifndef __SANITIZE_THREAD__  // TSan's own allocator adds mappings as it runs
  EXPECT_LE(MemoryMaps(), maps + 100);
#else
  static_cast<void>(maps);
#endif
  ExpectStillServing();
}

// A failed load leaves that model UNAVAILABLE with its reason; the server
// stays ready (it used to report not ready, and grpc.health NOT_SERVING,
// for good after one corrupt model).
TEST_F(HardeningTest, FailedLoadLeavesTheModelUnavailableAndTheServerReady) {
  auto stub = Stub();
  auto load = [&](const std::string& name) {
    RepositoryModelLoadRequest req;
    req.set_model_name(name);
    RepositoryModelLoadResponse r;
    return stub->RepositoryModelLoad(Context().get(), req, &r);
  };
  auto server_ready = [&] {
    ServerReadyResponse r;
    EXPECT_TRUE(stub->ServerReady(Context().get(), {}, &r).ok());
    return r.ready();
  };
  auto health = [&](const std::string& service) {
    auto h = grpc::health::v1::Health::NewStub(*channel_);
    grpc::health::v1::HealthCheckRequest req;
    req.set_service(service);
    grpc::health::v1::HealthCheckResponse r;
    EXPECT_TRUE(h->Check(Context().get(), req, &r).ok());
    return r.status();
  };
  auto model_ready = [&](const std::string& name) {
    ModelReadyRequest req;
    req.set_name(name);
    ModelReadyResponse r;
    EXPECT_TRUE(stub->ModelReady(Context().get(), req, &r).ok());
    return r.ready();
  };
  ASSERT_TRUE(server_ready());

  for (int attempt = 0; attempt < 2; ++attempt) {
    grpc::Status s = load("corrupt");
    EXPECT_NE(s.error_code(), grpc::StatusCode::OK);
    EXPECT_THAT(s.error_message(), HasSubstr("corrupt"));
    EXPECT_TRUE(server_ready());
    EXPECT_EQ(health(""), grpc::health::v1::HealthCheckResponse::SERVING);
    EXPECT_EQ(health("inference.GRPCInferenceService"),
              grpc::health::v1::HealthCheckResponse::SERVING);
    EXPECT_FALSE(model_ready("corrupt"));
    EXPECT_TRUE(model_ready("addone"));
    ExpectStillServing();
  }

  RepositoryIndexResponse index;
  ASSERT_TRUE(stub->RepositoryIndex(Context().get(), {}, &index).ok());
  std::map<std::string, RepositoryIndexResponse::ModelIndex> rows;
  for (const auto& m : index.models()) rows[m.name()] = m;
  ASSERT_TRUE(rows.contains("corrupt"));
  EXPECT_EQ(rows["corrupt"].state(), "UNAVAILABLE");
  EXPECT_FALSE(rows["corrupt"].reason().empty());
  EXPECT_EQ(rows["addone"].state(), "READY");

  // Another model loads and unloads beside it; the server stays ready.
  ASSERT_TRUE(load("spare").ok());
  EXPECT_TRUE(model_ready("spare"));
  RepositoryModelUnloadRequest unload;
  unload.set_model_name("spare");
  RepositoryModelUnloadResponse ur;
  ASSERT_TRUE(stub->RepositoryModelUnload(Context().get(), unload, &ur).ok());
  EXPECT_TRUE(server_ready());
}

// A client's huge name or handle is quoted as a short prefix with its
// length: the real error comes back (a message quoting it in full exceeded
// the client's metadata limit and came back as RESOURCE_EXHAUSTED).
// What a request carrying a huge client string gets: the error it would get
// with a short one, and a message that quotes the string cut ("first
// bytes… (N bytes)") rather than whole.
void ExpectShortError(const grpc::Status& s, grpc::StatusCode code, const std::string& what) {
  EXPECT_EQ(s.error_code(), code) << what << ": " << s.error_message().substr(0, 300);
  EXPECT_LT(s.error_message().size(), 600u) << what;
  EXPECT_THAT(s.error_message(), HasSubstr(" bytes)")) << what;
}

const std::string& Huge() {
  static const std::string* huge = new std::string(1 << 20, 'n');
  return *huge;
}

TEST_F(HardeningTest, HugeStringsInInferRequestsGetTheRealErrorWithAShortMessage) {
  const std::string& huge = Huge();
  using Code = grpc::StatusCode;
  const std::string handle(64 << 10, 'h');
  ModelInferResponse resp;
  const std::vector<float> x = {1, 2, 3, 4};

  ExpectShortError(Infer(RawRequest(huge, "x", {1, 4}, x), &resp), Code::NOT_FOUND, "model name");
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.set_model_version(std::string(1 << 20, '9'));
    ExpectShortError(Infer(r, &resp), Code::INVALID_ARGUMENT, "model version");
  }
  ExpectShortError(Infer(RawRequest("addone", huge, {1, 4}, x), &resp), Code::INVALID_ARGUMENT,
                   "input name");
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.add_outputs()->set_name(huge);
    ExpectShortError(Infer(r, &resp), Code::INVALID_ARGUMENT, "output name");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.mutable_inputs(0)->set_datatype(huge);
    ExpectShortError(Infer(r, &resp), Code::INVALID_ARGUMENT, "datatype");
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.clear_raw_input_contents();
    (*r.mutable_inputs(0)->mutable_parameters())[kGpuHandleParam].set_string_param(handle);
    ExpectShortError(Infer(r, &resp), Code::NOT_FOUND, "input handle");
  }
  for (const char* param : {kReadHandleParam, kReleaseHandleParam}) {
    ModelInferRequest r;
    (*r.mutable_parameters())[param].set_string_param(handle);
    ExpectShortError(Infer(r, &resp), Code::NOT_FOUND, param);
  }
  {
    ModelInferRequest r = RawRequest("addone", "x", {1, 4}, x);
    r.clear_raw_input_contents();
    SetShm(r.mutable_inputs(0)->mutable_parameters(), huge, 16, 0);
    ExpectShortError(Infer(r, &resp), Code::NOT_FOUND, "region in a request");
  }
  ExpectStillServing();
}

TEST_F(HardeningTest, HugeNamesInRegionAndModelRpcsGetTheRealErrorWithAShortMessage) {
  const std::string& huge = Huge();
  using Code = grpc::StatusCode;
  auto stub = Stub();

  {
    ShmObject obj("huge", 64);
    ExpectShortError(RegisterRegion(huge, obj.key, 64), Code::INVALID_ARGUMENT,
                     "region registered");
    SystemSharedMemoryStatusRequest sreq;
    sreq.set_name(huge);
    SystemSharedMemoryStatusResponse sr;
    ExpectShortError(stub->SystemSharedMemoryStatus(Context().get(), sreq, &sr), Code::NOT_FOUND,
                     "region status");
    SystemSharedMemoryUnregisterRequest ureq;
    ureq.set_name(huge);
    SystemSharedMemoryUnregisterResponse ur;
    ExpectShortError(stub->SystemSharedMemoryUnregister(Context().get(), ureq, &ur),
                     Code::NOT_FOUND, "unregister");
  }
  {
    ModelMetadataRequest req;
    req.set_name(huge);
    ModelMetadataResponse r;
    ExpectShortError(stub->ModelMetadata(Context().get(), req, &r), Code::NOT_FOUND, "metadata");
    ModelConfigRequest creq;
    creq.set_name(huge);
    ModelConfigResponse cr;
    ExpectShortError(stub->ModelConfig(Context().get(), creq, &cr), Code::NOT_FOUND, "config");
    ModelStatisticsRequest sreq;
    sreq.set_name(huge);
    ModelStatisticsResponse sr;
    ExpectShortError(stub->ModelStatistics(Context().get(), sreq, &sr), Code::NOT_FOUND,
                     "statistics");
    ModelReadyRequest rreq;
    rreq.set_name("addone");
    rreq.set_version(std::string(1 << 20, 'v'));
    ModelReadyResponse rr;
    ExpectShortError(stub->ModelReady(Context().get(), rreq, &rr), Code::INVALID_ARGUMENT,
                     "ready version");
  }
  {
    RepositoryModelLoadRequest lreq;
    lreq.set_model_name(huge);
    RepositoryModelLoadResponse lr;
    ExpectShortError(stub->RepositoryModelLoad(Context().get(), lreq, &lr), Code::INVALID_ARGUMENT,
                     "load");
    RepositoryModelUnloadRequest ureq;
    ureq.set_model_name(huge);
    RepositoryModelUnloadResponse ur;
    ExpectShortError(stub->RepositoryModelUnload(Context().get(), ureq, &ur), Code::NOT_FOUND,
                     "unload");
    RepositoryIndexRequest ireq;
    ireq.set_repository_name(huge);
    RepositoryIndexResponse ir;
    ExpectShortError(stub->RepositoryIndex(Context().get(), ireq, &ir), Code::NOT_FOUND, "index");
  }
  ExpectStillServing();
}

TEST_F(HardeningTest, HugeStringsInHealthSettingsAndStreamsGetTheRealErrorWithAShortMessage) {
  const std::string& huge = Huge();
  using Code = grpc::StatusCode;
  auto stub = Stub();
  const std::vector<float> x = {1, 2, 3, 4};

  {
    auto health = grpc::health::v1::Health::NewStub(*channel_);
    grpc::health::v1::HealthCheckRequest req;
    req.set_service(huge);
    grpc::health::v1::HealthCheckResponse r;
    ExpectShortError(health->Check(Context().get(), req, &r), Code::NOT_FOUND, "health");
  }
  {
    TraceSettingRequest treq;
    treq.set_model_name(huge);
    TraceSettingResponse tr;
    ExpectShortError(stub->TraceSetting(Context().get(), treq, &tr), Code::INVALID_ARGUMENT,
                     "trace model");
    TraceSettingRequest kreq;
    (*kreq.mutable_settings())[huge].add_value("1");
    ExpectShortError(stub->TraceSetting(Context().get(), kreq, &tr), Code::INVALID_ARGUMENT,
                     "trace key");
    LogSettingsRequest lreq;
    (*lreq.mutable_settings())["log_format"].set_string_param(huge);
    LogSettingsResponse lr;
    ExpectShortError(stub->LogSettings(Context().get(), lreq, &lr), Code::INVALID_ARGUMENT,
                     "log format");
  }
  {
    grpc::ClientContext ctx;
    auto stream = stub->ModelStreamInfer(&ctx);
    ASSERT_TRUE(stream->Write(RawRequest(huge, "x", {1, 4}, x)));
    stream->WritesDone();
    ModelStreamInferResponse r;
    ASSERT_TRUE(stream->Read(&r));
    EXPECT_LT(r.error_message().size(), 600u);
    EXPECT_THAT(r.error_message(), HasSubstr(" bytes)"));
    EXPECT_TRUE(stream->Finish().ok());
  }
  ExpectStillServing();
}

// Clients learn model-relative file names; the server's directories (the
// repository's, the trace directory) stay in its log.
TEST_F(HardeningTest, ClientsAreNotToldServerPaths) {
  auto stub = Stub();
  const std::string& dir = *dir_;
  auto no_server_path = [&](const std::string& text, const std::string& what) {
    EXPECT_THAT(text, Not(HasSubstr(dir))) << what;
  };
  RepositoryModelLoadRequest load;
  load.set_model_name("corrupt");
  RepositoryModelLoadResponse lr;
  grpc::Status s = stub->RepositoryModelLoad(Context().get(), load, &lr);
  EXPECT_NE(s.error_code(), grpc::StatusCode::OK);
  EXPECT_THAT(s.error_message(), HasSubstr("corrupt/1/model.onnx"));
  no_server_path(s.error_message(), "failed load");
  load.set_model_name("badconfig");
  s = stub->RepositoryModelLoad(Context().get(), load, &lr);
  EXPECT_NE(s.error_code(), grpc::StatusCode::OK);
  EXPECT_THAT(s.error_message(), HasSubstr("badconfig/config.pbtxt"));
  no_server_path(s.error_message(), "bad config");
  load.set_model_name("nosuch");
  s = stub->RepositoryModelLoad(Context().get(), load, &lr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  no_server_path(s.error_message(), "unknown model");

  RepositoryIndexResponse index;
  ASSERT_TRUE(stub->RepositoryIndex(Context().get(), {}, &index).ok());
  for (const auto& m : index.models()) no_server_path(m.reason(), "index reason of " + m.name());

  ModelInferResponse resp;
  s = Infer(RawRequest("corrupt", "x", {1, 4}, {1, 2, 3, 4}), &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  no_server_path(s.error_message(), "inference on a failed model");

  // A traced request: the trace's name in the trace directory.
  ModelInferRequest traced = RawRequest("addone", "x", {1, 4}, {1, 2, 3, 4});
  (*traced.mutable_parameters())[kTraceParam].set_bool_param(true);
  ASSERT_TRUE(Infer(traced, &resp).ok());
  const std::string name = resp.parameters().at(kTracePathParam).string_param();
  EXPECT_THAT(name, Not(HasSubstr("/")));
  EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::path(dir) / "traces" / name))
      << name;

  TraceSettingResponse tr;
  ASSERT_TRUE(stub->TraceSetting(Context().get(), {}, &tr).ok());
  for (const auto& [key, value] : tr.settings()) {
    for (const std::string& v : value.value()) no_server_path(v, "trace setting " + key);
  }
  TraceSettingRequest set_file;
  (*set_file.mutable_settings())["trace_file"].add_value("/tmp/elsewhere");
  s = stub->TraceSetting(Context().get(), set_file, &tr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  no_server_path(s.error_message(), "trace_file refused");
}

}  // namespace
}  // namespace vkserve
