// Charset conversion to UTF-8 with ICU, private to mw::mime.
#ifndef MW_MIME_CHARSET_H_
#define MW_MIME_CHARSET_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mw::mime {

struct Decoded {
  std::string utf8;  // always valid UTF-8
  std::string
      charset_used;  // lower-case name of what the bytes were decoded from
  std::size_t replaced =
      0;  // invalid or unmappable sequences replaced by U+FFFD
  bool detected =
      false;  // charset_used came from the detector, not the declaration
  std::string
      note;  // why the declaration was overridden; empty when it was not
};

// Decodes `bytes` declared as `declared` (may be empty) to UTF-8.
//
// The declaration is trusted when it converts cleanly. Undeclared 8-bit text,
// unknown charset names, UTF-8 that is not UTF-8 and Latin-1 declarations over
// text that the ICU detector confidently places in a non-Latin charset (common
// in spam) are decoded with the detected charset instead. Names are mapped as
// the WHATWG Encoding Standard does (iso-8859-1 means windows-1252, gb2312
// means GBK, ...), since mail clients decode that way.
Decoded DecodeToUtf8(std::string_view bytes, std::string_view declared);

// Test hook: `bytes` through ICU's UTF-8 converter, as DecodeToUtf8 decodes
// declared UTF-8 that is not well-formed; the oracle of its fast path.
Decoded TEST_DecodeUtf8ViaIcu(std::string_view bytes);

// Test hook: how many times this thread has run ICU's charset detector
// (DecodeToUtf8 remembers its last few samples and their answers).
std::uint64_t TEST_DetectorRuns();
// True when every byte is below 0x80 and no ISO-2022 escape is present.
bool IsPlainAscii(std::string_view bytes);

}  // namespace mw::mime

#endif  // MW_MIME_CHARSET_H_
