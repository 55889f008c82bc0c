// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "config/model_repository.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxModelNameLength = 128;

// Directory entry names, sorted; entries starting with '.' are left out.
absl::StatusOr<std::vector<std::string>> ListDirectory(const fs::path& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    std::string text = absl::StrCat(dir.string(), ": ", ec.message());
    if (ec == std::errc::no_such_file_or_directory) return absl::NotFoundError(text);
    return absl::InvalidArgumentError(text);
  }
  std::vector<std::string> names;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return absl::InvalidArgumentError(absl::StrCat(dir.string(), ": ", ec.message()));
    std::string name = it->path().filename().string();
    if (!name.empty() && name[0] != '.') names.push_back(std::move(name));
  }
  if (ec) return absl::InvalidArgumentError(absl::StrCat(dir.string(), ": ", ec.message()));
  std::sort(names.begin(), names.end());
  return names;
}

bool IsDirectory(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool IsRegularFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool Exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// The model file of one version directory.
absl::StatusOr<ModelVersion> FindModelFile(const fs::path& version_dir, int64_t version,
                                           const std::string& model_filename) {
  ModelVersion v;
  v.version = version;
  auto format_of = [](const std::string& file) {
    return file.size() >= 4 && file.compare(file.size() - 4, 4, ".ort") == 0 ? ModelFormat::kOrt
                                                                             : ModelFormat::kOnnx;
  };
  if (!model_filename.empty()) {
    fs::path file = version_dir / model_filename;
    if (!IsRegularFile(file)) {
      return absl::InvalidArgumentError(absl::StrCat(file.string(),
                                                     ": no such file (default_model_filename is ",
                                                     Quoted(model_filename, '"'), ")"));
    }
    v.path = file.string();
    v.format = format_of(model_filename);
    return v;
  }
  fs::path onnx = version_dir / "model.onnx";
  fs::path ort = version_dir / "model.ort";
  bool has_onnx = IsRegularFile(onnx), has_ort = IsRegularFile(ort);
  if (has_onnx && has_ort) {
    return absl::InvalidArgumentError(absl::StrCat(
        version_dir.string(),
        ": has both model.onnx and model.ort; keep one, or choose with default_model_filename"));
  }
  if (!has_onnx && !has_ort) {
    return absl::InvalidArgumentError(
        absl::StrCat(version_dir.string(), ": no model.onnx or model.ort"));
  }
  v.path = (has_onnx ? onnx : ort).string();
  v.format = has_onnx ? ModelFormat::kOnnx : ModelFormat::kOrt;
  return v;
}

// The versions version_policy selects; `available` is ascending.
absl::StatusOr<std::vector<int64_t>> ServedVersions(const ParsedModelConfig& parsed,
                                                    const std::vector<ModelVersion>& available) {
  std::vector<int64_t> all;
  for (const ModelVersion& v : available) all.push_back(v.version);
  const auto& policy = parsed.config.version_policy();
  if (policy.has_all()) return all;
  if (policy.has_specific()) {
    std::vector<int64_t> chosen;
    for (int i = 0; i < policy.specific().versions_size(); ++i) {
      int64_t v = policy.specific().versions(i);
      if (!std::binary_search(all.begin(), all.end(), v)) {
        return parsed.source->Error(
            {{"version_policy"}, {"specific"}, {"versions", i}},
            absl::StrCat("version ", v, " has no directory in the repository"));
      }
      chosen.push_back(v);
    }
    std::sort(chosen.begin(), chosen.end());
    return chosen;
  }
  size_t n = policy.has_latest() ? policy.latest().num_versions() : 1;
  n = std::min(n, all.size());
  return std::vector<int64_t>(all.end() - static_cast<std::ptrdiff_t>(n), all.end());
}

// Fills `m` from its directory; returns why it cannot be served.
absl::Status ScanModelDirectory(RepositoryModel& m) {
  const fs::path dir(m.directory);
  absl::Status name_ok = CheckModelName(m.name);
  if (!name_ok.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(dir.string(), ": ", name_ok.message()));
  }

  fs::path config_path = dir / "config.pbtxt";
  if (Exists(config_path)) {
    m.has_config_file = true;
    absl::StatusOr<ParsedModelConfig> parsed = LoadModelConfig(config_path.string(), m.name);
    if (!parsed.ok()) return parsed.status();
    m.config = *std::move(parsed);
  } else {
    m.config = EmptyModelConfig(m.name, absl::StrCat(dir.string(), " (no config.pbtxt)"));
  }

  absl::StatusOr<std::vector<std::string>> entries = ListDirectory(dir);
  if (!entries.ok()) return entries.status();
  std::vector<std::pair<int64_t, std::string>> version_dirs;
  for (const std::string& entry : *entries) {
    if (entry == "config.pbtxt") continue;
    fs::path p = dir / entry;
    bool digits =
        std::all_of(entry.begin(), entry.end(), [](char c) { return absl::ascii_isdigit(c); });
    if (!IsDirectory(p) || !digits) {
      m.ignored.push_back(entry);
      continue;
    }
    int64_t version = 0;
    if (entry[0] == '0' || entry.size() > 18 || !absl::SimpleAtoi(entry, &version)) {
      return absl::InvalidArgumentError(absl::StrCat(
          p.string(), ": a version directory is a positive number without leading zeros"));
    }
    version_dirs.emplace_back(version, entry);
  }
  if (version_dirs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(dir.string(),
                                                   ": no version directories (expected ",
                                                   (dir / "1" / "model.onnx").string(), ")"));
  }
  std::sort(version_dirs.begin(), version_dirs.end());
  for (const auto& [version, entry] : version_dirs) {
    absl::StatusOr<ModelVersion> v =
        FindModelFile(dir / entry, version, m.config.settings.model_filename);
    if (!v.ok()) return v.status();
    m.versions.push_back(*std::move(v));
  }
  absl::StatusOr<std::vector<int64_t>> served = ServedVersions(m.config, m.versions);
  if (!served.ok()) return served.status();
  m.served_versions = *std::move(served);
  return absl::OkStatus();
}

