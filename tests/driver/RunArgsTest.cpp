//===- RunArgsTest.cpp - `blockc run`'s arguments, values, .npy and flags -===//
//
// Unit tests of the pieces of `blockc run` that need no compiler: --arg spec
// parsing, element encoding and random fill, the .npy reader and writer, the
// binding of specs to kernel parameters, and the launcher flags. The .npy
// fixtures are the bytes NumPy 1.24's np.save writes (checked against it),
// spelled out here so that the tests need no Python.
//
//===----------------------------------------------------------------------===//
#include "RunArgs.h"

#include "Elements.h"
#include "LaunchFlags.h"
#include "Npy.h"
#include "Scratch.h"
#include "blockc/frontend/SmallFloat.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace blockc;
using namespace blockc::driver;

namespace {

// --- helpers ---------------------------------------------------------------

std::string tempPath(const std::string &name) {
  return blockc::test::scratchPath(name).string();
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A .npy file of format 1.0 as NumPy writes it: magic, version, the header
/// length 0x76 (118), the dict, `blanks` spaces and a newline (128 bytes in
/// all), then the data.
std::string npyV1(const std::string &dict, size_t blanks, const std::string &data) {
  return std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict + std::string(blanks, ' ') + "\n" +
         data;
}

std::string bytes(std::initializer_list<unsigned> values) {
  std::string out;
  for (unsigned v : values)
    out += char(v);
  return out;
}

ArgSpec parseOk(const std::string &text) {
  std::string error;
  std::optional<ArgSpec> spec = parseArgSpec(text, error);
  EXPECT_TRUE(spec) << text << ": " << error;
  return spec ? std::move(*spec) : ArgSpec{};
}

std::string parseError(const std::string &text) {
  std::string error;
  EXPECT_FALSE(parseArgSpec(text, error)) << text;
  return error;
}

template <typename T> T firstValue(const ArgSpec &spec) {
  T value;
  EXPECT_GE(spec.values.size(), sizeof value);
  std::memcpy(&value, spec.values.data(), sizeof value);
  return value;
}

// --- --arg specs -------------------------------------------------------------

TEST(ArgSpec, RandomBuffer) {
  ArgSpec s = parseOk("a=1048576xf32=random");
  EXPECT_EQ(s.name, "a");
  EXPECT_EQ(s.kind, ArgSpec::Kind::Buffer);
  EXPECT_EQ(s.dtype, ScalarKind::F32);
  EXPECT_EQ(s.shape, (Shape{1048576}));
  EXPECT_EQ(s.fill, FillKind::Random);
  EXPECT_EQ(s.seed, 0u);

  ArgSpec seeded = parseOk("w=64x32xbf16=random:7");
  EXPECT_EQ(seeded.dtype, ScalarKind::BF16);
  EXPECT_EQ(seeded.shape, (Shape{64, 32}));
  EXPECT_EQ(seeded.seed, 7u);
}

TEST(ArgSpec, FilledBuffers) {
  ArgSpec zero = parseOk("c=4096x4096xf32=0");
  EXPECT_EQ(zero.fill, FillKind::Value);
  EXPECT_EQ(zero.shape, (Shape{4096, 4096}));
  EXPECT_EQ(firstValue<float>(zero), 0.0f);

  ArgSpec list = parseOk("v=4xi32=1,-2,3,+4");
  EXPECT_EQ(list.fill, FillKind::List);
  ASSERT_EQ(list.values.size(), 16u);
  int32_t values[4];
  std::memcpy(values, list.values.data(), sizeof values);
  EXPECT_EQ(values[0], 1);
  EXPECT_EQ(values[1], -2);
  EXPECT_EQ(values[3], 4);

  ArgSpec rank0 = parseOk("s=f64=1.5");
  EXPECT_TRUE(rank0.shape.empty());
  EXPECT_EQ(firstValue<double>(rank0), 1.5);

  ArgSpec empty = parseOk("e=0x8xi64=3");
  EXPECT_EQ(empty.shape, (Shape{0, 8}));

  ArgSpec mask = parseOk("m=3xi1=true,0,1");
  EXPECT_EQ(mask.values, (std::vector<uint8_t>{1, 0, 1}));

  EXPECT_EQ(firstValue<uint16_t>(parseOk("h=2xf16=1.5")), 0x3e00);
  EXPECT_EQ(firstValue<uint16_t>(parseOk("h=2xbf16=-2")), 0xc000);
}

TEST(ArgSpec, FilesAndScalars) {
  ArgSpec file = parseOk("%a=@in dir/x.npy");
  EXPECT_EQ(file.name, "a"); // `%a` as the parameter is written in .bir
  EXPECT_EQ(file.kind, ArgSpec::Kind::Buffer);
  EXPECT_EQ(file.fill, FillKind::File);
  EXPECT_EQ(file.path, "in dir/x.npy");

  for (const char *number : {"42", "-1.5", "+3", "1e-3", "inf", "-nan", "true", "false"}) {
    ArgSpec s = parseOk(std::string("n=") + number);
    EXPECT_EQ(s.kind, ArgSpec::Kind::Scalar) << number;
    EXPECT_EQ(s.text, number);
  }
}

TEST(ArgSpec, BadFormsSayWhatWasExpected) {
  EXPECT_EQ(parseError("abc"),
            "--arg 'abc': expected NAME=SPEC, such as a=1024xf32=random, a=@in.npy or n=42");
  EXPECT_EQ(parseError("=5"),
            "--arg '=5': expected NAME=SPEC, such as a=1024xf32=random, a=@in.npy or n=42");
  EXPECT_EQ(parseError("a="),
            "--arg a: expected a spec after 'a=': DIMSxDTYPE=FILL, @FILE.npy or a number");
  EXPECT_EQ(parseError("a=@"), "--arg a: expected a file name after '@'");
  EXPECT_EQ(parseError("a=1024xf32"),
            "--arg a: '1024xf32' has no fill; expected 1024xf32=random, 1024xf32=0 or a list of "
            "values");
  EXPECT_EQ(parseError("a=abc"), "--arg a: 'abc' is neither a number (such as 42 or 1.5) nor a "
                                 "buffer (such as 1024xf32=random or @in.npy)");
  EXPECT_EQ(parseError("a=4xf8=0"), "--arg a: unknown element type 'f8' in '4xf8'; expected i1, "
                                    "i8, i16, i32, i64, f16, bf16, f32 or f64");
  EXPECT_EQ(parseError("a=4xx3xf32=0"), "--arg a: dimension '' of '4xx3xf32' is not a whole "
                                        "number (expected DIMSxDTYPE, such as 1024x64xf32)");
  EXPECT_EQ(parseError("a=-4xf32=0"), "--arg a: dimension '-4' of '-4xf32' is not a whole number "
                                      "(expected DIMSxDTYPE, such as 1024x64xf32)");
  EXPECT_EQ(parseError("a=2.5xf32=0"), "--arg a: dimension '2.5' of '2.5xf32' is not a whole "
                                       "number (expected DIMSxDTYPE, such as 1024x64xf32)");
  EXPECT_EQ(parseError("a=1000000000x1000000000x1000000000xf32=0"),
            "--arg a: '1000000000x1000000000x1000000000xf32' is too large (more than 2^62 bytes)");
  EXPECT_EQ(parseError("a=4xf32="),
            "--arg a: expected a fill after '4xf32=': random, random:SEED, a number, or one "
            "number per element separated by commas");
  EXPECT_EQ(parseError("a=4xf32=random:x"),
            "--arg a: the seed of 'random:x' must be a whole number from 0 to "
            "18446744073709551615");
  EXPECT_EQ(parseError("a=4xf32=random:"),
            "--arg a: the seed of 'random:' must be a whole number from 0 to "
            "18446744073709551615");
  EXPECT_EQ(parseError("a=4xi32=1,2,3"),
            "--arg a: 3 values for the 4 elements of '4xi32'; give one value to fill with, or "
            "all 4");
  EXPECT_EQ(parseError("a=2xi32=1,"),
            "--arg a: '' is not an i32: expected a whole number from -2147483648 to 2147483647");
  EXPECT_EQ(parseError("a=4xi8=300"),
            "--arg a: '300' is not an i8: expected a whole number from -128 to 127");
  EXPECT_EQ(parseError("a=4xi64=1.5"), "--arg a: '1.5' is not an i64: expected a whole number "
                                       "from -9223372036854775808 to 9223372036854775807");
  EXPECT_EQ(parseError("a=4xi1=2"), "--arg a: '2' is not an i1: expected 0, 1, true or false");
  EXPECT_EQ(parseError("a=4xf32=abc"),
            "--arg a: 'abc' is not an f32: expected a number such as 1.5, -2e-3, inf or nan");
  EXPECT_EQ(parseError("a=4xbf16=1.5.2"),
            "--arg a: '1.5.2' is not a bf16: expected a number such as 1.5, -2e-3, inf or nan");
  EXPECT_EQ(parseError("a=4xf16=1e5"),
            "--arg a: '1e5' is out of range for f16 (largest finite value 65504)");
  EXPECT_EQ(parseError("a=4xf32=1e39"),
            "--arg a: '1e39' is out of range for f32 (largest finite value 3.40282e+38)");
  EXPECT_EQ(parseError("a=4xf64=1e999"),
            "--arg a: '1e999' is out of range for f64 (largest finite value 1.79769e+308)");
}

// --- element values ------------------------------------------------------------

TEST(Elements, EncodesEachKindInItsWidth) {
  unsigned char out[8];
  std::string error;
  auto encode = [&](ScalarKind kind, const char *text) {
    std::memset(out, 0xaa, sizeof out);
    EXPECT_TRUE(encodeNumber(kind, text, out, error)) << text << ": " << error;
    return std::string(reinterpret_cast<char *>(out), elementBytes(kind));
  };
  EXPECT_EQ(encode(ScalarKind::I1, "true"), bytes({1}));
  EXPECT_EQ(encode(ScalarKind::I1, "0"), bytes({0}));
  EXPECT_EQ(encode(ScalarKind::I8, "-128"), bytes({0x80}));
  EXPECT_EQ(encode(ScalarKind::I16, "-2"), bytes({0xfe, 0xff}));
  EXPECT_EQ(encode(ScalarKind::I32, "2147483647"), bytes({0xff, 0xff, 0xff, 0x7f}));
  EXPECT_EQ(encode(ScalarKind::I64, "-9223372036854775808"), bytes({0, 0, 0, 0, 0, 0, 0, 0x80}));
  EXPECT_EQ(encode(ScalarKind::F16, "1.0"), bytes({0x00, 0x3c}));
  EXPECT_EQ(encode(ScalarKind::BF16, "1.0"), bytes({0x80, 0x3f}));
  EXPECT_EQ(encode(ScalarKind::F32, "1"), bytes({0, 0, 0x80, 0x3f}));
  EXPECT_EQ(encode(ScalarKind::F64, "-2"), bytes({0, 0, 0, 0, 0, 0, 0, 0xc0}));
  // A finite value that rounds down to the largest finite one is fine.
  EXPECT_EQ(encode(ScalarKind::F16, "65519"), bytes({0xff, 0x7b}));
  EXPECT_EQ(encode(ScalarKind::F16, "-inf"), bytes({0x00, 0xfc}));
}

TEST(Elements, Float8RoundsToNearestEvenAndSaturates) {
  const ScalarKind e4m3 = ScalarKind::F8E4M3, e5m2 = ScalarKind::F8E5M2;
  EXPECT_EQ(toFloat8Bits(448.0, e4m3), 0x7e);             // the largest finite value
  EXPECT_EQ(toFloat8Bits(1e9, e4m3), 0x7e);               // saturates
  EXPECT_EQ(toFloat8Bits(-INFINITY, e4m3), 0xfe);         // infinity too
  EXPECT_EQ(toFloat8Bits(INFINITY, e5m2), 0x7b);          // 57344, not infinity
  EXPECT_EQ(toFloat8Bits(std::ldexp(1.0, -9), e4m3), 1);  // smallest subnormal
  EXPECT_EQ(toFloat8Bits(std::ldexp(1.0, -10), e4m3), 0); // a tie, to even: zero
  EXPECT_EQ(toFloat8Bits(17.0, e4m3), 0x58);              // a tie between 16 and 18: 16
  EXPECT_EQ(toFloat8Bits(-0.0, e5m2), 0x80);
  EXPECT_EQ(toFloat8Bits(NAN, e4m3) & 0x7f, 0x7f);
  EXPECT_EQ(fromFloat8Bits(0x7c, e5m2), INFINITY);
  EXPECT_TRUE(std::isnan(fromFloat8Bits(0xff, e4m3)));
  EXPECT_EQ(fromFloat8Bits(0x7e, e4m3), 448.0);
  EXPECT_EQ(fromFloat8Bits(0x01, e5m2), std::ldexp(1.0, -16));
  // Every finite code survives the trip through double.
  for (ScalarKind kind : {e4m3, e5m2})
    for (uint32_t bits = 0; bits <= 0xff; ++bits) {
      double value = fromFloat8Bits(uint8_t(bits), kind);
      if (std::isfinite(value))
        ASSERT_EQ(toFloat8Bits(value, kind), bits) << std::hex << bits;
    }
  // Encoded by `blockc run`: beyond the largest finite value is an error, not
  // a silent saturation.
  std::string error;
  unsigned char out[8] = {};
  EXPECT_TRUE(encodeNumber(e4m3, "0.5", out, error)) << error;
  EXPECT_EQ(out[0], 0x30);
  EXPECT_FALSE(encodeNumber(e4m3, "500", out, error));
  EXPECT_NE(error.find("out of range for f8e4m3 (largest finite value 448)"), std::string::npos)
      << error;
}

TEST(Elements, HalfAndBFloat16RoundToNearestEven) {
  EXPECT_EQ(toHalfBits(std::ldexp(1.0, -24)), 0x0001);    // smallest subnormal
  EXPECT_EQ(toHalfBits(std::ldexp(1.0, -25)), 0x0000);    // a tie, to even: zero
  EXPECT_EQ(toHalfBits(std::ldexp(3.0, -25)), 0x0002);    // a tie, to even: 2
  EXPECT_EQ(toHalfBits(std::ldexp(1023.5, -24)), 0x0400); // rounds up into the normals
  EXPECT_EQ(toHalfBits(65520.0), 0x7c00);                 // the tie above max: infinity
  EXPECT_EQ(toHalfBits(-0.0), 0x8000);
  EXPECT_EQ(toBFloat16Bits(1.0 + std::ldexp(1.0, -8)), 0x3f80); // a tie, to even
  EXPECT_EQ(toBFloat16Bits(1.0 + std::ldexp(3.0, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(fromHalfBits(toHalfBits(std::nan("")))));
  EXPECT_TRUE(std::isnan(fromBFloat16Bits(toBFloat16Bits(std::nan("")))));

  // Every non-NaN pattern survives the trip through double.
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    uint16_t b = uint16_t(bits);
    if (!std::isnan(fromHalfBits(b)))
      ASSERT_EQ(toHalfBits(fromHalfBits(b)), b) << std::hex << bits;
    if (!std::isnan(fromBFloat16Bits(b)))
      ASSERT_EQ(toBFloat16Bits(fromBFloat16Bits(b)), b) << std::hex << bits;
  }
  // bf16 from f32 agrees with the usual bit trick for round to nearest even.
  uint32_t state = 12345;
  for (int i = 0; i < 100000; ++i) {
    state = state * 1664525u + 1013904223u;
    float f;
    std::memcpy(&f, &state, 4);
    if (std::isnan(f))
      continue;
    uint16_t expected = uint16_t((state + 0x7fffu + ((state >> 16) & 1u)) >> 16);
    ASSERT_EQ(toBFloat16Bits(double(f)), expected) << std::hex << state;
  }
}

TEST(Elements, RandomFillIsDeterministicAndInRange) {
  constexpr size_t n = 4096;
  for (ScalarKind kind :
       {ScalarKind::I1, ScalarKind::I8, ScalarKind::I16, ScalarKind::I32, ScalarKind::I64,
        ScalarKind::F16, ScalarKind::BF16, ScalarKind::F32, ScalarKind::F64}) {
    SCOPED_TRACE(std::string(scalarKindName(kind)));
    size_t size = elementBytes(kind);
    std::vector<unsigned char> first(n * size), again(n * size), seeded(n * size),
        renamed(n * size);
    fillRandom(kind, "a", 0, first.data(), n);
    fillRandom(kind, "a", 0, again.data(), n);
    fillRandom(kind, "a", 1, seeded.data(), n);
    fillRandom(kind, "b", 0, renamed.data(), n);
    EXPECT_EQ(first, again);
    EXPECT_NE(first, seeded);
    EXPECT_NE(first, renamed);

    std::set<double> distinct;
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      const unsigned char *p = first.data() + i * size;
      double v;
      int8_t i8;
      int16_t i16;
      int32_t i32;
      int64_t i64;
      uint16_t u16;
      float f32;
      switch (kind) {
      case ScalarKind::I1:
        v = *p;
        ASSERT_LE(*p, 1);
        break;
      case ScalarKind::I8:
        std::memcpy(&i8, p, 1);
        v = i8;
        break;
      case ScalarKind::I16:
        std::memcpy(&i16, p, 2);
        v = i16;
        break;
      case ScalarKind::I32:
        std::memcpy(&i32, p, 4);
        v = i32;
        break;
      case ScalarKind::I64:
        std::memcpy(&i64, p, 8);
        v = double(i64);
        break;
      case ScalarKind::F16:
        std::memcpy(&u16, p, 2);
        v = fromHalfBits(u16);
        break;
      case ScalarKind::BF16:
        std::memcpy(&u16, p, 2);
        v = fromBFloat16Bits(u16);
        break;
      case ScalarKind::F32:
        std::memcpy(&f32, p, 4);
        v = f32;
        break;
      default:
        std::memcpy(&v, p, 8);
      }
      if (kind == ScalarKind::I1)
        ;
      else if (isIntegerKind(kind))
        ASSERT_TRUE(v >= -8 && v <= 7) << v;
      else
        ASSERT_TRUE(v >= -1 && v < 1) << v;
      distinct.insert(v);
      sum += v;
    }
    // Uniform: every integer value shows up, floats spread out, centered.
    if (kind == ScalarKind::I1)
      EXPECT_EQ(distinct.size(), 2u);
    else if (isIntegerKind(kind))
      EXPECT_EQ(distinct.size(), 16u);
    else
      EXPECT_GT(distinct.size(), kind == ScalarKind::BF16 ? 200u : 1000u);
    double center = kind == ScalarKind::I1 ? 0.5 : isIntegerKind(kind) ? -0.5 : 0.0;
    EXPECT_NEAR(sum / n, center, 0.1);
  }
}

TEST(Elements, RandomStreamIsPinned) {
  // The same on every platform and in every release: results saved from one
  // run can be compared with another's.
  float f[2];
  fillRandom(ScalarKind::F32, "a", 0, f, 2);
  EXPECT_EQ(f[0], -0x1.06b1fp-2f);
  EXPECT_EQ(f[1], 0x1.fe13c4p-1f);
  int32_t i[6];
  fillRandom(ScalarKind::I32, "a", 0, i, 6);
  EXPECT_EQ(std::vector<int32_t>(i, i + 6), (std::vector<int32_t>{-3, 7, 7, 2, -1, -8}));
  uint16_t h[2];
  fillRandom(ScalarKind::BF16, "w", 7, h, 2);
  EXPECT_EQ(h[0], 0xbf58);
  EXPECT_EQ(h[1], 0x3f00);
}

// --- .npy ------------------------------------------------------------------

TEST(Npy, HeaderIsNumPys) {
  // np.save(f, np.zeros((2, 3), '<f4')): 58 blanks pad the header to 128 bytes.
  EXPECT_EQ(encodeNpyHeader("<f4", {2, 3}),
            npyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 58, ""));
  EXPECT_EQ(encodeNpyHeader("<i8", {}),
            npyV1("{'descr': '<i8', 'fortran_order': False, 'shape': (), }", 62, ""));
}

TEST(Npy, EveryKindRoundTrips) {
  struct Case {
    ScalarKind kind;
    const char *descr;
    std::string data; // two elements
  };
  const Case cases[] = {
      {ScalarKind::I1, "|b1", bytes({1, 0})},
      {ScalarKind::I8, "|i1", bytes({0xff, 5})},
      {ScalarKind::I16, "<i2", bytes({0xfe, 0xff, 5, 0})},
      {ScalarKind::I32, "<i4", bytes({0xfe, 0xff, 0xff, 0xff, 5, 0, 0, 0})},
      {ScalarKind::I64, "<i8", bytes({1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0x80})},
      {ScalarKind::F16, "<f2", bytes({0x00, 0x3c, 0x00, 0xc0})},
      {ScalarKind::BF16, "<u2", bytes({0x80, 0x3f, 0x00, 0xc0})},
      {ScalarKind::F32, "<f4", bytes({0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0})},
      {ScalarKind::F64, "<f8", bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0xc0})},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.descr);
    EXPECT_EQ(npyDescr(c.kind), c.descr);
    std::string path = tempPath("roundtrip.npy");
    std::string error;
    ASSERT_TRUE(writeNpy(path, c.descr, {2}, c.data.data(), error)) << error;
    std::string dict =
        std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (2,), }";
    EXPECT_EQ(readFile(path), npyV1(dict, 60, c.data));

    NpyReader reader;
    ASSERT_TRUE(reader.open(path, error)) << error;
    EXPECT_EQ(reader.header().descr, c.descr);
    EXPECT_EQ(reader.header().kind, c.kind == ScalarKind::BF16 ? ScalarKind::I16 : c.kind);
    EXPECT_EQ(reader.header().shape, (Shape{2}));
    EXPECT_EQ(reader.header().dataOffset, 128u);
    ASSERT_EQ(reader.header().dataBytes, c.data.size());
    std::string back(c.data.size(), '\0');
    ASSERT_TRUE(reader.readData(back.data(), error)) << error;
    EXPECT_EQ(back, c.data);
  }
}

