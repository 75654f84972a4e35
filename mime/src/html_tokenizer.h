// A copy of the HTML5 tokenizer's data, tag, comment, doctype, raw-text and
// script-data states, private to mw::mime.
//
// It splits a document into tokens exactly where the HTML5 tokenizer (and so
// gumbo) would, so that html_prepare.cc can re-emit a document gumbo reads
// the same way but that holds no comments, no markup inside raw text and no
// tag with more than kMaxAttributes attributes. It finds token boundaries
// only: no entity decoding, no attribute values, no character references.
//
// Contract, for any bytes: tokens are contiguous and cover the input in order
// (the first begins at 0, each begins where the one before ended, the last is
// kEnd at in.size()); every token but kRawText and kEnd is at least one byte
// long, and a kRawText follows a start tag of three bytes or more, so a
// document of n bytes yields at most n + 1 tokens. Each call runs in time
// linear in the bytes it consumes, except that a start tag of a raw-text
// element also scans its content once to find the end.
//
// Not thread-safe; one Tokenizer per document, which must outlive it.
#ifndef MW_MIME_HTML_TOKENIZER_H_
#define MW_MIME_HTML_TOKENIZER_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace mw::mime::internal {

// Attributes of one tag that Token::attrs_end keeps: gumbo compares each
// attribute with the earlier ones of its tag (quadratic).
constexpr std::size_t kMaxAttributes = 256;

enum class TokenKind {
  kText,       // character data up to the next '<' (no '<' inside)
  kLessThan,   // a '<' that starts no tag: the text "<"
  kStartTag,   // "<name ...>", from '<' to just past '>'
  kEndTag,     // "</name ...>"
  kDoctype,    // "<!doctype ...>" (any case), from '<' to just past '>'
  kComment,    // never visible: "<!--...-->" (or cut by the end of input),
               // bogus comments ("<!x>", "<?x>", "</ x>") and "</>"
  kTruncated,  // a tag or doctype cut by the end of input, to the end: the
               // HTML5 tokenizer emits nothing for it
  kRawText,    // the content of script, style, title, textarea, iframe,
               // noembed, noframes, xmp (up to their end tag or the end of
               // input) or plaintext (to the end of input); may be empty
  kEnd,        // end of input: begin == end == in.size()
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::size_t begin = 0;  // offsets into the input, begin <= end
  std::size_t end = 0;
  // kStartTag and kEndTag only (kTruncated tags also have a name, kRawText
  // the name of its element):
  std::string name;           // the tag name, ASCII lower-cased
  std::size_t name_end = 0;   // offset just past the name as written
  std::size_t attrs_end = 0;  // where the first kMaxAttributes attributes end
                              // (the '>' when there are no more); in
                              // [name_end, end)
};

// True for the elements whose content the tokenizer reads as raw text
// (RAWTEXT, RCDATA, script data or PLAINTEXT): `name` lower case.
bool IsRawTextElement(std::string_view name);

// One attribute of a start tag, as the HTML5 tokenizer's attribute states
// split them: its name as written (not lower-cased; the first character may
// be '='), its value as written without quotes (no references decoded), and
// the whole attribute as written (name, and '=' and the quoted value).
struct AttributeSpan {
  std::string_view name;
  std::string_view value;
  bool has_value = false;
  std::string_view whole;
};

// Calls `visit(const AttributeSpan&)` for each attribute in `in` (what lies
// between a start tag's name and its '>'), in order, until it returns false;
// returns whether every attribute was visited. Linear in `in`.
template <typename Visit>
bool ForEachAttribute(std::string_view in, Visit&& visit) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
  };
  std::size_t i = 0;
  const std::size_t n = in.size();
  while (true) {
    // Before a name: whitespace and '/' (a '/' not before '>' is dropped).
    while (i < n && (space(in[i]) || in[i] == '/')) ++i;
    if (i >= n) return true;
    AttributeSpan a;
    const std::size_t begin = i++;  // the first may be '='
    while (i < n && !space(in[i]) && in[i] != '/' && in[i] != '=') ++i;
    a.name = in.substr(begin, i - begin);
    std::size_t end = i;
    while (i < n && space(in[i])) ++i;
    if (i < n && in[i] == '=') {
      ++i;
      while (i < n && space(in[i])) ++i;
      a.has_value = true;
      if (i < n && (in[i] == '"' || in[i] == '\'')) {
        const char quote = in[i++];
        std::size_t close = in.find(quote, i);
        if (close == std::string_view::npos) close = n;
        a.value = in.substr(i, close - i);
        i = close < n ? close + 1 : n;
      } else {
        const std::size_t value = i;
        while (i < n && !space(in[i])) ++i;
        a.value = in.substr(value, i - value);
      }
      end = i;
    }
    a.whole = in.substr(begin, end - begin);
    if (!visit(a)) return false;
  }
}

class Tokenizer {
 public:
  explicit Tokenizer(std::string_view in) : in_(in) {}

  // The next token; kEnd at the end of input and on every later call. A
  // kStartTag of a raw-text element is always followed by its kRawText (even
  // when empty), and that by kEnd or by a kEndTag or kTruncated token with the
  // element's name.
  Token Next();

 private:
  Token Tag(std::size_t lt, bool end_tag) const;
  std::size_t SkipTo(char c, std::size_t from) const;
  std::size_t SkipComment(std::size_t j) const;
  bool IsEndTagOf(std::size_t k, std::string_view name) const;
  std::size_t RawTextEnd(std::size_t from, std::string_view name) const;
  std::size_t ScriptEnd(std::size_t from) const;

  std::string_view in_;
  std::size_t pos_ = 0;
  std::string raw_;  // the raw-text element whose content comes next
};

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_TOKENIZER_H_
