// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// .npy reading and writing against NumPy itself: files written by
// /usr/bin/python3 numpy (every supported dtype, scalars, empty arrays, format
// 2.0 and 3.0 headers, Fortran order, big-endian) are read by ReadNpy, and
// files written by WriteNpy are read back by numpy, which checks dtype, shape
// and values. Plus round trips and malformed headers. Needs no GPU.
#include "runtime/loaders/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace vkserve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// Runs a python program with numpy, with DIR set to the temporary directory.
// Returns its exit status; output goes to DIR/log.txt.
class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("vkserve_npy_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Runs `program` with `DIR` bound to the temp dir; fails the test on error.
  void Python(const std::string& program) {
    WriteAll(dir_ / "prog.py",
             "import numpy as np, os\nDIR = " + Quote(dir_.string()) + "\n" + program);
    const std::string cmd = Env("VKSERVE_PYTHON", "/usr/bin/python3") + " '" +
                            (dir_ / "prog.py").string() + "' > '" + (dir_ / "log.txt").string() +
                            "' 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadAll(dir_ / "log.txt");
  }
  static std::string Quote(const std::string& s) { return "'" + s + "'"; }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// The values numpy writes below, as the bytes vkserve must read.
template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST_F(NpyTest, ReadsEveryDtypeNumpyWrites) {
  ASSERT_NO_FATAL_FAILURE(Python(R"(
arrays = {
  'f4': np.array([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]], dtype='<f4'),
  'f8': np.array([1.0 / 3.0, -1e300], dtype='<f8'),
  'f2': np.array([1.0, -2.5, 65504.0], dtype='<f2'),
  'i8': np.array([-(2 ** 62), 5], dtype='<i8'),
  'i4': np.array([[-7], [2 ** 31 - 1]], dtype='<i4'),
  'i2': np.array([-32768, 12], dtype='<i2'),
  'i1': np.array([-128, 127], dtype='i1'),
  'u1': np.array([0, 255], dtype='u1'),
  'u2': np.array([65535], dtype='<u2'),
  'u4': np.array([4294967295, 1], dtype='<u4'),
  'u8': np.array([2 ** 64 - 1], dtype='<u8'),
  'b1': np.array([True, False, True], dtype='?'),
  'c8': np.array([1 + 2j], dtype='<c8'),
  'scalar': np.float32(2.5),
  'empty': np.zeros((0, 4), dtype='<f4'),
  'rank5': np.arange(32, dtype='<f4').reshape(1, 2, 2, 2, 4),
}
for name, a in arrays.items():
    np.save(os.path.join(DIR, name + '.npy'), a)
)"));
  struct Want {
    const char* name;
    DataType dtype;
    std::vector<int64_t> shape;
    std::vector<uint8_t> data;
  };
  const std::vector<Want> wants = {
      {"f4", DataType::kFloat, {2, 3}, Bytes<float>({1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, -7.0f})},
      {"f8", DataType::kDouble, {2}, Bytes<double>({1.0 / 3.0, -1e300})},
      {"f2", DataType::kFloat16, {3}, Bytes<uint16_t>({0x3c00, 0xc100, 0x7bff})},
      {"i8", DataType::kInt64, {2}, Bytes<int64_t>({-(int64_t{1} << 62), 5})},
      {"i4", DataType::kInt32, {2, 1}, Bytes<int32_t>({-7, 2147483647})},
      {"i2", DataType::kInt16, {2}, Bytes<int16_t>({-32768, 12})},
      {"i1", DataType::kInt8, {2}, Bytes<int8_t>({-128, 127})},
      {"u1", DataType::kUint8, {2}, Bytes<uint8_t>({0, 255})},
      {"u2", DataType::kUint16, {1}, Bytes<uint16_t>({65535})},
      {"u4", DataType::kUint32, {2}, Bytes<uint32_t>({4294967295u, 1})},
      {"u8", DataType::kUint64, {1}, Bytes<uint64_t>({~uint64_t{0}})},
      {"b1", DataType::kBool, {3}, Bytes<uint8_t>({1, 0, 1})},
      {"c8", DataType::kComplex64, {1}, Bytes<float>({1.0f, 2.0f})},
      {"scalar", DataType::kFloat, {}, Bytes<float>({2.5f})},
      {"empty", DataType::kFloat, {0, 4}, {}},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(w.name);
    absl::StatusOr<HostTensor> t = ReadNpy(Path(std::string(w.name) + ".npy"));
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype, w.dtype);
    EXPECT_EQ(t->shape, w.shape);
    EXPECT_EQ(t->data, w.data);
  }
  absl::StatusOr<HostTensor> rank5 = ReadNpy(Path("rank5.npy"));
  ASSERT_TRUE(rank5.ok()) << rank5.status();
  EXPECT_EQ(rank5->shape, (std::vector<int64_t>{1, 2, 2, 2, 4}));
  for (int i = 0; i < 32; ++i) EXPECT_EQ(rank5->GetDouble(i), i);
  EXPECT_EQ(ReadNpy(Path("f2.npy"))->GetDouble(1), -2.5);
}