NpyHeader readOk(const std::string &name, const std::string &fileBytes, std::string &data) {
  std::string path = tempPath(name);
  writeFile(path, fileBytes);
  NpyReader reader;
  std::string error;
  EXPECT_TRUE(reader.open(path, error)) << error;
  data.assign(reader.header().dataBytes, '\0');
  EXPECT_TRUE(reader.readData(data.data(), error)) << error;
  return reader.header();
}

std::string readError(const std::string &name, const std::string &fileBytes) {
  std::string path = tempPath(name);
  writeFile(path, fileBytes);
  NpyReader reader;
  std::string error;
  EXPECT_FALSE(reader.open(path, error));
  EXPECT_EQ(error.rfind("'" + path + "': ", 0), 0u) << error;
  return error.substr(path.size() + 4);
}

TEST(Npy, ReadsNumPyFiles) {
  std::string data;
  // np.save(f, np.arange(6, dtype='<f4').reshape(2, 3) / 4)
  NpyHeader h = readOk("f32.npy",
                       npyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 58,
                             bytes({0, 0, 0,    0,    0, 0, 0x80, 0x3e, 0, 0, 0,    0x3f,
                                    0, 0, 0x40, 0x3f, 0, 0, 0x80, 0x3f, 0, 0, 0xa0, 0x3f})),
                       data);
  EXPECT_EQ(h.kind, ScalarKind::F32);
  EXPECT_EQ(h.shape, (Shape{2, 3}));
  float values[6];
  ASSERT_EQ(data.size(), sizeof values);
  std::memcpy(values, data.data(), sizeof values);
  EXPECT_EQ(values[1], 0.25f);
  EXPECT_EQ(values[5], 1.25f);

  // np.save(f, np.array(-7, dtype='<i8')): rank 0
  h = readOk("i64.npy",
             npyV1("{'descr': '<i8', 'fortran_order': False, 'shape': (), }", 62,
                   bytes({0xf9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})),
             data);
  EXPECT_EQ(h.kind, ScalarKind::I64);
  EXPECT_TRUE(h.shape.empty());
  EXPECT_EQ(data.size(), 8u);

  // np.save(f, np.array([True, False, True])), and uint8, which is read as i8
  h = readOk(
      "b1.npy",
      npyV1("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 60, bytes({1, 0, 1})),
      data);
  EXPECT_EQ(h.kind, ScalarKind::I1);
  h = readOk(
      "u1.npy",
      npyV1("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", 60, bytes({0xff, 1})),
      data);
  EXPECT_EQ(h.kind, ScalarKind::I8);

  // np.save(f, np.zeros((0,), '<i4')): no data at all
  h = readOk("empty.npy",
             npyV1("{'descr': '<i4', 'fortran_order': False, 'shape': (0,), }", 60, ""), data);
  EXPECT_EQ(h.shape, (Shape{0}));
  EXPECT_EQ(h.dataBytes, 0u);

  // np.lib.format.write_array(f, np.array([1.5, -0.25]), version=(2, 0)):
  // a 4-byte header length.
  h = readOk("v2.npy",
             std::string("\x93NUMPY\x02\x00\x74\x00\x00\x00", 12) +
                 "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }" +
                 std::string(58, ' ') + "\n" +
                 bytes({0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0, 0, 0, 0, 0, 0, 0xd0, 0xbf}),
             data);
  EXPECT_EQ(h.kind, ScalarKind::F64);
  EXPECT_EQ(h.dataOffset, 128u);

  // Other writers: double quotes, no trailing comma, Python 2 longs, Fortran
  // order where it changes nothing (one long dimension).
  h = readOk("loose.npy",
             std::string("\x93NUMPY\x01\x00\x3b\x00", 10) +
                 "{\"shape\": (1L, 2L), \"fortran_order\": True, \"descr\": \"<i2\"}\n" +
                 bytes({1, 0, 2, 0}),
             data);
  EXPECT_EQ(h.shape, (Shape{1, 2}));
  EXPECT_EQ(h.kind, ScalarKind::I16);
}

