// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Repository scan: the example repository, models with and without
// config.pbtxt, version directories, version policies and every way a model
// directory can be wrong. Model files are placeholders: the scan never reads
// them.
#include "config/model_repository.h"

#include <string>

#include "config/server_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/config/temp_dir.h"

namespace vkserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using vkserve::testing::TempDir;

const RepositoryModel* Find(const Repository& repository, const std::string& name) {
  for (const RepositoryModel& m : repository.models) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST(ModelRepositoryTest, ExampleRepository) {
  absl::StatusOr<Repository> repository =
      ScanRepository(std::string(DefaultServerConfigDir()) + "/repository");
  ASSERT_TRUE(repository.ok()) << repository.status();
  ASSERT_EQ(repository->models.size(), 1u);
  const RepositoryModel& m = repository->models[0];
  EXPECT_EQ(m.name, "tinynet");
  EXPECT_TRUE(m.status.ok()) << m.status;
  EXPECT_TRUE(m.has_config_file);
  EXPECT_TRUE(m.config.from_file);
  EXPECT_EQ(m.config.settings.sessions, 2);
  ASSERT_EQ(m.versions.size(), 1u);
  EXPECT_EQ(m.versions[0].version, 1);
  EXPECT_EQ(m.versions[0].format, ModelFormat::kOnnx);
  EXPECT_THAT(m.versions[0].path, ::testing::EndsWith("/tinynet/1/model.onnx"));
  EXPECT_THAT(m.served_versions, ElementsAre(1));
  EXPECT_THAT(m.ignored, IsEmpty());
  EXPECT_TRUE(RepositoryStatus(*repository).ok());
}

TEST(ModelRepositoryTest, ModelsWithAndWithoutConfig) {
  TempDir dir;
  dir.Write("plain/1/model.onnx", "");
  dir.Write("plain/3/model.onnx", "");
  dir.Write("plain/2/model.ort", "");
  dir.Write("plain/labels.txt", "cat\ndog\n");
  dir.MakeDir("plain/old");
  dir.MakeDir("plain/.cache");
  dir.Write("configured/config.pbtxt", "version_policy { all {} }\ninstance_group { count: 3 }");
  dir.Write("configured/1/model.onnx", "");
  dir.Write("configured/2/model.onnx", "");
  dir.Write("README.md", "models");
  dir.MakeDir(".git");

  absl::StatusOr<Repository> repository = ScanRepository(dir.path());
  ASSERT_TRUE(repository.ok()) << repository.status();
  EXPECT_EQ(repository->path, dir.path());
  ASSERT_EQ(repository->models.size(), 2u);
  EXPECT_EQ(repository->models[0].name, "configured");  // sorted
  EXPECT_THAT(repository->ignored, ElementsAre("README.md"));

  const RepositoryModel* plain = Find(*repository, "plain");
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE(plain->status.ok()) << plain->status;
  EXPECT_FALSE(plain->has_config_file);
  EXPECT_FALSE(plain->config.from_file);
  ASSERT_EQ(plain->versions.size(), 3u);
  EXPECT_EQ(plain->versions[1].version, 2);
  EXPECT_EQ(plain->versions[1].format, ModelFormat::kOrt);
  EXPECT_EQ(plain->versions[1].path, dir.Path("plain/2/model.ort"));
  EXPECT_THAT(plain->served_versions, ElementsAre(3));  // default: the latest
  EXPECT_THAT(plain->ignored, ElementsAre("labels.txt", "old"));
  ASSERT_NE(plain->FindVersion(2), nullptr);
  EXPECT_EQ(plain->FindVersion(4), nullptr);

  const RepositoryModel* configured = Find(*repository, "configured");
  ASSERT_NE(configured, nullptr);
  EXPECT_TRUE(configured->status.ok()) << configured->status;
  EXPECT_EQ(configured->config.settings.sessions, 3);
  EXPECT_THAT(configured->served_versions, ElementsAre(1, 2));
}

TEST(ModelRepositoryTest, VersionPolicies) {
  TempDir dir;
  for (const char* v : {"1", "2", "5", "10"}) dir.Write(std::string("m/") + v + "/model.onnx", "");
  auto served = [&](const std::string& config) {
    dir.Write("m/config.pbtxt", config);
    absl::StatusOr<RepositoryModel> m = ScanModel(dir.path(), "m");
    EXPECT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(m->status.ok()) << m->status;
    return m->served_versions;
  };
  EXPECT_THAT(served(""), ElementsAre(10));  // numeric order, not string order
  EXPECT_THAT(served("version_policy { latest { num_versions: 2 } }"), ElementsAre(5, 10));
  EXPECT_THAT(served("version_policy { latest { num_versions: 9 } }"), ElementsAre(1, 2, 5, 10));
  EXPECT_THAT(served("version_policy { specific { versions: [5, 1] } }"), ElementsAre(1, 5));

  dir.Write("m/config.pbtxt", "version_policy {\n  specific { versions: [1, 3] }\n}");
  absl::StatusOr<RepositoryModel> m = ScanModel(dir.path(), "m");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Message(m->status), dir.Path("m/config.pbtxt") +
                                    ":2:14: version_policy.specific.versions[1]: version 3 has no "
                                    "directory in the repository");
}

