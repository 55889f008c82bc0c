// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// The output-name rule `vkserve infer` and `vkserve client` share
// (cli/output_files.h).
#include "cli/output_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vkserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(OutputFileNamesTest, PlainNamesKeepTheirSpelling) {
  auto files = OutputFileNames({"Y", "probabilities", "logits.1", "a-b_c", ".hidden"});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, ElementsAre("Y.npy", "probabilities.npy", "logits.1.npy", "a-b_c.npy",
                                  ".hidden.npy"));
}

TEST(OutputFileNamesTest, OtherCharactersBecomeUnderscores) {
  auto files = OutputFileNames({"a/b:0", "../escaped", "x\\y", "sp ace", "é"});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files,
              ElementsAre("a_b_0.npy", ".._escaped.npy", "x_y.npy", "sp_ace.npy", "__.npy"));
  auto with_nul = OutputFileNames({std::string("a\0b", 3)});
  ASSERT_TRUE(with_nul.ok()) << with_nul.status();
  EXPECT_THAT(*with_nul, ElementsAre("a_b.npy"));
}

TEST(OutputFileNamesTest, EmptyAndDotOnlyNamesAreRefused) {
  for (const std::string name : {"", ".", "..", "..."}) {
    auto files = OutputFileNames({"ok", name});
    ASSERT_FALSE(files.ok()) << "'" << name << "'";
    EXPECT_EQ(files.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(files.status().message(), HasSubstr("is not a file name"));
  }
}

TEST(OutputFileNamesTest, NamesTooLongForAFileAreRefused) {
  EXPECT_TRUE(OutputFileNames({std::string(251, 'a')}).ok());  // 255 bytes with .npy
  auto files = OutputFileNames({std::string(252, 'a')});
  ASSERT_FALSE(files.ok());
  EXPECT_THAT(files.status().message(), HasSubstr("longer than a file name may be (251 bytes)"));
}

TEST(OutputFileNamesTest, TwoOutputsForOneFileAreRefused) {
  auto files = OutputFileNames({"a/b", "c", "a:b"});
  ASSERT_FALSE(files.ok());
  EXPECT_THAT(files.status().message(),
              HasSubstr("outputs 'a/b' and 'a:b' would both be written to a_b.npy"));
}

}  // namespace
}  // namespace vkserve
