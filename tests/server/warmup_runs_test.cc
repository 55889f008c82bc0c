// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// WarmupRuns::Plan: every distinct sample shape has its plan built (on
// several threads) before any session runs it, duplicates planned once; a
// shape the model refuses fails with the sample's label; a session's
// warm-up then runs the plans Plan built.
#include "server/scheduling/warmup_runs.h"

#include "gmock/gmock.h"
#include "runtime/session.h"
#include "tests/testing/conv_model.h"
#include "tests/testing/gpu_fixture.h"

namespace vkserve {
namespace {

using ::testing::HasSubstr;
using testing::GpuTest;
using Shapes = std::vector<std::vector<int64_t>>;

class WarmupRunsTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    testing::ConvGraphSpec spec;
    spec.input_shape = {Dim{-1, "N", ""}, Dim{4, "", ""}, Dim{6, "", ""}, Dim{6, "", ""}};
    spec.weight_seed = 3;
    spec.relu = true;
    auto model = Model::FromGraph(testing::ConvGraph(spec),
                                  {device_.get(), allocator_.get(), pipelines_.get()});
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = *model;
  }
  void TearDown() override {
    model_.reset();  // its weights go before the allocator
    GpuTest::TearDown();
  }
  static Shapes Batch(int64_t n) { return {{n, 4, 6, 6}}; }

  std::shared_ptr<Model> model_;
};

TEST_F(WarmupRunsTest, PlansEveryDistinctShapeBeforeAnySessionRuns) {
  const std::vector<Shapes> shapes = {Batch(2), Batch(3), Batch(5), Batch(3), Batch(7)};
  auto runs = WarmupRuns::Zeros(*model_, shapes, {"a", "b", "c", "b again", "d"});
  ASSERT_TRUE(runs.ok()) << runs.status();
  for (const Shapes& s : shapes) ASSERT_FALSE(model_->HasPlan(s));
  ASSERT_TRUE((*runs)->Plan(*model_).ok());
  for (const Shapes& s : shapes) EXPECT_TRUE(model_->HasPlan(s));
  EXPECT_FALSE(model_->HasPlan(Batch(4)));

  // A session's warm-up runs what was planned.
  auto session = Session::Create(model_, {});
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_TRUE((*runs)->RunOn(**session).ok());
}

TEST_F(WarmupRunsTest, AShapeTheModelRefusesNamesItsSample) {
  // Width 7 where the model declares 6: refused when planned.
  auto runs = WarmupRuns::Zeros(*model_, {Batch(2), {{2, 4, 6, 7}}, Batch(4)},
                                {"fits", "too wide", "fits too"});
  ASSERT_TRUE(runs.ok()) << runs.status();
  const absl::Status planned = (*runs)->Plan(*model_);
  EXPECT_EQ(planned.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(planned.message(), HasSubstr("too wide: "));
}

}  // namespace
}  // namespace vkserve