RepositoryModel ScanOne(const fs::path& repository, const std::string& name) {
  RepositoryModel m;
  m.name = name;
  m.directory = (repository / name).string();
  m.status = ScanModelDirectory(m);
  return m;
}

absl::StatusOr<fs::path> AbsoluteDirectory(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat(path, ": ", ec.message()));
  absolute = absolute.lexically_normal();
  if (!Exists(absolute)) {
    return absl::NotFoundError(absl::StrCat(absolute.string(), ": no such directory"));
  }
  if (!IsDirectory(absolute)) {
    return absl::InvalidArgumentError(absl::StrCat(absolute.string(), ": not a directory"));
  }
  return absolute;
}

}  // namespace

const ModelVersion* RepositoryModel::FindVersion(int64_t version) const {
  for (const ModelVersion& v : versions) {
    if (v.version == version) return &v;
  }
  return nullptr;
}

absl::Status CheckModelName(std::string_view name) {
  std::string quoted = Quoted(std::string(name), '"');
  if (name.empty()) return absl::InvalidArgumentError("model names must not be empty");
  if (name.size() > kMaxModelNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(quoted, " is longer than ", kMaxModelNameLength, " characters"));
  }
  if (name[0] == '.' || name[0] == '-') {
    return absl::InvalidArgumentError(absl::StrCat(
        quoted, " is not a valid model name: it starts with '", std::string(1, name[0]), "'"));
  }
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-' && c != '.') {
      return absl::InvalidArgumentError(absl::StrCat(
          quoted, " is not a valid model name: use letters, digits, '_', '-' and '.'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Repository> ScanRepository(const std::string& path) {
  absl::StatusOr<fs::path> root = AbsoluteDirectory(path);
  if (!root.ok()) return root.status();
  absl::StatusOr<std::vector<std::string>> entries = ListDirectory(*root);
  if (!entries.ok()) return entries.status();
  Repository repository;
  repository.path = root->string();
  for (const std::string& name : *entries) {
    if (!IsDirectory(*root / name)) {
      repository.ignored.push_back(name);
      continue;
    }
    repository.models.push_back(ScanOne(*root, name));
  }
  return repository;
}

absl::StatusOr<RepositoryModel> ScanModel(const std::string& repository, const std::string& name) {
  absl::StatusOr<fs::path> root = AbsoluteDirectory(repository);
  if (!root.ok()) return root.status();
  // Refuse names that would leave the repository before touching the disk.
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(Quoted(name, '"'), " is not a model name"));
  }
  if (!IsDirectory(*root / name)) {
    return absl::NotFoundError(
        absl::StrCat("no model ", Quoted(name, '"'), " in ", root->string()));
  }
  return ScanOne(*root, name);
}

absl::Status RepositoryStatus(const Repository& repository) {
  for (const RepositoryModel& m : repository.models) {
    if (!m.status.ok()) {
      return absl::Status(m.status.code(),
                          absl::StrCat("model ", Quoted(m.name, '"'), ": ", m.status.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace vkserve
