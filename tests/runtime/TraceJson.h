//===- TraceJson.h - A strict JSON reader and checks of a trace file -*- C++ -*-===//
//
// The runtime's tests link no LLVM, so its JSON parser is not at hand: this
// reader accepts RFC 8259 JSON only (no trailing commas, no comments, nothing
// after the value) and is enough to check what a trace file holds. The
// driver's tests use it too.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace blockc::test {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  bool has(const std::string &key) const { return kind == Object && object.count(key); }
  const Json &operator[](const std::string &key) const {
    static const Json missing;
    auto it = object.find(key);
    return it == object.end() ? missing : it->second;
  }
  int64_t integer() const { return int64_t(number); }
};

class JsonReader {
public:
  /// Parses all of `text`; on an error returns false with `error` giving the
  /// offset.
  static bool parse(const std::string &text, Json &value, std::string &error) {
    JsonReader reader(text);
    if (!reader.value(value) || (reader.blanks(), reader.at_ != text.size())) {
      error = "invalid JSON at offset " + std::to_string(reader.at_);
      return false;
    }
    return true;
  }

private:
  explicit JsonReader(const std::string &text) : text_(text) {}

  void blanks() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t'))
      ++at_;
  }
  bool take(char c) {
    blanks();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool word(const char *w) {
    std::string s = w;
    if (text_.compare(at_, s.size(), s) != 0)
      return false;
    at_ += s.size();
    return true;
  }
  bool string(std::string &out) {
    if (!take('"'))
      return false;
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_++];
      if (uint8_t(c) < 0x20)
        return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= text_.size())
        return false;
      char e = text_[at_++];
      static const std::string simple = "\"\\/bfnrt", meaning = "\"\\/\b\f\n\r\t";
      if (size_t i = simple.find(e); i != std::string::npos) {
        out += meaning[i];
      } else if (e == 'u' && at_ + 4 <= text_.size()) {
        unsigned code = unsigned(std::strtoul(text_.substr(at_, 4).c_str(), nullptr, 16));
        at_ += 4;
        out += code < 0x80 ? char(code) : '?';
      } else {
        return false;
      }
    }
    return take('"');
  }
  bool number(double &out) {
    size_t begin = at_;
    if (at_ < text_.size() && text_[at_] == '-')
      ++at_;
    auto digits = [&] {
      size_t from = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9')
        ++at_;
      return at_ > from;
    };
    if (!digits())
      return false;
    if (at_ < text_.size() && text_[at_] == '.' && (++at_, !digits()))
      return false;
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-'))
        ++at_;
      if (!digits())
        return false;
    }
    out = std::strtod(text_.substr(begin, at_ - begin).c_str(), nullptr);
    return true;
  }
  bool value(Json &v) {
    blanks();
    if (at_ >= text_.size())
      return false;
    char c = text_[at_];
    if (c == '{') {
      v.kind = Json::Object;
      ++at_;
      if (take('}'))
        return true;
      do {
        std::string key;
        Json member;
        if (!string(key) || !take(':') || !value(member))
          return false;
        v.object[key] = std::move(member);
      } while (take(','));
      return take('}');
    }
    if (c == '[') {
      v.kind = Json::Array;
      ++at_;
      if (take(']'))
        return true;
      do {
        v.array.emplace_back();
        if (!value(v.array.back()))
          return false;
      } while (take(','));
      return take(']');
    }
    if (c == '"') {
      v.kind = Json::String;
      return string(v.string);
    }
    if (word("true") || word("false")) {
      v.kind = Json::Bool;
      v.boolean = text_[at_ - 1] == 'e' && text_[at_ - 2] == 'u';
      return true;
    }
    if (word("null"))
      return true;
    v.kind = Json::Number;
    return number(v.number);
  }

  const std::string &text_;
  size_t at_ = 0;
};

/// A launch of a trace and the spans of its threads, as the JSON gives them.
struct TracedLaunch {
  const Json *event = nullptr;
  std::vector<const Json *> spans;
};

/// Checks what every trace must satisfy and groups its events by launch:
/// "X" events with the fields the viewers need, each span inside its launch's
/// [ts, ts + dur], a span's programs consecutive and the launch's spans
/// covering its grid exactly once. Returns "" or the first problem.
inline std::string checkTrace(const Json &trace, std::map<int64_t, TracedLaunch> &launches) {
  if (trace.kind != Json::Object || trace["traceEvents"].kind != Json::Array)
    return "no traceEvents array";
  for (const Json &e : trace["traceEvents"].array) {
    const std::string &ph = e["ph"].string;
    if (ph == "M" || ph == "i")
      continue;
    if (ph != "X")
      return "an event of phase '" + ph + "'";
    for (const char *key : {"name", "cat", "pid", "tid", "ts", "dur", "args"})
      if (!e.has(key))
        return std::string("an X event without ") + key;
    TracedLaunch &launch = launches[e["args"]["launch"].integer()];
    if (e["cat"].string == "launch") {
      if (launch.event)
        return "two events for one launch";
      launch.event = &e;
    } else {
      launch.spans.push_back(&e);
    }
  }
  for (auto &[id, launch] : launches) {
    if (!launch.event)
      return "spans without their launch " + std::to_string(id);
    const Json &args = (*launch.event)["args"];
    double start = (*launch.event)["ts"].number, end = start + (*launch.event)["dur"].number;
    int64_t programs = args["programs"].integer(), untraced = args["untraced_programs"].integer();
    std::vector<bool> seen(size_t(programs), false);
    int64_t covered = 0;
    for (const Json *span : launch.spans) {
      double s = (*span)["ts"].number, e = s + (*span)["dur"].number;
      // Three decimals of microseconds are exact nanoseconds; the sum may
      // round in its last bit.
      if (s < start || e > end + 1e-6)
        return "a span of launch " + std::to_string(id) + " outside it";
      int64_t first = (*span)["args"]["first"].integer();
      int64_t count = (*span)["args"]["programs"].integer();
      int64_t thread = (*span)["args"]["thread"].integer();
      if (count < 1 || first < 0 || first + count > programs)
        return "a span of launch " + std::to_string(id) + " outside its grid";
      if (thread < 0 || thread >= args["threads"].integer())
        return "a span on thread " + std::to_string(thread) + " outside the team";
      for (int64_t p = first; p < first + count; ++p) {
        if (seen[size_t(p)])
          return "program " + std::to_string(p) + " in two spans";
        seen[size_t(p)] = true;
      }
      covered += count;
    }
    if (covered + untraced != programs)
      return "launch " + std::to_string(id) + ": spans hold " + std::to_string(covered) +
             " programs and " + std::to_string(untraced) + " ran untraced, of " +
             std::to_string(programs);
  }
  return "";
}

} // namespace blockc::test
