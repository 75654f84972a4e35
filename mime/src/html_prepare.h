// Re-emits an HTML document for gumbo with the guards against hostile input,
// private to mw::mime. html.cc explains why each guard exists.
//
// Prepare tokenizes the input as the HTML5 tokenizer does (html_tokenizer.h)
// and writes a document that gumbo tokenizes into the same tokens, minus:
// comments and bogus comments (never visible); markup inside raw text
// (script, style, textarea, ...: every '<' in it is escaped, so gumbo sees
// only text there); attributes past kMaxAttributes; start tags that the depth
// estimate (depth_estimate.h) says would nest deeper than the cap; and, past
// kMaxTagWork, every tag. Of attributes with one name only the first is kept
// (html_prepare.cc says why). Stray '<' becomes "&lt;". <noscript> is renamed
// to <mw-noscript> (an unknown inline element: mail clients show its content,
// gumbo would read it as raw text), <xmp> and <plaintext> to <pre>.
//
// Thread-safe: no shared state.
#ifndef MW_MIME_HTML_PREPARE_H_
#define MW_MIME_HTML_PREPARE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "css.h"

namespace mw::mime::internal {

// How much of the markup gumbo gets. Each failed parse (memory or time) moves
// to a cheaper mode; the last one is linear in the input whatever it holds.
enum class Mode {
  kFull,
  kNoFormatting,  // formatting elements (b, i, font, ...) dropped: the tree
                  // builder reopens those, the only way few bytes make many
                  // nodes
  kShallow,       // also a depth cap of kShallowDepth
  kTextOnly,      // no elements at all; block tags become paragraph breaks
                  // (hidden text can no longer be recognised)
};
constexpr std::uint32_t kShallowDepth = 32;

// Sum of the estimated depth (plus one) over all tags passed to gumbo; past
// it only text is passed on. Real mail is far below (at most 2 per input byte
// in the development corpus); 30000 nested tags followed by 1 MB of </p>
// would otherwise cost gumbo minutes.
constexpr std::uint64_t kMaxTagWork = 64u << 20;

struct Prepared {
  std::string html;        // what gumbo parses
  StyleSheet styles;       // the rules of every <style> element, kept or not
  bool depth_cut = false;  // start tags were dropped by the depth estimate
  bool work_cut = false;   // tags were dropped by the work limit
};

// Prepares `in` for gumbo. `depth_cap` bounds the estimated depth of the tree
// (kShallowDepth bounds it too from Mode::kShallow on). The output is at most
// four bytes per input byte ("<" -> "&lt;"). Text, raw text of elements that
// show it (textarea, xmp, plaintext, and of any kept element) and doctypes
// pass unchanged apart from that escaping.
Prepared Prepare(std::string_view in, std::uint32_t depth_cap, Mode mode);

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_PREPARE_H_
