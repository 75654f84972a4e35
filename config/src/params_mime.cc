// [mime]: limits on untrusted input (defaults in MimeSettings, config.h).
//
// The lower bounds keep a typo from disabling analysis (a 0-byte limit would
// pass every message unread); the upper bounds keep one message from taking
// unbounded memory or time. Postfix's own limits are header_size_limit 102400
// and mime_nesting_limit 100.
#include "params.h"
#include "units.h"

namespace mw::config {

Table MimeTable() {
  using S = MimeSettings;
  static const Param kParams[] = {
      {.key = "max_bytes",
       .kind = Kind::kSize,
       .min = kKiB,
       .max = kGiB,
       .meaning = "raw message bytes analysed; the rest is not parsed and a "
                  "warning is recorded",
       .field = Member<&Settings::mime, &S::max_bytes>},
      {.key = "max_text_bytes",
       .kind = Kind::kSize,
       .min = kKiB,
       .max = kGiB,
       .meaning = "decoded UTF-8 text kept over all parts; longer text is cut "
                  "with a warning",
       .field = Member<&Settings::mime, &S::max_text_bytes>},
      {.key = "header_size_limit",
       .kind = Kind::kSize,
       .min = kKiB,
       .max = 64 * kMiB,
       .meaning = "longest header value kept; longer ones are cut (Postfix "
                  "header_size_limit)",
       .field = Member<&Settings::mime, &S::header_size_limit>},
      {.key = "nesting_limit",
       .kind = Kind::kCount,
       .min = 1,
       .max = 10000,
       .meaning = "MIME nesting depth; deeper parts are skipped (Postfix "
                  "mime_nesting_limit)",
       .field = Member<&Settings::mime, &S::nesting_limit>},
      {.key = "max_parts",
       .kind = Kind::kCount,
       .min = 1,
       .max = 100000,
       .meaning = "MIME parts visited per message; later parts are skipped",
       .field = Member<&Settings::mime, &S::max_parts>},
      {.key = "html_nesting_limit",
       .kind = Kind::kCount,
       .min = 1,
       .max =
           1024,  // mime/src/html.cc cuts deeper trees before they reach gumbo
       .meaning = "HTML element depth walked; deeper elements are skipped",
       .field = Member<&Settings::mime, &S::html_nesting_limit>},
      {.key = "parser_warnings",
       .kind = Kind::kBool,
       .meaning = "record GMime's parser diagnostics (duplicated or "
                  "conflicting headers, 8-bit or badly encoded header "
                  "values, a multipart cut before its closing boundary) as "
                  "warnings; GMime then decodes every header of every part, "
                  "about 8 % more analysis CPU",
       .field = Member<&Settings::mime, &S::parser_warnings>},
  };
  return {.name = "mime",
          .meaning =
              "limits on untrusted input; past a limit the parser keeps "
              "what it has",
          .params = kParams};
}

}  // namespace mw::config
