// A tree builder that reads a prepared document as a stream and hands the
// Walker what gumbo's tree of it would, private to mw::mime.
//
// Gumbo is three quarters of the HTML-to-text time (a full HTML5 tree in
// nodes it allocates, its own UTF-8 iteration per character). Most mail
// HTML needs only the common part of HTML5's tree construction: elements
// that nest, the implied ends of <p>, <li>, cells and rows, implied <tbody>
// and <tr>, void elements, and a formatting element closed where it was
// opened. StreamText builds exactly that with a stack of open elements and
// feeds the Walker (html_walker.h) as it goes, in one pass and without a
// tree; it gives up, and gumbo parses the document, the moment the document
// needs anything else: foster parenting, reopening formatting elements, the
// adoption agency's furthest block, quirks-mode tables, select, templates,
// foreign content, frames, a second <body> or <html>, character references
// it does not decide like gumbo (html_entities.h), bytes gumbo replaces, or
// a depth past the nesting limit. html_stream.cc lists each rule with
// gumbo's function it follows; tests/mime/html_stream_test.cc holds it to
// gumbo's output on the mail fixtures, on generated tag soup and in
// fuzz/html_stream_fuzz.cc.
//
// Thread-safe: no shared state.
#ifndef MW_MIME_HTML_STREAM_H_
#define MW_MIME_HTML_STREAM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "css.h"

namespace mw::mime::internal {

// The text the Walker writes from gumbo's tree of `prepared` (a document as
// Prepare writes it: no comments, no markup in raw text), with the document's
// style rules `styles` and the Walker's `nesting_limit`; nullopt where the
// document needs what this builder leaves to gumbo, with the first such thing
// named in `*why` when `why` is not null (a static string: for tests and
// measurements). Linear in the input.
std::optional<std::string> StreamText(std::string_view prepared,
                                      const StyleSheet& styles,
                                      std::uint32_t nesting_limit,
                                      std::string_view* why = nullptr);

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_STREAM_H_
