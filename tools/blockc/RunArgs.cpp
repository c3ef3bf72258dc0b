//===- RunArgs.cpp - Kernel arguments of `blockc run` --------------------===//
#include "RunArgs.h"

#include "Elements.h"
#include "Npy.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace blockc::driver {

namespace {

constexpr std::string_view kElementTypes = "i1, i8, i16, i32, i64, f16, bf16, f32 or f64";

std::string parameterList(const std::vector<Param> &params) {
  std::string out;
  for (const Param &p : params)
    out += (out.empty() ? "" : ", ") + p.name + ": " + p.type.str();
  return out.empty() ? "none" : out;
}

const ArgSpec *findSpec(const std::vector<ArgSpec> &specs, std::string_view name) {
  for (const ArgSpec &s : specs)
    if (s.name == name)
      return &s;
  return nullptr;
}

bool loadFile(const Param &param, const ArgSpec &spec, BoundArg &arg, std::string &error) {
  std::string where = "--arg " + spec.name + ": ";
  NpyReader reader;
  if (!reader.open(spec.path, error)) {
    error = where + error;
    return false;
  }
  const NpyHeader &header = reader.header();
  ScalarKind pointee = param.type.kind();
  bool bitPatterns = (pointee == ScalarKind::BF16 && header.descr == "<u2") ||
                     (isStorageOnlyKind(pointee) && header.kind == ScalarKind::I8 &&
                      header.descr.size() == 3 && header.descr[1] == 'u');
  if (header.kind != pointee && !bitPatterns) {
    error = where + "parameter '" + param.name + "' is " + param.type.str() +
            ": expected a buffer of " + std::string(scalarKindName(pointee)) + " (.npy dtype " +
            std::string(npyDescr(pointee)) + "), but '" + spec.path + "' holds " + header.descr;
    return false;
  }
  std::optional<HostBuffer> buffer = HostBuffer::allocate(header.dataBytes);
  if (!buffer) {
    error = where + "cannot allocate " + std::to_string(header.dataBytes) + " bytes for '" +
            spec.path + "'";
    return false;
  }
  if (!reader.readData(buffer->data(), error)) {
    error = where + error;
    return false;
  }
  arg.buffer = std::move(*buffer);
  arg.dtype = pointee;
  arg.shape = header.shape;
  arg.npyDescr = header.descr;
  return true;
}

bool fillBuffer(const Param &param, const ArgSpec &spec, BoundArg &arg, std::string &error) {
  std::string where = "--arg " + spec.name + ": ";
  ScalarKind pointee = param.type.kind();
  if (spec.dtype != pointee) {
    error = where + "parameter '" + param.name + "' is " + param.type.str() +
            ": expected a buffer of " + std::string(scalarKindName(pointee)) + ", got " +
            std::string(scalarKindName(spec.dtype)) + " in '" + spec.text + "'";
    return false;
  }
  unsigned size = elementBytes(spec.dtype);
  uint64_t bytes = *byteSize(spec.shape, size); // checked when parsed
  std::optional<HostBuffer> buffer = HostBuffer::allocate(bytes);
  if (!buffer) {
    error = where + "cannot allocate " + std::to_string(bytes) + " bytes for " + spec.text;
    return false;
  }
  auto *data = static_cast<unsigned char *>(buffer->data());
  uint64_t count = bytes / size;
  if (spec.fill == FillKind::Random) {
    fillRandom(spec.dtype, spec.name, spec.seed, data, count);
  } else if (spec.fill == FillKind::List) {
    std::memcpy(data, spec.values.data(), bytes);
  } else {
    for (uint64_t i = 0; i < count; ++i)
      std::memcpy(data + i * size, spec.values.data(), size);
  }
  arg.buffer = std::move(*buffer);
  arg.dtype = spec.dtype;
  arg.shape = spec.shape;
  arg.npyDescr = std::string(npyDescr(spec.dtype));
  return true;
}

bool bindOne(const Param &param, const ArgSpec &spec, BoundArg &arg, std::string &error) {
  std::string where = "--arg " + spec.name + ": ";
  arg.name = param.name;
  arg.type = param.type;
  if (!param.type.isPointer()) {
    if (spec.kind == ArgSpec::Kind::Buffer) {
      error = where + "parameter '" + param.name + "' is " + param.type.str() +
              ", a scalar: expected a number such as 42, got the buffer '" + spec.text + "'";
      return false;
    }
    if (!encodeNumber(param.type.kind(), spec.text, arg.scalar, error)) {
      error = where + error;
      return false;
    }
    return true;
  }
  if (spec.kind == ArgSpec::Kind::Scalar) {
    std::string_view pointee = scalarKindName(param.type.kind());
    error = where + "parameter '" + param.name + "' is " + param.type.str() +
            ": expected a buffer such as 1024x" + std::string(pointee) + "=random or @FILE.npy, " +
            "got the number '" + spec.text + "'";
    return false;
  }
  arg.isBuffer = true;
  if (!(spec.fill == FillKind::File ? loadFile(param, spec, arg, error)
                                    : fillBuffer(param, spec, arg, error)))
    return false;
  arg.pointer = arg.buffer.data();
  return true;
}

bool parseFill(std::string_view fill, ArgSpec &spec, std::string &error) {
  std::string where = "--arg " + spec.name + ": ";
  if (fill.empty()) {
    error = where + "expected a fill after '" + spec.text +
            "': random, random:SEED, a number, or one number per element separated by commas";
    return false;
  }
  if (fill == "random" || fill.rfind("random:", 0) == 0) {
    spec.fill = FillKind::Random;
    if (fill.size() > 6 && !parseWhole(fill.substr(7), spec.seed)) {
      error = where + "the seed of '" + std::string(fill) +
              "' must be a whole number from 0 to 18446744073709551615";
      return false;
    }
    return true;
  }
  unsigned size = elementBytes(spec.dtype);
  uint64_t count = *byteSize(spec.shape, size) / size;
  std::vector<std::string_view> items;
  for (size_t begin = 0;;) {
    size_t comma = fill.find(',', begin);
    items.push_back(fill.substr(begin, comma - begin));
    if (comma == std::string_view::npos)
      break;
    begin = comma + 1;
  }
  if (items.size() != 1 && items.size() != count) {
    error = where + std::to_string(items.size()) + " values for the " + std::to_string(count) +
            " elements of '" + spec.text.substr(0, spec.text.find('=')) +
            "'; give one value to fill with, or all " + std::to_string(count);
    return false;
  }
  spec.fill = items.size() == 1 ? FillKind::Value : FillKind::List;
  spec.values.resize(items.size() * size);
  for (size_t i = 0; i < items.size(); ++i)
    if (!encodeNumber(spec.dtype, items[i], spec.values.data() + i * size, error)) {
      error.insert(0, where);
      return false;
    }
  return true;
}

/// `DIMSxDTYPE`: `1024x64xf32`, or a bare `f32` for rank 0.
bool parseShapedType(std::string_view text, ArgSpec &spec, std::string &error) {
  std::string where = "--arg " + spec.name + ": ";
  size_t lastX = text.rfind('x');
  std::string_view dtype = lastX == std::string_view::npos ? text : text.substr(lastX + 1);
  std::optional<ScalarKind> kind = parseScalarKind(dtype);
  if (!kind) {
    error = where + "unknown element type " + quoted(dtype) + " in " + quoted(text) +
            "; expected " + std::string(kElementTypes);
    return false;
  }
  spec.dtype = *kind;
  if (lastX != std::string_view::npos) {
    std::string_view dims = text.substr(0, lastX);
    for (size_t begin = 0;;) {
      size_t x = dims.find('x', begin);
      std::string_view dim = dims.substr(begin, x - begin);
      int64_t value;
      if (!parseWhole(dim, value) || value < 0 || dim[0] == '+') {
        error = where + "dimension " + quoted(dim) + " of " + quoted(text) +
                " is not a whole number (expected DIMSxDTYPE, such as 1024x64xf32)";
        return false;
      }
      spec.shape.push_back(value);
      if (x == std::string_view::npos)
        break;
      begin = x + 1;
    }
  }
  if (!byteSize(spec.shape, elementBytes(spec.dtype))) {
    error = where + quoted(text) + " is too large (more than 2^62 bytes)";
    return false;
  }
  return true;
}

/// A spec without '=' that ends in an element type is a buffer missing its
/// fill, not a scalar.
bool looksLikeShapedType(std::string_view text) {
  size_t lastX = text.rfind('x');
  return parseScalarKind(lastX == std::string_view::npos ? text : text.substr(lastX + 1))
      .has_value();
}

} // namespace