TEST(Npy, RejectsWhatItCannotReadAsIs) {
  // np.save(f, np.asfortranarray(np.arange(6, dtype='<f4').reshape(2, 3)))
  EXPECT_EQ(
      readError("fortran.npy", npyV1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                                     59, std::string(24, '\0'))),
      "fortran_order is True: only C-order arrays are supported (save "
      "np.ascontiguousarray(a))");
  // np.save(f, np.array([1, 2], dtype='>f4'))
  EXPECT_EQ(readError("big.npy", npyV1("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                                       60, std::string(8, '\0'))),
            "dtype '>f4' is big-endian; only little-endian data is supported (save "
            "a.astype('<f4'))");
  // np.save(f, np.array([1j], dtype='<c8'))
  EXPECT_EQ(readError("c8.npy", npyV1("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                                      60, std::string(8, '\0'))),
            "dtype '<c8' is not supported; expected one of <f2 <f4 <f8 |b1 |i1 |u1 <i2 <u2 <i4 "
            "<u4 <i8 <u8 (bf16 as <u2, f8e4m3 and f8e5m2 as |u1)");
  EXPECT_EQ(readError("record.npy",
                      npyV1("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                            51, std::string(4, '\0'))),
            "structured dtypes (a list of fields) are not supported; expected one of <f2 <f4 <f8 "
            "|b1 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 (bf16 as <u2, f8e4m3 and f8e5m2 as |u1)");
  EXPECT_EQ(readError("short-data.npy",
                      npyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 58,
                            std::string(20, '\0'))),
            "truncated: the header describes a shape (2, 3) of <f4, 24 bytes of data, but the "
            "file has 20");
  EXPECT_EQ(readError("short-header.npy",
                      std::string("\x93NUMPY\x01\x00\x76\x00", 10) + "{'descr': '<f4', 'fortr"),
            "truncated: the header is 118 bytes but the file ends after 23");
  EXPECT_EQ(readError("short-preamble.npy", std::string("\x93NUMPY\x01", 7)),
            "truncated: the file ends inside the .npy preamble");
  EXPECT_EQ(readError("empty.npy", ""), "truncated: the file ends inside the .npy preamble");
  EXPECT_EQ(readError("text.npy", "hello, world\n"),
            "not a .npy file: it does not start with \\x93NUMPY");
  EXPECT_EQ(readError("v4.npy", std::string("\x93NUMPY\x04\x00\x00\x00", 10)),
            "unsupported .npy format version 4.0; expected 1.0, 2.0 or 3.0");
  EXPECT_EQ(readError("nokey.npy", npyV1("{'descr': '<f4', 'fortran_order': False, }", 75, "")),
            "malformed header: the key 'shape' is missing");
  EXPECT_EQ(
      readError("extra.npy",
                npyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1, }", 54, "")),
      "malformed header: unknown key 'x' (expected 'descr', 'fortran_order' and 'shape')");
  EXPECT_EQ(
      readError("badshape.npy",
                npyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", 57, "")),
      "malformed header: expected a tuple of whole numbers after 'shape' at offset 54 of "
      "the dict");

  NpyReader reader;
  std::string error;
  EXPECT_FALSE(reader.open(tempPath("does-not-exist.npy"), error));
  EXPECT_EQ(error,
            "cannot open '" + tempPath("does-not-exist.npy") + "': No such file or directory");
}

// --- binding to kernel parameters ------------------------------------------

const std::vector<Param> kParams = {
    {"x", Type::pointer(ScalarKind::F32)},    {"w", Type::pointer(ScalarKind::BF16)},
    {"n", Type::scalar(ScalarKind::I32)},     {"flag", Type::scalar(ScalarKind::I1)},
    {"scale", Type::scalar(ScalarKind::F16)},
};

std::vector<ArgSpec> specs(std::initializer_list<const char *> texts) {
  std::vector<ArgSpec> out;
  for (const char *t : texts)
    out.push_back(parseOk(t));
  return out;
}

std::string bindError(std::initializer_list<const char *> texts) {
  std::string error;
  EXPECT_FALSE(bindArgs("k", kParams, specs(texts), error));
  return error;
}

TEST(BindArgs, FillsBuffersAndScalarsInParameterOrder) {
  std::string error;
  std::optional<KernelArgs> args = bindArgs(
      "k", kParams,
      specs({"scale=0.5", "n=-7", "w=2x3xbf16=1,2,3,4,5,6", "flag=true", "x=100xf32=random:3"}),
      error);
  ASSERT_TRUE(args) << error;
  void **launch = args->launchArgs();

  float *x = *static_cast<float **>(launch[0]);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x) % 64, 0u);
  std::vector<float> expected(100);
  fillRandom(ScalarKind::F32, "x", 3, expected.data(), 100);
  EXPECT_EQ(std::vector<float>(x, x + 100), expected);

  uint16_t *w = *static_cast<uint16_t **>(launch[1]);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w) % 64, 0u);
  EXPECT_EQ(w[0], 0x3f80);
  EXPECT_EQ(w[5], toBFloat16Bits(6));

  EXPECT_EQ(*static_cast<int32_t *>(launch[2]), -7);
  EXPECT_EQ(*static_cast<uint8_t *>(launch[3]), 1);
  EXPECT_EQ(*static_cast<uint16_t *>(launch[4]), 0x3800);

  EXPECT_EQ(args->bufferBytes(), 100u * 4 + 6 * 2);
  ASSERT_TRUE(args->find("w"));
  EXPECT_EQ(args->find("w")->shape, (Shape{2, 3}));
  EXPECT_EQ(args->find("w")->npyDescr, "<u2");
}

TEST(BindArgs, LoadsNpyFilesWhoseDtypeMatches) {
  std::string path = tempPath("bf16.npy");
  writeFile(path, npyV1("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", 60,
                        bytes({0xc0, 0x3f, 0x80, 0xbf})));
  std::string wSpec = "w=@" + path;
  std::string error;
  std::optional<KernelArgs> args = bindArgs(
      "k", kParams, specs({"x=0xf32=0", wSpec.c_str(), "n=1", "flag=0", "scale=1"}), error);
  ASSERT_TRUE(args) << error;
  const BoundArg *w = args->find("w");
  EXPECT_EQ(w->shape, (Shape{2}));
  auto *bits = static_cast<uint16_t *>(w->buffer.data());
  EXPECT_EQ(fromBFloat16Bits(bits[0]), 1.5);
  EXPECT_EQ(fromBFloat16Bits(bits[1]), -1.0);

  std::string f32Path = tempPath("f32-for-bf16.npy");
  writeFile(f32Path, npyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 60,
                           std::string(4, '\0')));
  std::string badSpec = "w=@" + f32Path;
  EXPECT_FALSE(bindArgs("k", kParams,
                        specs({"x=1xf32=0", badSpec.c_str(), "n=1", "flag=0", "scale=1"}), error));
  EXPECT_EQ(error, "--arg w: parameter 'w' is ptr<bf16>: expected a buffer of bf16 (.npy dtype "
                   "<u2), but '" +
                       f32Path + "' holds <f4");
}

