// MIME to text: the first stage of the pipeline (bytes -> Message -> Text).
//
// Parse() reads an RFC 822 message from memory with GMime, walks every part at
// any depth (forwarded message/rfc822 included), converts each text part to
// UTF-8 and HTML to plain text, and returns a plain value. Normalise() then
// applies ICU normalisation to give the Text that language identification and
// fingerprinting read.
//
// Hostile input degrades, it does not fail: a truncated, malformed or oversized
// message yields whatever could be extracted plus warnings. Every limit in
// Limits bounds time and memory.
//
// Thread-safety: both functions are pure and reentrant (GMime objects never
// leave Parse). REQUIRES: mime::Init() has been called once, before any thread
// that calls Parse starts.
#ifndef MW_MIME_MESSAGE_H_
#define MW_MIME_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mw/budget.h"
#include "mw/result.h"

namespace mw::mime {

// Defaults follow Postfix where it has a parameter of the same meaning.
struct Limits {
  std::uint64_t max_bytes = 32ull
                            << 20;  // raw bytes analysed; the rest is ignored
  std::uint64_t max_text_bytes = 4ull << 20;  // UTF-8 text kept over all parts
  std::uint64_t header_size_limit = 102400;   // longer header values are cut
  std::uint32_t nesting_limit = 100;  // MIME depth; deeper parts are skipped
  std::uint32_t max_parts = 1000;     // parts visited; later ones are skipped
  std::uint32_t html_nesting_limit =
      512;  // HTML elements deeper than this are skipped
  // GMime's parser diagnostics as "parser: ..." warnings (a duplicated or
  // conflicting header, 8-bit or badly encoded header values, a multipart
  // cut before its closing boundary, which also sets `truncated`). Off by
  // default: asking GMime for them makes it decode every header of every
  // part as it parses, about a third more of its own parse, and nothing but
  // the diagnostics reads them.
  bool parser_warnings = false;
  // The message's work budget: checked before each part and each HTML parse
  // attempt; past it the parts left are skipped with a "budget:" warning and
  // `truncated` set. Unlimited by default.
  Budget budget;
};

// One MIME leaf part, as the summary of `mailwave extract --json` shows it.
struct Part {
  std::string path;  // position in the tree: "1", "2.1", "2.1.3"; a file
                     // uuencoded inside text part P is "P.uu1", "P.uu2", ...
  std::uint32_t depth = 0;       // 0 for a single-part message's body
  std::string content_type;      // lower-case "type/subtype"
  std::string declared_charset;  // as declared, lower-case; empty when none
  std::string
      charset_used;  // what the text was decoded from; empty for non-text
  std::string transfer_encoding;  // "7bit", "8bit", "binary", "base64",
                                  // "quoted-printable", "uuencode"
  std::uint64_t size = 0;         // decoded size in bytes
  std::string
      filename;      // attachment name (RFC 2231 / 2047 decoded); may be empty
  std::string sha1;  // hex SHA-1 of the decoded content, for attachments
  bool attachment =
      false;  // not inline text: disposition attachment or non-text type
  bool used_for_text = false;  // its text went into the body
};

// Decoded, not yet normalised, text of the message.
struct Message {
  std::string subject;  // RFC 2047 decoded to UTF-8; empty when absent
  std::string
      body;  // UTF-8 text of the chosen parts, HTML already turned into text;
             // lines end in '\n', paragraphs are separated by a blank line
  std::vector<Part> parts;  // every leaf part visited, in document order
  // Header values the pipeline keeps only as keyed hashes or uses to name the
  // sender when no envelope is known; RFC 2047 decoded, cut at
  // header_size_limit; empty when absent.
  std::string message_id;   // Message-ID, without the angle brackets
  std::string from;         // the first From address ("user@example.org")
  std::string return_path;  // Return-Path address; "" also for "<>"
  // Human-readable, each "<category>: <detail>" where the category is one of
  // "limit", "budget", "parser", "charset", "encoding" or "part <path>"
  // (a part's own problem; its detail may start with "charset:").
  std::vector<std::string> warnings;
  bool truncated = false;  // a limit stopped extraction early
};

// Normalised text: what langid and fingerprint read. Immutable once built.
struct Text {
  std::string body;     // NFKC case-folded UTF-8, invisible characters removed,
                        // whitespace collapsed inside lines; lines kept,
                        // paragraphs separated by "\n\n"
  std::string subject;  // the same normalisation, on one line
};

// Initialises GMime. Call once from main() before threads start; later calls do
// nothing.
void Init();

// Parses `bytes` (a complete RFC 822 message, headers and body). Fails only
// when nothing usable can be read (empty input); every other defect becomes a
// warning in the returned Message.
Result<Message> Parse(std::span<const std::byte> bytes, const Limits& limits);
Result<Message> Parse(std::string_view bytes, const Limits& limits);

// Normalises the subject and body of `message` (see Text).
Text Normalise(const Message& message);

// The normalisation Normalise applies, on any UTF-8 text (invalid sequences
// become U+FFFD). Keeps '\n' line structure and folds runs of blank lines into
// one; used directly for plain-text input such as language samples.
std::string NormaliseText(std::string_view utf8);

// Whether ICU's NFKC_Casefold data could not be loaded in this process; then
// Normalise and NormaliseText fall back to plain case folding, whose text
// differs from the specified normalisation, so fingerprints made from it
// must not be compared (the pipeline marks such analyses degraded).
bool NormalisationDegraded();

// Test hook: NormaliseText through ICU alone (UTF-16 conversion and
// NFKC_Casefold of the whole text), without the per-character fast paths.
// NormaliseText gives the same bytes for every input.
std::string TEST_NormaliseTextIcu(std::string_view utf8);

}  // namespace mw::mime

#endif  // MW_MIME_MESSAGE_H_
