#include "sender/auth_results.h"

#include "mw/ascii.h"
#include "text.h"

namespace mw::sender {

namespace {

using internal::EqualNoCase;
using mw::IsDigit;
using internal::Lowered;

// A one-pass reader over the RFC 8601 grammar. Every loop advances `pos_`,
// comments nest by a counter rather than by recursion, so the work is linear
// in the field's length whatever the bytes are; anything unexpected is a
// failed step that the caller turns into the end of the list.
class Reader {
 public:
  explicit Reader(std::string_view text) : s_(text) {}

  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }

  // CFWS: white space and comments "( ... )", nested, with quoted pairs. An
  // unterminated comment runs to the end of the field (the rest is unread).
  void SkipCfws() {
    while (!AtEnd()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++pos_;
      } else if (c == '(') {
        int depth = 0;
        while (!AtEnd()) {
          const char d = s_[pos_++];
          if (d == '\\') {
            if (!AtEnd()) ++pos_;
          } else if (d == '(') {
            ++depth;
          } else if (d == ')' && --depth == 0) {
            break;
          }
        }
      } else {
        return;
      }
    }
  }

  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }

  // Keyword (RFC 8601 2.2, an ldh-str; '_' and '.' tolerated as some
  // verifiers write them in method names): "" when there is none.
  std::string_view Keyword() {
    const std::size_t start = pos_;
    while (!AtEnd()) {
      const char c = s_[pos_];
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      IsDigit(c) || c == '-' || c == '_';
      if (!ok) break;
      ++pos_;
    }
    return s_.substr(start, pos_ - start);
  }

  // A value: a token, a quoted-string, or the "local-part@domain" of a pvalue
  // whose local part is quoted; runs to white space, ';' or a comment. Quotes
  // are removed and quoted pairs unescaped. False for an unterminated quote.
  bool Value(std::string& out) {
    out.clear();
    while (!AtEnd()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' ||
          c == '(') {
        break;
      }
      if (c != '"') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      ++pos_;
      bool closed = false;
      while (!AtEnd()) {
        const char d = s_[pos_++];
        if (d == '\\') {
          if (!AtEnd()) out.push_back(s_[pos_++]);
        } else if (d == '"') {
          closed = true;
          break;
        } else {
          out.push_back(d);
        }
      }
      if (!closed) return false;
    }
    return true;
  }

  std::size_t pos() const { return pos_; }
  void set_pos(std::size_t pos) { pos_ = pos; }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
};

// resinfo after its ';': methodspec [reasonspec] *propspec, up to the next ';'
// or the end. False when it is malformed.
bool ReadResInfo(Reader& r, AuthResult& out) {
  r.SkipCfws();
  const std::string_view method = r.Keyword();
  if (method.empty()) return false;
  out.method = Lowered(method);
  r.SkipCfws();
  if (r.Consume('/')) {  // method-version
    r.SkipCfws();
    if (r.Keyword().empty()) return false;
    r.SkipCfws();
  }
  if (!r.Consume('=')) return false;
  r.SkipCfws();
  const std::string_view result = r.Keyword();
  if (result.empty()) return false;
  out.result = Lowered(result);
  std::string value;
  while (true) {
    r.SkipCfws();
    if (r.AtEnd() || r.Peek() == ';') return true;
    const std::string_view ptype = r.Keyword();
    if (ptype.empty()) return false;
    r.SkipCfws();
    if (EqualNoCase(ptype, "reason") && r.Consume('=')) {
      // reasonspec: read and dropped; the reason explains, it proves nothing.
      r.SkipCfws();
      if (!r.Value(value)) return false;
      continue;
    }
    if (!r.Consume('.')) return false;
    r.SkipCfws();
    const std::string_view property = r.Keyword();
    if (property.empty()) return false;
    r.SkipCfws();
    if (!r.Consume('=')) return false;
    r.SkipCfws();
    if (!r.Value(value)) return false;
    std::string name = Lowered(ptype);
    name.push_back('.');
    name += Lowered(property);
    out.properties.emplace_back(std::move(name), value);
  }
}

}  // namespace

std::optional<std::string_view> AuthResult::Property(
    std::string_view name) const {
  for (const auto& [key, value] : properties) {
    if (EqualNoCase(key, name)) return std::string_view(value);
  }
  return std::nullopt;
}

std::optional<AuthResults> ParseAuthResults(std::string_view value) {
  Reader r(value);
  AuthResults out;
  r.SkipCfws();
  if (!r.Value(out.authserv_id) || out.authserv_id.empty()) {
    return std::nullopt;
  }
  r.SkipCfws();
  // authres-version: digits standing alone before the first ';'.
  const std::size_t before_version = r.pos();
  bool digits = false;
  while (IsDigit(r.Peek())) {
    r.Consume(r.Peek());
    digits = true;
  }
  const char after = r.Peek();
  if (!digits || !(r.AtEnd() || after == ';' || after == ' ' || after == '\t' ||
                   after == '(' || after == '\r' || after == '\n')) {
    r.set_pos(before_version);
  }
  while (true) {
    r.SkipCfws();
    if (r.AtEnd() || !r.Consume(';')) break;
    r.SkipCfws();
    // no-result: "; none" and nothing else.
    const std::size_t before_method = r.pos();
    if (EqualNoCase(r.Keyword(), "none")) {
      r.SkipCfws();
      if (r.AtEnd() || r.Peek() == ';') break;
    }
    r.set_pos(before_method);
    AuthResult result;
    if (!ReadResInfo(r, result)) break;
    out.results.push_back(std::move(result));
  }
  return out;
}

}  // namespace mw::sender