TEST(BindArgs, ErrorsNameTheArgumentAndTheParameter) {
  EXPECT_EQ(bindError({"x=1xf32=0", "w=1xbf16=0", "n=1", "flag=0", "scale=1", "typo=3"}),
            "--arg typo: kernel 'k' has no parameter 'typo'; its parameters are x: ptr<f32>, w: "
            "ptr<bf16>, n: i32, flag: i1, scale: f16");
  EXPECT_EQ(bindError({"x=1xf32=0", "w=1xbf16=0", "n=1", "flag=0", "scale=1", "n=2"}),
            "--arg n: given more than once");
  EXPECT_EQ(bindError({"x=1xf32=0", "w=1xbf16=0", "flag=0", "scale=1"}),
            "missing --arg for parameter 'n' (i32) of kernel 'k'");
  EXPECT_EQ(bindError({"x=1xf32=0", "flag=0"}),
            "missing --arg for parameters 'w' (ptr<bf16>), 'n' (i32), 'scale' (f16) of kernel "
            "'k'");
  EXPECT_EQ(bindError({"x=42", "w=1xbf16=0", "n=1", "flag=0", "scale=1"}),
            "--arg x: parameter 'x' is ptr<f32>: expected a buffer such as 1024xf32=random or "
            "@FILE.npy, got the number '42'");
  EXPECT_EQ(bindError({"x=1xf32=0", "w=1xbf16=0", "n=4xi32=0", "flag=0", "scale=1"}),
            "--arg n: parameter 'n' is i32, a scalar: expected a number such as 42, got the "
            "buffer '4xi32=0'");
  EXPECT_EQ(bindError({"x=8xf64=random", "w=1xbf16=0", "n=1", "flag=0", "scale=1"}),
            "--arg x: parameter 'x' is ptr<f32>: expected a buffer of f32, got f64 in "
            "'8xf64=random'");
  EXPECT_EQ(bindError({"x=1xf32=0", "w=1xbf16=0", "n=1.5", "flag=0", "scale=1"}),
            "--arg n: '1.5' is not an i32: expected a whole number from -2147483648 to "
            "2147483647");
  EXPECT_EQ(bindError({"x=1xf32=0", "w=1xbf16=0", "n=1", "flag=2", "scale=1"}),
            "--arg flag: '2' is not an i1: expected 0, 1, true or false");
  EXPECT_EQ(bindError({"x=1xf32=0", "w=1xbf16=0", "n=1", "flag=0", "scale=70000"}),
            "--arg scale: '70000' is out of range for f16 (largest finite value 65504)");
}

