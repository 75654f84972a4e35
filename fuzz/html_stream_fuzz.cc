// libFuzzer target for the stream tree builder (mime/src/html_stream.h),
// differential against gumbo: wherever StreamText answers, its text must be
// the one HtmlToText writes from gumbo's tree of the same document
// (TreeBuilder::kGumbo). Seed corpus: tests/fixtures/mail/*.eml (whole
// messages as bytes: HTML, headers and quoted-printable soup alike).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mime/src/html.h"
#include "mime/src/html_chars.h"
#include "mime/src/html_prepare.h"
#include "mime/src/html_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace mw::mime;
  using namespace mw::mime::internal;
  const std::string_view html(reinterpret_cast<const char*>(data), size);
  constexpr std::uint32_t kLimit = 64;  // small, so depth is reached too
  const Prepared prepared = Prepare(html, kLimit + 16, Mode::kFull);
  if (prepared.depth_cut || prepared.work_cut) return 0;
  std::optional<std::string> stream =
      StreamText(prepared.html, prepared.styles, kLimit);
  if (!stream) return 0;
  const std::string gumbo =
      HtmlToText(html, kLimit, mw::Budget(), TreeBuilder::kGumbo).text;
  if (ValidUtf8(std::move(*stream)) != gumbo) __builtin_trap();
  return 0;
}