void HostBuffer::Free::operator()(void *p) const {
  std::free(p);
}

std::optional<HostBuffer> HostBuffer::allocate(uint64_t bytes) {
  constexpr uint64_t kAlign = 64;
  // aligned_alloc wants a multiple of the alignment; a zero-element buffer
  // still gets a valid, distinct address.
  uint64_t rounded = (std::max<uint64_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  if (rounded > std::numeric_limits<size_t>::max())
    return std::nullopt;
  void *p = std::aligned_alloc(kAlign, size_t(rounded));
  if (!p)
    return std::nullopt;
  // The padding is never the kernel's to read, but zeros keep runs repeatable.
  std::memset(static_cast<unsigned char *>(p) + bytes, 0, size_t(rounded - bytes));
  HostBuffer buffer;
  buffer.data_.reset(p);
  buffer.size_ = bytes;
  return buffer;
}

KernelArgs::KernelArgs(std::vector<BoundArg> args) : args_(std::move(args)) {
  for (BoundArg &a : args_)
    pointers_.push_back(a.isBuffer ? static_cast<void *>(&a.pointer) : a.scalar);
  pointers_.push_back(nullptr); // keeps data() valid for a kernel without parameters
}

const BoundArg *KernelArgs::find(std::string_view name) const {
  for (const BoundArg &a : args_)
    if (a.name == name)
      return &a;
  return nullptr;
}

uint64_t KernelArgs::bufferBytes() const {
  uint64_t total = 0;
  for (const BoundArg &a : args_)
    total += a.isBuffer ? a.buffer.size() : 0;
  return total;
}

std::optional<ArgSpec> parseArgSpec(std::string_view text, std::string &error) {
  size_t eq = text.find('=');
  std::string_view name = text.substr(0, eq);
  if (!name.empty() && name[0] == '%') // as the parameter is written in .bir
    name.remove_prefix(1);
  if (eq == std::string_view::npos || name.empty()) {
    error = "--arg " + quoted(text) +
            ": expected NAME=SPEC, such as a=1024xf32=random, a=@in.npy or n=42";
    return std::nullopt;
  }
  ArgSpec spec;
  spec.name = std::string(name);
  spec.text = std::string(text.substr(eq + 1));
  std::string_view body = spec.text;
  std::string where = "--arg " + spec.name + ": ";
  if (body.empty()) {
    error = where + "expected a spec after '" + spec.name +
            "=': DIMSxDTYPE=FILL, @FILE.npy or a number";
    return std::nullopt;
  }
  if (body[0] == '@') {
    if (body.size() == 1) {
      error = where + "expected a file name after '@'";
      return std::nullopt;
    }
    spec.kind = ArgSpec::Kind::Buffer;
    spec.fill = FillKind::File;
    spec.path = std::string(body.substr(1));
    return spec;
  }
  size_t fillEq = body.find('=');
  if (fillEq == std::string_view::npos) {
    if (looksLikeShapedType(body)) {
      error = where + quoted(body) + " has no fill; expected " + std::string(body) + "=random, " +
              std::string(body) + "=0 or a list of values";
      return std::nullopt;
    }
    if (!looksLikeNumber(body)) {
      error = where + quoted(body) +
              " is neither a number (such as 42 or 1.5) nor a buffer (such as 1024xf32=random "
              "or @in.npy)";
      return std::nullopt;
    }
    spec.kind = ArgSpec::Kind::Scalar;
    return spec;
  }
  spec.kind = ArgSpec::Kind::Buffer;
  if (!parseShapedType(body.substr(0, fillEq), spec, error) ||
      !parseFill(body.substr(fillEq + 1), spec, error))
    return std::nullopt;
  return spec;
}

std::optional<KernelArgs> bindArgs(std::string_view kernelName, const std::vector<Param> &params,
                                   const std::vector<ArgSpec> &specs, std::string &error) {
  if (!checkSpecs(specs, {}, error))
    return std::nullopt;
  // Unknown names first: a misspelled name would otherwise be reported as a
  // missing parameter.
  for (const ArgSpec &spec : specs) {
    bool known = false;
    for (const Param &p : params)
      known |= p.name == spec.name;
    if (!known) {
      error = "--arg " + spec.name + ": kernel '" + std::string(kernelName) +
              "' has no parameter '" + spec.name + "'; its parameters are " + parameterList(params);
      return std::nullopt;
    }
  }
  std::string missing;
  for (const Param &p : params)
    if (!findSpec(specs, p.name))
      missing += (missing.empty() ? "" : ", ") + quoted(p.name) + " (" + p.type.str() + ")";
  if (!missing.empty()) {
    bool several = missing.find(',') != std::string::npos;
    error = std::string("missing --arg for ") + (several ? "parameters " : "parameter ") + missing +
            " of kernel '" + std::string(kernelName) + "'";
    return std::nullopt;
  }
  std::vector<BoundArg> bound(params.size());
  for (size_t i = 0; i < params.size(); ++i)
    if (!bindOne(params[i], *findSpec(specs, params[i].name), bound[i], error))
      return std::nullopt;
  return KernelArgs(std::move(bound));
}

std::optional<OutputSpec> parseOutputSpec(std::string_view text, std::string &error) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 2 > text.size() || text[eq + 1] != '@' ||
      eq + 2 == text.size()) {
    error = "--output " + quoted(text) + ": expected NAME=@FILE.npy, such as c=@c.npy";
    return std::nullopt;
  }
  std::string_view name = text.substr(0, eq);
  if (name[0] == '%')
    name.remove_prefix(1);
  return OutputSpec{std::string(name), std::string(text.substr(eq + 2))};
}