TEST(Outputs, ParseCheckAndWrite) {
  std::string error;
  EXPECT_FALSE(parseOutputSpec("c", error));
  EXPECT_EQ(error, "--output 'c': expected NAME=@FILE.npy, such as c=@c.npy");
  EXPECT_FALSE(parseOutputSpec("c=out.npy", error));
  EXPECT_EQ(error, "--output 'c=out.npy': expected NAME=@FILE.npy, such as c=@c.npy");
  EXPECT_FALSE(parseOutputSpec("c=@", error));

  std::string path = tempPath("out.npy");
  std::string text = "w=@" + path;
  std::optional<OutputSpec> out = parseOutputSpec(text, error);
  ASSERT_TRUE(out) << error;
  EXPECT_EQ(out->name, "w");
  EXPECT_EQ(out->path, path);

  std::vector<ArgSpec> args =
      specs({"x=1xf32=0", "w=2x2xbf16=1,2,3,4", "n=1", "flag=0", "scale=1"});
  auto outputs = [&](std::vector<OutputSpec> list) {
    error.clear();
    checkSpecs(args, list, error);
    return error;
  };
  EXPECT_EQ(outputs({{"y", "y.npy"}}),
            "--output y: no --arg y to write; an output names a buffer argument");
  EXPECT_EQ(outputs({{"n", "n.npy"}}), "--output n: 'n' is the scalar 1; only buffers can be "
                                       "written");
  EXPECT_EQ(outputs({{"x", "a.npy"}, {"x", "b.npy"}}), "--output x: given more than once");
  EXPECT_EQ(outputs({{"x", "a.npy"}, {"w", "a.npy"}}),
            "--output w: 'a.npy' is also the file of --output x");
  EXPECT_EQ(outputs({{"x", "a.npy"}, {"w", "b.npy"}}), "");

  std::optional<KernelArgs> bound = bindArgs("k", kParams, args, error);
  ASSERT_TRUE(bound) << error;
  ASSERT_TRUE(writeOutputs(*bound, {*out}, error)) << error;
  EXPECT_EQ(readFile(path), npyV1("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 2), }", 58,
                                  bytes({0x80, 0x3f, 0x00, 0x40, 0x40, 0x40, 0x80, 0x40})));
}

