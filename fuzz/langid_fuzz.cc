// libFuzzer target for language identification, on raw input bytes (Detect
// tolerates invalid UTF-8) and on their normalised form (what the milter
// passes). Beyond "no crash, no sanitizer report, bounded time", it checks that
// Collect's per-text word memo changes nothing: its Evidence must equal, to the
// bit, the reference that scores every occurrence afresh
// (TEST_CollectEveryWord), and a verdict's scores stay in 0-100. It also checks
// that mime::NormaliseText equals its ICU-only path (TEST_NormaliseTextIcu).
// The dictionary is the built one: $MW_LANGID_DICT, else the default places
// (langid::OpenDictionary); scripts/test points it at build/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "langid/langid.h"
#include "langid/model.h"
#include "mime/message.h"

namespace {

namespace li = mw::langid;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

const li::Model* model = nullptr;

bool Equal(const li::Evidence& a, const li::Evidence& b) {
  return a.pure == b.pure && a.shared == b.shared && a.n_pure == b.n_pure &&
         a.n_shared == b.n_shared && a.n_unknown == b.n_unknown &&
         a.n_common == b.n_common && a.scripts == b.scripts &&
         a.segment_words == b.segment_words &&
         a.segment_lines == b.segment_lines && a.ngram == b.ngram &&
         a.n_ngram == b.n_ngram && a.affinity == b.affinity &&
         a.ngram_affinity == b.ngram_affinity && a.paragraphs == b.paragraphs &&
         a.common_ngram == b.common_ngram &&
         a.n_common_ngram == b.n_common_ngram && a.variant == b.variant;
}

void Run(std::string_view text) {
  const li::Evidence memo = li::Collect(text, *model);
  Check(Equal(memo, li::TEST_CollectEveryWord(text, *model)));
  const li::Language verdict = li::Decide(memo, *model, li::Options{});
  Check(verdict.score >= 0 && verdict.score <= 100 + 1e-9);
  Check(verdict.second_score >= 0 && verdict.second_score <= 100 + 1e-9);
  Check(!verdict.code.empty());
  Check(verdict.partner_score >= 0 && verdict.partner_score <= 100 + 1e-9);
  // A verdict names each language once: the partner only in a bilingual
  // verdict, and the second is neither of the named languages.
  Check(verdict.bilingual == !verdict.partner.empty());
  if (verdict.bilingual) {
    Check(verdict.code == verdict.best + "+" + verdict.partner);
  } else if (verdict.code != "und") {
    Check(verdict.code == verdict.best);
  }
  Check(verdict.second.empty() ||
        (verdict.second != verdict.best && verdict.second != verdict.partner));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* path = std::getenv("MW_LANGID_DICT");
  static auto opened = li::OpenDictionary(path != nullptr ? path : "");
  if (!opened) {
    std::fprintf(stderr, "langid_fuzz: %s\n", opened.error().message().c_str());
    std::exit(2);
  }
  model = &*opened;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Run(input);
  const std::string normalised = mw::mime::NormaliseText(input);
  // NormaliseText folds most characters from a table and only the rest with
  // ICU: it must give the bytes of the ICU path on the whole text.
  Check(normalised == mw::mime::TEST_NormaliseTextIcu(input));
  Run(normalised);
  return 0;
}