TEST(ModelRepositoryTest, BothOnnxAndOrt) {
  TempDir dir;
  dir.Write("m/1/model.onnx", "");
  dir.Write("m/1/model.ort", "");
  absl::StatusOr<Repository> repository = ScanRepository(dir.path());
  ASSERT_TRUE(repository.ok());
  const RepositoryModel& m = repository->models[0];
  EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(m.status), dir.Path("m/1") +
                                   ": has both model.onnx and model.ort; keep one, or choose with "
                                   "default_model_filename");
  EXPECT_EQ(Message(RepositoryStatus(*repository)), "model \"m\": " + Message(m.status));

  // default_model_filename chooses.
  dir.Write("m/config.pbtxt", "default_model_filename: \"model.ort\"");
  absl::StatusOr<RepositoryModel> chosen = ScanModel(dir.path(), "m");
  ASSERT_TRUE(chosen.ok());
  ASSERT_TRUE(chosen->status.ok()) << chosen->status;
  EXPECT_EQ(chosen->versions[0].format, ModelFormat::kOrt);
  EXPECT_EQ(chosen->versions[0].path, dir.Path("m/1/model.ort"));
}

TEST(ModelRepositoryTest, DefaultModelFilename) {
  TempDir dir;
  dir.Write("m/config.pbtxt", "default_model_filename: \"resnet.onnx\"");
  dir.Write("m/1/resnet.onnx", "");
  dir.Write("m/2/model.onnx", "");
  absl::StatusOr<RepositoryModel> m = ScanModel(dir.path(), "m");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Message(m->status), dir.Path("m/2/resnet.onnx") +
                                    ": no such file (default_model_filename is \"resnet.onnx\")");
}

TEST(ModelRepositoryTest, MissingVersionsAndModelFiles) {
  TempDir dir;
  dir.Write("noversions/config.pbtxt", "");
  dir.MakeDir("noversions/latest");
  dir.MakeDir("empty/1");
  dir.Write("wrongname/1/model.bin", "");
  absl::StatusOr<Repository> repository = ScanRepository(dir.path());
  ASSERT_TRUE(repository.ok());
  EXPECT_EQ(Message(Find(*repository, "noversions")->status),
            dir.Path("noversions") + ": no version directories (expected " +
                dir.Path("noversions/1/model.onnx") + ")");
  EXPECT_EQ(Message(Find(*repository, "empty")->status),
            dir.Path("empty/1") + ": no model.onnx or model.ort");
  EXPECT_EQ(Message(Find(*repository, "wrongname")->status),
            dir.Path("wrongname/1") + ": no model.onnx or model.ort");
  EXPECT_EQ(Message(RepositoryStatus(*repository)),
            "model \"empty\": " + dir.Path("empty/1") + ": no model.onnx or model.ort");
}

