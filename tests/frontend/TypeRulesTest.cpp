//===- TypeRulesTest.cpp - Broadcasting, shapes and constants -------------===//
#include "blockc/frontend/TypeRules.h"

#include <gtest/gtest.h>

using namespace blockc;

TEST(Broadcast, NumpyRules) {
  EXPECT_EQ(broadcastShapes({128}, {128}), Shape({128}));
  EXPECT_EQ(broadcastShapes({}, {4, 8}), Shape({4, 8}));
  EXPECT_EQ(broadcastShapes({4, 1}, {1, 8}), Shape({4, 8}));
  EXPECT_EQ(broadcastShapes({8}, {4, 8}), Shape({4, 8}));
  EXPECT_EQ(broadcastShapes({2, 1, 8}, {4, 1}), Shape({2, 4, 8}));
  EXPECT_FALSE(broadcastShapes({4}, {8}).has_value());
  EXPECT_FALSE(broadcastShapes({4, 8}, {8, 4}).has_value());
}

TEST(Broadcast, ToIsOneDirectional) {
  EXPECT_TRUE(broadcastsTo({1, 8}, {4, 8}));
  EXPECT_TRUE(broadcastsTo({}, {4, 8}));
  EXPECT_FALSE(broadcastsTo({4, 8}, {8}));
  EXPECT_FALSE(broadcastsTo({4, 1}, {4}));
}

TEST(BlockShape, Limits) {
  EXPECT_FALSE(checkBlockShape({1024, 1024}).has_value());
  EXPECT_TRUE(checkBlockShape({1024, 1025}).has_value());
  EXPECT_TRUE(checkBlockShape({}).has_value());
  EXPECT_FALSE(checkBlockShape({2, 2, 2, 2, 2, 2, 2, 2}).has_value());
  EXPECT_TRUE(checkBlockShape({1, 1, 1, 1, 1, 1, 1, 1, 1}).has_value());
  EXPECT_TRUE(checkBlockShape({0}).has_value());
  // Overflowing products must not wrap into a small count.
  EXPECT_TRUE(checkBlockShape({int64_t(1) << 40, int64_t(1) << 40}).has_value());
}

TEST(Constants, Fit) {
  EXPECT_FALSE(checkConstantFits(ConstantValue::ofInt(-128), ScalarKind::I8));
  EXPECT_FALSE(checkConstantFits(ConstantValue::ofInt(255), ScalarKind::I8));
  EXPECT_TRUE(checkConstantFits(ConstantValue::ofInt(256), ScalarKind::I8));
  EXPECT_TRUE(checkConstantFits(ConstantValue::ofInt(2), ScalarKind::I1));
  EXPECT_TRUE(checkConstantFits(ConstantValue::ofFloat(1.5), ScalarKind::I32));
  EXPECT_FALSE(checkConstantFits(ConstantValue::ofInt(7), ScalarKind::F16));
}

TEST(Constants, FormatRoundTrips) {
  EXPECT_EQ(formatConstant(ConstantValue::ofFloat(0.1), ScalarKind::F32), "0.1");
  EXPECT_EQ(formatConstant(ConstantValue::ofFloat(1.0), ScalarKind::F32), "1.0");
  EXPECT_EQ(formatConstant(ConstantValue::ofFloat(-0.0), ScalarKind::F32), "-0.0");
  EXPECT_EQ(formatConstant(ConstantValue::ofFloat(1e-30), ScalarKind::F64), "1e-30");
  EXPECT_EQ(formatConstant(ConstantValue::ofInt(1), ScalarKind::I1), "true");
}