// --- grid and launcher flags -------------------------------------------------

TEST(LaunchFlags, Grid) {
  std::string error;
  std::optional<blockc_grid> g = parseGrid("1024", error);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->x, 1024);
  EXPECT_EQ(g->y, 1);
  EXPECT_EQ(g->z, 1);
  g = parseGrid("4,8,2", error);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->y, 8);
  EXPECT_EQ(g->z, 2);
  for (const char *bad : {"", "4,", "4,8,2,1", "x", "4x4", "1.5"}) {
    EXPECT_FALSE(parseGrid(bad, error)) << bad;
    EXPECT_EQ(error, "--grid '" + std::string(bad) +
                         "': expected X[,Y[,Z]], one to three whole numbers such as 1024 or 64,64");
  }
  EXPECT_FALSE(parseGrid("1,-1", error));
  EXPECT_EQ(error, "--grid '1,-1': y = -1: expected 0 to 2147483647 (program ids are int32)");
  EXPECT_FALSE(parseGrid("2147483648", error));
  EXPECT_EQ(
      error,
      "--grid '2147483648': x = 2147483648: expected 0 to 2147483647 (program ids are int32)");
}

blockc_launch_options defaults() {
  blockc_launch_options o;
  blockc_launch_options_init(&o);
  return o;
}