TEST_F(NpyTest, ReadsFormatVersions2And3) {
  ASSERT_NO_FATAL_FAILURE(Python(R"(
from numpy.lib import format as fmt
a = np.arange(6, dtype='<i8').reshape(3, 2)
for v in [(2, 0), (3, 0)]:
    with open(os.path.join(DIR, 'v%d.npy' % v[0]), 'wb') as f:
        fmt.write_array(f, a, version=v)
)"));
  for (const char* f : {"v2.npy", "v3.npy"}) {
    SCOPED_TRACE(f);
    absl::StatusOr<HostTensor> t = ReadNpy(Path(f));
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype, DataType::kInt64);
    EXPECT_EQ(t->shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(t->ToInts(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  }
}

TEST_F(NpyTest, RefusesFortranOrderBigEndianAndObjects) {
  ASSERT_NO_FATAL_FAILURE(Python(R"(
np.save(os.path.join(DIR, 'fortran.npy'),
        np.asfortranarray(np.arange(6, dtype='<f4').reshape(2, 3)))
np.save(os.path.join(DIR, 'big.npy'), np.arange(3, dtype='>f4'))
np.save(os.path.join(DIR, 'unicode.npy'), np.array(['ab', 'c']))
np.save(os.path.join(DIR, 'structured.npy'), np.zeros(2, dtype=[('a', '<f4'), ('b', '<i4')]))
)"));
  absl::StatusOr<HostTensor> t = ReadNpy(Path("fortran.npy"));
  EXPECT_TRUE(absl::IsUnimplemented(t.status())) << t.status();
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("Fortran"));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("fortran.npy"));
  t = ReadNpy(Path("big.npy"));
  EXPECT_TRUE(absl::IsUnimplemented(t.status())) << t.status();
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("big-endian"));
  t = ReadNpy(Path("unicode.npy"));
  EXPECT_TRUE(absl::IsUnimplemented(t.status())) << t.status();
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("<U2"));
  t = ReadNpy(Path("structured.npy"));
  EXPECT_FALSE(t.ok());
}

