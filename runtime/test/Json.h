//===- Json.h - a strict little JSON reader for the trace tests -*- C++ -*-===//
//
// Parses a whole document (objects, arrays, strings with escapes, numbers,
// true/false/null) and fails on anything else, so a trace the runtime
// writes is checked to be JSON and then read back by structure.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_TEST_JSON_H
#define SHARDC_RUNTIME_TEST_JSON_H

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace shardc::testing {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  bool has(const std::string &key) const { return fields.count(key) != 0; }
  const Json &operator[](const std::string &key) const {
    static const Json none;
    auto it = fields.find(key);
    return it == fields.end() ? none : it->second;
  }
};

class JsonReader {
public:
  explicit JsonReader(const std::string &s) : s(s) {}

  /// The document, or false with `error` (and the byte offset).
  bool read(Json &out, std::string &error) {
    if (!value(out, 0) || (skip(), pos != s.size())) {
      error = "invalid JSON at byte " + std::to_string(pos);
      return false;
    }
    return true;
  }

private:
  void skip() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos])))
      ++pos;
  }
  bool literal(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  bool string(std::string &out) {
    if (pos >= s.size() || s[pos] != '"')
      return false;
    ++pos;
    while (pos < s.size() && s[pos] != '"') {
      char c = s[pos++];
      if (static_cast<unsigned char>(c) < 0x20)
        return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= s.size())
        return false;
      char e = s[pos++];
      switch (e) {
      case '"': case '\\': case '/': out += e; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u':
        if (pos + 4 > s.size())
          return false;
        for (int i = 0; i < 4; ++i)
          if (!std::isxdigit(static_cast<unsigned char>(s[pos + i])))
            return false;
        out += static_cast<char>(std::strtol(s.substr(pos, 4).c_str(), nullptr, 16));
        pos += 4;
        break;
      default:
        return false;
      }
    }
    if (pos >= s.size())
      return false;
    ++pos;
    return true;
  }
  bool number(double &out) {
    size_t start = pos;
    if (pos < s.size() && s[pos] == '-')
      ++pos;
    size_t digits = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
      ++pos;
    if (pos == digits)
      return false;
    if (pos < s.size() && s[pos] == '.') {
      size_t frac = ++pos;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
        ++pos;
      if (pos == frac)
        return false;
    }
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
      ++pos;
      if (pos < s.size() && (s[pos] == '+' || s[pos] == '-'))
        ++pos;
      size_t exp = pos;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
        ++pos;
      if (pos == exp)
        return false;
    }
    out = std::strtod(s.substr(start, pos - start).c_str(), nullptr);
    return true;
  }
  bool value(Json &out, int depth) {
    if (depth > 64)
      return false;
    skip();
    if (pos >= s.size())
      return false;
    char c = s[pos];
    if (c == '{') {
      out.kind = Json::Object;
      ++pos;
      skip();
      if (pos < s.size() && s[pos] == '}')
        return ++pos, true;
      for (;;) {
        skip();
        std::string key;
        if (!string(key))
          return false;
        skip();
        if (pos >= s.size() || s[pos++] != ':')
          return false;
        if (out.fields.count(key) || !value(out.fields[key], depth + 1))
          return false;
        skip();
        if (pos < s.size() && s[pos] == ',') {
          ++pos;
          continue;
        }
        return pos < s.size() && s[pos++] == '}';
      }
    }
    if (c == '[') {
      out.kind = Json::Array;
      ++pos;
      skip();
      if (pos < s.size() && s[pos] == ']')
        return ++pos, true;
      for (;;) {
        out.items.emplace_back();
        if (!value(out.items.back(), depth + 1))
          return false;
        skip();
        if (pos < s.size() && s[pos] == ',') {
          ++pos;
          continue;
        }
        return pos < s.size() && s[pos++] == ']';
      }
    }
    if (c == '"') {
      out.kind = Json::String;
      return string(out.text);
    }
    if (literal("true")) {
      out.kind = Json::Bool;
      out.boolean = true;
      return true;
    }
    if (literal("false")) {
      out.kind = Json::Bool;
      return true;
    }
    if (literal("null"))
      return true;
    out.kind = Json::Number;
    return number(out.number);
  }

  const std::string &s;
  size_t pos = 0;
};

} // namespace shardc::testing

#endif // SHARDC_RUNTIME_TEST_JSON_H