bool checkSpecs(const std::vector<ArgSpec> &args, const std::vector<OutputSpec> &outputs,
                std::string &error) {
  for (size_t i = 0; i < args.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (args[i].name == args[j].name) {
        error = "--arg " + args[i].name + ": given more than once";
        return false;
      }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputSpec &out = outputs[i];
    std::string where = "--output " + out.name + ": ";
    const ArgSpec *arg = findSpec(args, out.name);
    if (!arg) {
      error = where + "no --arg " + out.name + " to write; an output names a buffer argument";
      return false;
    }
    if (arg->kind != ArgSpec::Kind::Buffer) {
      error =
          where + "'" + out.name + "' is the scalar " + arg->text + "; only buffers can be written";
      return false;
    }
    for (size_t j = 0; j < i; ++j) {
      if (outputs[j].name == out.name) {
        error = where + "given more than once";
        return false;
      }
      if (outputs[j].path == out.path) {
        error = where + quoted(out.path) + " is also the file of --output " + outputs[j].name;
        return false;
      }
    }
  }
  return true;
}

bool writeOutputs(const KernelArgs &args, const std::vector<OutputSpec> &outputs,
                  std::string &error) {
  for (const OutputSpec &out : outputs) {
    const BoundArg *arg = args.find(out.name);
    if (!arg || !arg->isBuffer) {
      error = "--output " + out.name + ": no buffer argument '" + out.name + "'";
      return false;
    }
    if (!writeNpy(out.path, arg->npyDescr, arg->shape, arg->buffer.data(), error)) {
      error.insert(0, "--output " + out.name + ": ");
      return false;
    }
  }
  return true;
}

} // namespace blockc::driver