TEST(ModelRepositoryTest, BadVersionDirectories) {
  TempDir dir;
  dir.Write("m/01/model.onnx", "");
  absl::StatusOr<RepositoryModel> m = ScanModel(dir.path(), "m");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Message(m->status),
            dir.Path("m/01") + ": a version directory is a positive number without leading zeros");
  TempDir zero;
  zero.Write("m/0/model.onnx", "");
  m = ScanModel(zero.path(), "m");
  EXPECT_THAT(Message(m->status), HasSubstr("m/0: a version directory is a positive number"));
  TempDir huge;
  huge.Write("m/99999999999999999999/model.onnx", "");
  m = ScanModel(huge.path(), "m");
  EXPECT_THAT(Message(m->status), HasSubstr("a version directory is a positive number"));
}

TEST(ModelRepositoryTest, BadModelNames) {
  TempDir dir;
  dir.Write("my model/1/model.onnx", "");
  dir.Write("-dash/1/model.onnx", "");
  dir.Write("ok_name-1.v2/1/model.onnx", "");
  absl::StatusOr<Repository> repository = ScanRepository(dir.path());
  ASSERT_TRUE(repository.ok());
  EXPECT_EQ(Message(Find(*repository, "my model")->status),
            dir.Path("my model") +
                ": \"my model\" is not a valid model name: use letters, digits, '_', '-' and '.'");
  EXPECT_EQ(Message(Find(*repository, "-dash")->status),
            dir.Path("-dash") + ": \"-dash\" is not a valid model name: it starts with '-'");
  EXPECT_TRUE(Find(*repository, "ok_name-1.v2")->status.ok());
  EXPECT_TRUE(CheckModelName(std::string(128, 'a')).ok());
  EXPECT_FALSE(CheckModelName(std::string(129, 'a')).ok());
  EXPECT_FALSE(CheckModelName("").ok());
  EXPECT_FALSE(CheckModelName("caf\xc3\xa9").ok());
}

TEST(ModelRepositoryTest, ConfigErrorsCarryFileLineAndField) {
  TempDir dir;
  dir.Write("m/1/model.onnx", "");
  dir.Write("m/config.pbtxt", "name: \"m\"\ninstance_group {\n  count: -1\n}\n");
  dir.Write("n/1/model.onnx", "");
  dir.Write("n/config.pbtxt", "name: \"m\"\n");
  dir.Write("o/1/model.onnx", "");
  dir.MakeDir("o/config.pbtxt");
  absl::StatusOr<Repository> repository = ScanRepository(dir.path());
  ASSERT_TRUE(repository.ok());
  EXPECT_EQ(Message(Find(*repository, "m")->status),
            dir.Path("m/config.pbtxt") +
                ":3:3: instance_group[0].count: must be >= 0 (0 means 1), got -1");
  EXPECT_EQ(Message(Find(*repository, "n")->status),
            dir.Path("n/config.pbtxt") +
                ":1:1: name: \"m\" does not match the model's directory name \"n\"");
  EXPECT_THAT(Message(Find(*repository, "o")->status), HasSubstr("o/config.pbtxt"));
}

TEST(ModelRepositoryTest, ScanModel) {
  TempDir dir;
  dir.Write("m/1/model.onnx", "");
  absl::StatusOr<RepositoryModel> m = ScanModel(dir.path(), "m");
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->status.ok());
  EXPECT_EQ(ScanModel(dir.path(), "absent").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ScanModel(dir.path(), "..").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ScanModel(dir.path(), "m/1").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ScanModel(dir.Path("nowhere"), "m").status().code(), absl::StatusCode::kNotFound);
}

TEST(ModelRepositoryTest, RepositoryItselfMissing) {
  TempDir dir;
  absl::StatusOr<Repository> missing = ScanRepository(dir.Path("nowhere"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(missing.status()), HasSubstr("nowhere"));
  dir.Write("file", "");
  EXPECT_EQ(ScanRepository(dir.Path("file")).status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<Repository> empty = ScanRepository(dir.path());
  ASSERT_TRUE(empty.ok());
  EXPECT_THAT(empty->models, IsEmpty());
}

}  // namespace
}  // namespace vkserve
