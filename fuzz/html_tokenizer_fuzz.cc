// libFuzzer target for the HTML5 tokenizer copy (mime/src/html_tokenizer.h)
// and for Prepare (mime/src/html_prepare.h), which re-emits its tokens for
// gumbo. Seed corpus: tests/fixtures/mail/*.eml (whole messages as bytes;
// most hold HTML, some of it quoted-printable). Traps on a broken contract:
//
// - Tokenizer: tokens are contiguous, cover the input and end with kEnd at
//   its size; every token but kRawText and kEnd is non-empty; each kind has
//   its shape (text holds no '<', a tag runs from '<' to '>' with its name
//   inside, raw text follows a start tag of its element and is followed by
//   kEnd or that element's end tag); at most n + 1 tokens.
// - Prepare, in every mode: at most four output bytes per input byte, and
//   the output tokenizes to text, complete tags, doctypes and raw text only
//   (no comment, no stray '<', nothing cut by the end).
// - Prepare is idempotent when nothing was cut: the output, prepared again,
//   is itself. So gumbo reads exactly the tokens Prepare meant it to.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mime/src/html_chars.h"
#include "mime/src/html_prepare.h"
#include "mime/src/html_tokenizer.h"

namespace {

using mw::mime::internal::IsRawTextElement;
using mw::mime::internal::Mode;
using mw::mime::internal::Token;
using mw::mime::internal::Tokenizer;
using mw::mime::internal::TokenKind;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

// Tokenizes `in`, checking the tokenizer contract; returns false when a token
// of a kind Prepare never emits (comment, stray '<', cut tag) was seen.
bool TokenizeAndCheck(std::string_view in) {
  const std::size_t n = in.size();
  Tokenizer tokenizer(in);
  std::size_t pos = 0;
  std::size_t count = 0;
  bool only_prepared_kinds = true;
  std::string raw_owner;   // the start tag a kRawText must follow
  std::string raw_closer;  // the end tag a kRawText must be followed by
  while (true) {
    const Token t = tokenizer.Next();
    Check(++count <= n + 1);
    Check(t.begin == pos && t.begin <= t.end && t.end <= n);
    const std::string_view span = in.substr(t.begin, t.end - t.begin);
    if (!raw_closer.empty()) {
      // Just after a kRawText: kEnd, or an end tag of its element.
      Check(t.kind == TokenKind::kEnd || t.name == raw_closer);
      Check(t.kind == TokenKind::kEnd || t.kind == TokenKind::kEndTag ||
            t.kind == TokenKind::kTruncated);
      raw_closer.clear();
    }
    if (!raw_owner.empty()) {
      Check(t.kind == TokenKind::kRawText && t.name == raw_owner);
      raw_owner.clear();
      if (t.name != "plaintext") raw_closer = t.name;
    } else {
      Check(t.kind != TokenKind::kRawText);
    }
    switch (t.kind) {
      case TokenKind::kEnd:
        Check(t.begin == n);
        return only_prepared_kinds;
      case TokenKind::kText:
        Check(!span.empty() && span.find('<') == std::string_view::npos);
        break;
      case TokenKind::kLessThan:
        Check(span == "<");
        only_prepared_kinds = false;
        break;
      case TokenKind::kStartTag:
      case TokenKind::kEndTag: {
        const std::size_t name_begin =
            t.begin + (t.kind == TokenKind::kEndTag ? 2 : 1);
        Check(span.size() >= name_begin - t.begin + 2 && span.front() == '<' &&
              span.back() == '>');
        Check(t.kind == TokenKind::kStartTag || span[1] == '/');
        Check(name_begin < t.name_end && t.name_end <= t.attrs_end &&
              t.attrs_end < t.end);
        Check(t.name == mw::mime::internal::AsciiLower(
                            in.substr(name_begin, t.name_end - name_begin)));
        if (t.kind == TokenKind::kStartTag && IsRawTextElement(t.name))
          raw_owner = t.name;
        break;
      }
      case TokenKind::kDoctype:
        Check(span.size() >= 10 && span.front() == '<' && span.back() == '>');
        break;
      case TokenKind::kComment:
        Check(!span.empty() && span.front() == '<');
        only_prepared_kinds = false;
        break;
      case TokenKind::kTruncated:
        Check(!span.empty() && span.front() == '<' && t.end == n);
        only_prepared_kinds = false;
        break;
      case TokenKind::kRawText:
        break;
    }
    Check(t.kind == TokenKind::kRawText || t.end > t.begin);
    pos = t.end;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  TokenizeAndCheck(in);
  // The depth cap HtmlToText uses for the default nesting limit (512 + 16),
  // and a small one, so that the depth cut is reached too.
  for (std::uint32_t cap : {528u, 8u}) {
    for (Mode mode :
         {Mode::kFull, Mode::kNoFormatting, Mode::kShallow, Mode::kTextOnly}) {
      const auto prepared = mw::mime::internal::Prepare(in, cap, mode);
      Check(prepared.html.size() <= 4 * size);
      Check(TokenizeAndCheck(prepared.html));
      if (mode == Mode::kFull && !prepared.depth_cut && !prepared.work_cut) {
        Check(mw::mime::internal::Prepare(prepared.html, cap, mode).html ==
              prepared.html);
      }
    }
  }
  return 0;
}
