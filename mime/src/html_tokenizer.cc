// The HTML5 tokenizer states html_prepare.cc needs (see html_tokenizer.h).
// Each rule cites the tokenizer state it copies; where this tokenizer is
// simpler than the standard, the difference cannot move a token boundary.
#include "html_tokenizer.h"

#include <cstddef>
#include <string>
#include <string_view>

#include "html_chars.h"

namespace mw::mime::internal {

bool IsRawTextElement(std::string_view name) {
  return name == "script" || name == "style" || name == "title" ||
         name == "textarea" || name == "iframe" || name == "noembed" ||
         name == "noframes" || name == "xmp" || name == "plaintext";
}

Token Tokenizer::Next() {
  const std::size_t n = in_.size();
  const std::size_t i = pos_;
  Token token;
  token.begin = i;
  if (!raw_.empty()) {
    token.kind = TokenKind::kRawText;
    token.end = raw_ == "plaintext" ? n
                : raw_ == "script"  ? ScriptEnd(i)
                                    : RawTextEnd(i, raw_);
    token.name = std::move(raw_);
    raw_.clear();
    pos_ = token.end;
    return token;
  }
  if (i >= n) {
    token.end = n;
    token.begin = n;
    return token;  // kEnd
  }
  if (in_[i] != '<') {
    std::size_t lt = in_.find('<', i);
    token.kind = TokenKind::kText;
    token.end = lt == std::string_view::npos ? n : lt;
  } else {
    // Tag open state.
    char next = i + 1 < n ? in_[i + 1] : '\0';
    if (IsAsciiAlpha(next)) {
      token = Tag(i, false);
      if (token.kind == TokenKind::kStartTag && IsRawTextElement(token.name))
        raw_ = token.name;
    } else if (next == '/' && i + 2 < n && IsAsciiAlpha(in_[i + 2])) {
      token = Tag(i, true);
    } else if (next == '/' && i + 2 < n && in_[i + 2] == '>') {
      token.kind = TokenKind::kComment;  // "</>" is ignored
      token.end = i + 3;
    } else if (next == '/' && i + 2 < n) {
      token.kind = TokenKind::kComment;  // end tag open: bogus comment
      token.end = SkipTo('>', i + 2);
    } else if (next == '!' && in_.compare(i, 4, "<!--") == 0) {
      token.kind = TokenKind::kComment;
      token.end = SkipComment(i + 4);
    } else if (next == '!' && StartsWithNoCase(in_, i + 2, "doctype")) {
      token.end = SkipTo('>', i);
      token.kind = in_[token.end - 1] == '>' ? TokenKind::kDoctype
                                             : TokenKind::kTruncated;
    } else if (next == '!' || next == '?') {
      // Markup declaration open or '?': a bogus comment (CDATA outside
      // foreign content included).
      token.kind = TokenKind::kComment;
      token.end = SkipTo('>', i + 2);
    } else {
      token.kind = TokenKind::kLessThan;  // "</" at the end of input too
      token.end = i + 1;
    }
  }
  pos_ = token.end;
  return token;
}

// Index just past the next `c` at or after `from` (end of input if none).
std::size_t Tokenizer::SkipTo(char c, std::size_t from) const {
  std::size_t k = in_.find(c, from);
  return k == std::string_view::npos ? in_.size() : k + 1;
}

// From just after "<!--": returns the index after the comment's end, as the
// HTML5 comment states find it: "-->", "--!>", and the abrupt "<!-->" and
// "<!--->".
std::size_t Tokenizer::SkipComment(std::size_t j) const {
  if (j < in_.size() && in_[j] == '>') return j + 1;
  if (in_.compare(j, 2, "->") == 0) return j + 2;
  while (true) {
    std::size_t k = in_.find("--", j);
    if (k == std::string_view::npos) return in_.size();
    if (k + 2 < in_.size() && in_[k + 2] == '>') return k + 3;
    if (in_.compare(k + 2, 2, "!>") == 0) return k + 4;
    j = k + 1;
  }
}

// Tokenizes a tag starting at `lt` ("<name" or "</name") like the HTML5 tag
// name, attribute name and attribute value states: a '>' inside a quoted
// attribute value does not end it; '/' between attributes is skipped as the
// self-closing start tag state does.
Token Tokenizer::Tag(std::size_t lt, bool end_tag) const {
  const std::size_t n = in_.size();
  Token tag;
  tag.kind = end_tag ? TokenKind::kEndTag : TokenKind::kStartTag;
  tag.begin = lt;
  std::size_t p = lt + (end_tag ? 2 : 1);
  std::size_t name_start = p;
  while (p < n && !IsHtmlSpace(in_[p]) && in_[p] != '/' && in_[p] != '>') ++p;
  tag.name = AsciiLower(in_.substr(name_start, p - name_start));
  tag.name_end = p;
  tag.attrs_end = std::string_view::npos;
  std::size_t attributes = 0;
  while (true) {
    while (p < n && (IsHtmlSpace(in_[p]) || in_[p] == '/')) ++p;
    if (p >= n) break;
    if (in_[p] == '>') {
      tag.end = p + 1;
      if (tag.attrs_end == std::string_view::npos) tag.attrs_end = p;
      return tag;
    }
    if (++attributes > kMaxAttributes &&
        tag.attrs_end == std::string_view::npos) {
      tag.attrs_end = p;
    }
    ++p;  // the first character of a name may be '='
    while (p < n && !IsHtmlSpace(in_[p]) && in_[p] != '/' && in_[p] != '>' &&
           in_[p] != '=') {
      ++p;
    }
    while (p < n && IsHtmlSpace(in_[p])) ++p;
    if (p < n && in_[p] == '=') {
      ++p;
      while (p < n && IsHtmlSpace(in_[p])) ++p;
      if (p < n && (in_[p] == '"' || in_[p] == '\'')) {
        std::size_t close = in_.find(in_[p], p + 1);
        if (close == std::string_view::npos) break;
        p = close + 1;
      } else {
        while (p < n && !IsHtmlSpace(in_[p]) && in_[p] != '>') ++p;
      }
    }
  }
  // End of input inside a tag: the HTML5 tokenizer emits nothing.
  tag.kind = TokenKind::kTruncated;
  tag.end = n;
  return tag;
}

// "</name" followed by whitespace, '/' or '>' (an "appropriate end tag").
bool Tokenizer::IsEndTagOf(std::size_t k, std::string_view name) const {
  if (in_.compare(k, 2, "</") != 0 || !StartsWithNoCase(in_, k + 2, name))
    return false;
  std::size_t after = k + 2 + name.size();
  return after < in_.size() &&
         (IsHtmlSpace(in_[after]) || in_[after] == '/' || in_[after] == '>');
}

// RAWTEXT and RCDATA: the content ends at the first appropriate end tag.
std::size_t Tokenizer::RawTextEnd(std::size_t from,
                                  std::string_view name) const {
  for (std::size_t k = in_.find("</", from); k != std::string_view::npos;
       k = in_.find("</", k + 1)) {
    if (IsEndTagOf(k, name)) return k;
  }
  return in_.size();
}

// Script data with its escaped and double-escaped states: inside "<!--", a
// "<script" starts a region where "</script" does not end the element.
std::size_t Tokenizer::ScriptEnd(std::size_t from) const {
  enum { kData, kEscaped, kDouble } state = kData;
  std::size_t k = from;
  const std::size_t n = in_.size();
  while (k < n) {
    if (state == kData) {
      std::size_t lt = in_.find('<', k);
      if (lt == std::string_view::npos) return n;
      k = lt;
      if (in_.compare(k, 4, "<!--") == 0) {
        state = kEscaped;
        k += 2;  // the "--" of "<!--" may also begin "-->"
        continue;
      }
      if (IsEndTagOf(k, "script")) return k;
      ++k;
      continue;
    }
    if (in_.compare(k, 3, "-->") == 0) {
      state = kData;
      k += 3;
      continue;
    }
    if (state == kEscaped) {
      if (IsEndTagOf(k, "script")) return k;
      if (in_[k] == '<' && StartsWithNoCase(in_, k + 1, "script") &&
          k + 7 < n &&
          (IsHtmlSpace(in_[k + 7]) || in_[k + 7] == '/' || in_[k + 7] == '>')) {
        state = kDouble;
        k += 7;
        continue;
      }
    } else if (IsEndTagOf(k, "script")) {
      state = kEscaped;
      k += 8;
      continue;
    }
    ++k;
  }
  return n;
}

}  // namespace mw::mime::internal