std::string flagError(const LaunchFlags &flags) {
  blockc_launch_options o = defaults(), before = o;
  std::string error;
  EXPECT_FALSE(applyLaunchFlags(flags, o, error));
  EXPECT_EQ(std::memcmp(&o, &before, sizeof o), 0) << "options changed on error";
  return error;
}

TEST(LaunchFlags, OverrideTheOptions) {
  blockc_launch_options o = defaults();
  std::string error;
  LaunchFlags flags;
  flags.threads = "2";
  flags.order = "Grouped";
  flags.groupSize = "4";
  flags.schedule = "dynamic,16";
  ASSERT_TRUE(applyLaunchFlags(flags, o, error)) << error;
  EXPECT_EQ(o.num_threads, 2);
  EXPECT_EQ(o.order, BLOCKC_ORDER_GROUPED);
  EXPECT_EQ(o.group_size, 4);
  EXPECT_EQ(o.schedule, BLOCKC_SCHEDULE_DYNAMIC);
  EXPECT_EQ(o.chunk_size, 16);

  // A schedule without a chunk means its default chunk, as BLOCKC_SCHEDULE does.
  o.chunk_size = 64;
  LaunchFlags guided;
  guided.schedule = "guided";
  ASSERT_TRUE(applyLaunchFlags(guided, o, error)) << error;
  EXPECT_EQ(o.schedule, BLOCKC_SCHEDULE_GUIDED);
  EXPECT_EQ(o.chunk_size, 0);
  guided.chunk = "8";
  ASSERT_TRUE(applyLaunchFlags(guided, o, error)) << error;
  EXPECT_EQ(o.chunk_size, 8);
  LaunchFlags agreeing;
  agreeing.schedule = "static,8";
  agreeing.chunk = "8";
  ASSERT_TRUE(applyLaunchFlags(agreeing, o, error)) << error;
}

