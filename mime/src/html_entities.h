// HTML's character references, decoded as gumbo's tokenizer decodes them,
// private to mw::mime (html_stream.cc reads text and attribute values with
// it where gumbo is not asked).
#ifndef MW_MIME_HTML_ENTITIES_H_
#define MW_MIME_HTML_ENTITIES_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace mw::mime::internal {

// Appends `in`, character data of a document (`attribute` false) or an
// attribute's value (true), to `*out` with its character references decoded
// and CR LF and lone CR turned into LF, as gumbo 0.10 does: a named reference
// is the longest name the text starts with (with its ';', or one of the
// legacy names without it: in an attribute not when a letter, a digit or '='
// follows), a numeric one decimal or hexadecimal with or without its ';'
// (0x80-0x9F read as windows-1252; 0, surrogates and past U+10FFFF as
// U+FFFD); an '&' that starts neither stays. Returns false, `*out` then
// unspecified, for what this decoder does not decide like gumbo and leaves to
// it: a NUL byte, a name of two code points, and a numeric reference of more
// than six digits (gumbo's int overflows).
[[nodiscard]] bool DecodeReferences(std::string_view in, bool attribute,
                                    std::string* out);

// `cp` (at most U+10FFFF) as UTF-8, appended to `*out`.
void AppendUtf8(std::uint32_t cp, std::string* out);

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_ENTITIES_H_
