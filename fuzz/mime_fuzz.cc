// libFuzzer target for the extract path: mime::Parse then mime::Normalise, as
// the milter runs them. Seed corpus: tests/fixtures/mail/*.eml. Limits are the
// defaults except a smaller max_bytes, so each input stays fast and the fuzzer
// explores structure rather than size. Each input is parsed a second time
// with GMime's parser diagnostics, which must change nothing but warnings.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mime/message.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  static const bool initialised = [] {
    mw::mime::Init();
    return true;
  }();
  (void)initialised;
  mw::mime::Limits limits;
  limits.max_bytes = 1u << 20;
  auto message = mw::mime::Parse(
      std::string_view(reinterpret_cast<const char*>(data), size), limits);
  if (message.has_value()) {
    const mw::mime::Text text = mw::mime::Normalise(*message);
    // Normalised text is a fixed point; a difference means invalid UTF-8
    // escaped or the normaliser is not idempotent: both bugs.
    if (mw::mime::NormaliseText(text.body) != text.body) __builtin_trap();
  }
  // GMime's diagnostics (mailwave extract asks for them) add warnings and
  // nothing else: the same text and parts as without them.
  limits.parser_warnings = true;
  auto diagnosed = mw::mime::Parse(
      std::string_view(reinterpret_cast<const char*>(data), size), limits);
  if (diagnosed.has_value() != message.has_value()) __builtin_trap();
  if (message.has_value() &&
      (diagnosed->body != message->body ||
       diagnosed->subject != message->subject ||
       diagnosed->parts.size() != message->parts.size())) {
    __builtin_trap();
  }
  return 0;
}