TEST(LaunchFlags, BadValuesNameTheFlag) {
  LaunchFlags f;
  f.threads = "four";
  EXPECT_EQ(flagError(f), "--threads 'four': expected a whole number");
  f = {};
  f.threads = "5000";
  EXPECT_EQ(flagError(f), "num_threads = 5000: expected 0 (the default) to 1024 (from --threads)");
  f = {};
  f.order = "y";
  EXPECT_EQ(flagError(f), "--order 'y': expected x, z or grouped");
  f = {};
  f.groupSize = "4";
  EXPECT_EQ(flagError(f),
            "--group-size '4': only the grouped order uses a group size; add --order grouped");
  f.order = "grouped";
  f.groupSize = "0";
  EXPECT_EQ(flagError(f),
            "group_size = 0: the grouped order needs a group size of at least 1 (from "
            "--group-size)");
  f = {};
  f.schedule = "runtime";
  EXPECT_EQ(flagError(f), "--schedule 'runtime': expected static, dynamic, guided or auto, "
                          "optionally followed by ,CHUNK");
  f.schedule = "dynamic,";
  EXPECT_EQ(flagError(f), "--schedule 'dynamic,': expected static, dynamic, guided or auto, "
                          "optionally followed by ,CHUNK");
  f.schedule = "dynamic,-4";
  EXPECT_EQ(flagError(f),
            "chunk_size = -4: expected 0 (the schedule's default) or more (from --schedule)");
  f.schedule = "dynamic,4";
  f.chunk = "8";
  EXPECT_EQ(flagError(f), "--chunk '8' contradicts the chunk of --schedule 'dynamic,4'");
  f = {};
  f.chunk = "-1";
  EXPECT_EQ(flagError(f),
            "chunk_size = -1: expected 0 (the schedule's default) or more (from --chunk)");
  f = {};
  f.affinity = "3-1";
  EXPECT_EQ(flagError(f), "--affinity '3-1': the range '3-1' is descending");
  f.affinity = "0,a";
  EXPECT_EQ(flagError(f),
            "--affinity '0,a': 'a' is not a core id or a range FIRST-LAST of core ids");
  f.affinity = "-1";
  EXPECT_EQ(flagError(f),
            "--affinity '-1': '-1' is not a core id or a range FIRST-LAST of core ids");
  f.affinity = "0-300";
  EXPECT_EQ(flagError(f), "--affinity '0-300': more than 256 cores");
  f.affinity = "0,1,0";
  EXPECT_EQ(flagError(f), "affinity_cores[2] = 0: core 0 is listed twice (from --affinity)");
  f.affinity = "2000";
  EXPECT_EQ(flagError(f),
            "affinity_cores[0] = 2000: expected a core id from 0 to 1023 (from --affinity)");
}

} // namespace