TEST_F(NpyTest, NumpyReadsWhatWeWrite) {
  struct Case {
    const char* name;
    HostTensor tensor;
  };
  HostTensor f16;
  f16.dtype = DataType::kFloat16;
  f16.shape = {2};
  f16.data = Bytes<uint16_t>({0x3c00, 0xc100});
  HostTensor b;
  b.dtype = DataType::kBool;
  b.shape = {1, 3};
  b.data = {1, 0, 1};
  HostTensor i8;
  i8.dtype = DataType::kInt8;
  i8.shape = {2};
  i8.data = Bytes<int8_t>({-5, 100});
  HostTensor u64;
  u64.dtype = DataType::kUint64;
  u64.shape = {};
  u64.data = Bytes<uint64_t>({~uint64_t{0}});
  const std::vector<Case> cases = {
      {"f32", HostTensor::FromFloats({1.5f, -2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, {2, 3})},
      {"i64", HostTensor::FromInts({-1, 1LL << 40, 7}, {3})},
      {"empty", HostTensor::FromFloats({}, {0, 2})},
      {"scalar", HostTensor::FromInts({9}, {})},
      {"f16", f16},
      {"bool", b},
      {"i8", i8},
      {"u64", u64},
  };
  for (const Case& c : cases)
    ASSERT_TRUE(WriteNpy(c.tensor, Path(std::string(c.name) + ".npy")).ok()) << c.name;
  ASSERT_NO_FATAL_FAILURE(Python(R"(
def load(name):
    with open(os.path.join(DIR, name + '.npy'), 'rb') as f:
        head = f.read()
    hlen = int.from_bytes(head[8:10], 'little')
    assert (10 + hlen) % 64 == 0, (name, 'data not 64-byte aligned')
    return np.load(os.path.join(DIR, name + '.npy'))
def same(name, want):
    got = load(name)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert np.array_equal(got, want), (name, got, want)
    assert not np.isfortran(got) or got.ndim < 2
same('f32', np.array([[1.5, -2.0, 3.0], [4.0, 5.0, 6.0]], dtype='<f4'))
same('i64', np.array([-1, 2 ** 40, 7], dtype='<i8'))
same('empty', np.zeros((0, 2), dtype='<f4'))
same('scalar', np.array(9, dtype='<i8'))
same('f16', np.array([1.0, -2.5], dtype='<f2'))
same('bool', np.array([[True, False, True]]))
same('i8', np.array([-5, 100], dtype='i1'))
same('u64', np.array(2 ** 64 - 1, dtype='<u8'))
)"));
}

TEST_F(NpyTest, RoundTrip) {
  std::mt19937 rng(5);
  for (DataType type : {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kInt64,
                        DataType::kInt32, DataType::kInt16, DataType::kInt8, DataType::kUint8,
                        DataType::kUint16, DataType::kUint32, DataType::kUint64, DataType::kBool,
                        DataType::kComplex64, DataType::kComplex128, DataType::kBFloat16}) {
    HostTensor t;
    t.dtype = type;
    t.shape = {static_cast<int64_t>(1 + rng() % 4), static_cast<int64_t>(rng() % 5), 3};
    t.data.resize(static_cast<size_t>(t.num_elements()) * DataTypeSize(type));
    for (uint8_t& byte : t.data)
      byte = static_cast<uint8_t>(type == DataType::kBool ? rng() % 2 : rng() % 256);
    absl::StatusOr<std::string> bytes = SerializeNpy(t);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<HostTensor> back = ParseNpy(*bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->dtype, t.dtype) << DataTypeName(type);
    EXPECT_EQ(back->shape, t.shape);
    EXPECT_EQ(back->data, t.data);
  }
  // Many dimensions need a format 2.0 header; still round-trips.
  HostTensor wide = HostTensor::FromFloats({1.0f}, std::vector<int64_t>(64, 1));
  absl::StatusOr<std::string> bytes = SerializeNpy(wide);
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<HostTensor> back = ParseNpy(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape.size(), 64u);
}

// NumPy has no bfloat16: its raw 16-bit words travel as a 2-byte void. numpy
// writes '|V2' (ml_dtypes' bfloat16 '<V2'); vkserve reads both as bfloat16
// and writes '<V2', which numpy loads as void that views as '<u2'.
TEST_F(NpyTest, BFloat16AsTwoByteVoid) {
  ASSERT_NO_FATAL_FAILURE(Python(R"(
bits = (np.array([[1.0, -2.5, 3.140625]], '<f4').view('<u4') >> 16).astype('<u2')
np.save(os.path.join(DIR, 'v2.npy'), bits.view('V2'))
)"));
  absl::StatusOr<HostTensor> read = ReadNpy(Path("v2.npy"));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->dtype, DataType::kBFloat16);
  EXPECT_EQ(read->shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(read->data, Bytes<uint16_t>({0x3f80, 0xc020, 0x4049}));
  EXPECT_EQ(read->GetDouble(1), -2.5);

  HostTensor bf16;
  bf16.dtype = DataType::kBFloat16;
  bf16.shape = {2};
  bf16.data = Bytes<uint16_t>({0x3f80, 0xc020});
  ASSERT_TRUE(WriteNpy(bf16, Path("out.npy")).ok());
  ASSERT_NO_FATAL_FAILURE(Python(R"(
with open(os.path.join(DIR, 'out.npy'), 'rb') as f:
    assert b"'descr': '<V2'" in f.read(128)
a = np.load(os.path.join(DIR, 'out.npy'))
assert a.dtype.kind == 'V' and a.dtype.itemsize == 2, a.dtype
f = (a.view('<u2').astype('<u4') << 16).view('<f4')
assert f.tolist() == [1.0, -2.5], f
)"));
}

TEST(NpyWriteTest, RefusesInconsistentTensors) {
  HostTensor bad = HostTensor::FromFloats({1.0f, 2.0f}, {3});
  absl::StatusOr<std::string> s = SerializeNpy(bad);
  EXPECT_TRUE(absl::IsInvalidArgument(s.status())) << s.status();
  HostTensor str;
  str.dtype = DataType::kString;
  str.shape = {1};
  EXPECT_TRUE(absl::IsUnimplemented(SerializeNpy(str).status()));
  HostTensor neg = HostTensor::FromFloats({}, {-1});
  EXPECT_TRUE(absl::IsInvalidArgument(SerializeNpy(neg).status()));
  EXPECT_FALSE(WriteNpy(HostTensor::FromFloats({1.0f}, {1}), "/nonexistent/dir/x.npy").ok());
}

TEST(NpyParseTest, MalformedHeaders) {
  auto header = [](const std::string& dict, const std::string& data = "") {
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(dict.size() & 0xff);
    out += static_cast<char>(dict.size() >> 8);
    return out + dict + data;
  };
  const std::string four(4, '\0');
  struct Bad {
    std::string bytes;
    const char* mention;
  };
  const std::vector<Bad> bads = {
      {"", "not a .npy"},
      {"\x93NUMPX\x01\x00\x00\x00", "not a .npy"},
      {std::string("\x93NUMPY\x01\x00\xff\x00{", 11), "truncated"},
      {header("{'descr': '<f4', 'fortran_order': False}", four), "no 'shape'"},
      {header("{'descr': '<f4', 'shape': (1,)}", four), "no 'fortran_order'"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", four), "needs 8"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", four), "dimension"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", four),
       "dimension"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 2048), }", four),
       "too large"},
      {header("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", four), "True or False"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", four),
       "unexpected key"},
      {header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", four),
       "twice"},
      {header("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", four), "bad npy header"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk", four), "trailing"},
      {header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,", four), "bad npy header"},
  };
  for (const Bad& b : bads) {
    absl::StatusOr<HostTensor> t = ParseNpy(b.bytes, "bad.npy");
    ASSERT_FALSE(t.ok()) << b.bytes;
    EXPECT_TRUE(absl::IsInvalidArgument(t.status())) << t.status();
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(b.mention)) << b.bytes;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr("bad.npy"));
  }
  absl::StatusOr<HostTensor> v9 = ParseNpy(std::string("\x93NUMPY\x09\x00\x00\x00", 10), "v9.npy");
  EXPECT_TRUE(absl::IsUnimplemented(v9.status())) << v9.status();
  EXPECT_TRUE(absl::IsNotFound(ReadNpy("/nonexistent/x.npy").status()));
}

TEST(NpyParseTest, MutationsNeverCrash) {
  absl::StatusOr<std::string> seed =
      SerializeNpy(HostTensor::FromFloats({1, 2, 3, 4, 5, 6}, {2, 3}));
  ASSERT_TRUE(seed.ok());
  std::mt19937 rng(11);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string m = *seed;
    for (int e = 0; e < 1 + static_cast<int>(rng() % 3); ++e) {
      const size_t at = rng() % m.size();
      if (rng() % 4 == 0) {
        m.erase(at, 1);
      } else {
        m[at] = static_cast<char>(rng() % 256);
      }
      if (m.empty()) break;
    }
    absl::StatusOr<HostTensor> t = ParseNpy(m, "m.npy");
    if (t.ok()) {
      EXPECT_EQ(t->byte_size(), static_cast<size_t>(t->num_elements()) * DataTypeSize(t->dtype));
    } else {
      EXPECT_THAT(std::string(t.status().message()), HasSubstr("m.npy"));
    }
  }
}

}  // namespace
}  // namespace vkserve
