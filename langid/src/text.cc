#include "text.h"

#include <unicode/brkiter.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <memory>

#include "mw/pool.h"

namespace mw::langid::internal {
namespace {

bool IsKana(UScriptCode s) {
  return s == USCRIPT_HIRAGANA || s == USCRIPT_KATAKANA;
}

// Letters and combining marks continue a piece; everything else ends it.
bool IsWordChar(UChar32 c) {
  const std::int32_t mask = U_GET_GC_MASK(c);
  return (mask & (U_GC_L_MASK | U_GC_M_MASK)) != 0;
}

// ASCII letters: the only ASCII characters that are letters or marks.
bool IsAsciiLetter(std::uint8_t b) {
  return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
}

void EmitPiece(std::string_view piece, bool has_digit, UScriptCode script,
               WordSink sink, void* context) {
  if (piece.empty() || has_digit || script == USCRIPT_COMMON ||
      script == USCRIPT_INHERITED || script == USCRIPT_INVALID_CODE) {
    return;
  }
  sink(context, piece, script);
}

// Word BreakIterators from a bounded pool: creating one costs far more than
// segmenting a sentence, an instance is not safe to share, and one per
// thread would grow with the milter's threads (mw/pool.h). An iterator holds
// no state between uses beyond the last text.
Pool<icu::BreakIterator>& BreakIterators() {
  static Pool<icu::BreakIterator> pool(DefaultPoolIdle(), [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::BreakIterator> b(
        icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status)) b.reset();
    return b;
  });
  return pool;
}

}  // namespace

void SplitPieces(std::string_view word, WordSink sink, void* context) {
  const auto* s = reinterpret_cast<const std::uint8_t*>(word.data());
  const std::int32_t n = static_cast<std::int32_t>(word.size());
  std::int32_t start = 0;
  bool has_digit = false;
  UScriptCode script = USCRIPT_COMMON;
  for (std::int32_t i = 0; i < n;) {
    const std::int32_t at = i;
    if (s[i] < 0x80) {
      // ASCII, without ICU's property lookups: letters are Latin, digits
      // digits, and every other ASCII character ends the piece.
      const std::uint8_t b = s[i++];
      if (IsAsciiLetter(b)) {
        if (script == USCRIPT_COMMON) script = USCRIPT_LATIN;
        continue;
      }
      if (b >= '0' && b <= '9') {
        has_digit = true;
        continue;
      }
    } else {
      UChar32 c;
      U8_NEXT(s, i, n, c);
      if (c >= 0 && IsWordChar(c)) {
        UErrorCode err = U_ZERO_ERROR;
        const UScriptCode sc = uscript_getScript(c, &err);
        if (U_SUCCESS(err) && sc != USCRIPT_COMMON && sc != USCRIPT_INHERITED) {
          if (script == USCRIPT_COMMON || (IsKana(sc) && !IsKana(script)))
            script = sc;
        }
        continue;
      }
      if (c >= 0 && u_isdigit(c)) {
        has_digit = true;
        continue;
      }
    }
    EmitPiece(word.substr(start, at - start), has_digit, script, sink, context);
    start = i;
    has_digit = false;
    script = USCRIPT_COMMON;
  }
  EmitPiece(word.substr(start, n - start), has_digit, script, sink, context);
}

// Scripts written without spaces between words, which need the BreakIterator's
// dictionaries: Thai, Lao, Myanmar, Khmer, kana, Han (and their compatibility
// and supplementary blocks).
bool NeedsDictionarySegmentation(UChar32 c) {
  return (c >= 0x0E00 && c <= 0x0EFF) || (c >= 0x1000 && c <= 0x109F) ||
         (c >= 0x1780 && c <= 0x17FF) || (c >= 0x2E80 && c <= 0xA4CF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF66 && c <= 0xFF9F) ||
         c >= 0x20000;
}

void SegmentWords(std::string_view text, WordSink sink, void* context) {
  // Fast path for text in scripts that separate words: the BreakIterator's word
  // rules then come down to runs of letters, marks and digits (joined by
  // MidLetter punctuation such as
  // "'" or ".", where SplitPieces splits again anyway), so splitting at every
  // other character gives the same pieces several times faster.
  const auto* s = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::int32_t n = static_cast<std::int32_t>(text.size());
  bool needs_dictionary = false;
  for (std::int32_t i = 0; i < n && !needs_dictionary;) {
    if (s[i] < 0xE0) {  // ASCII and 2-byte sequences: below U+0800
      ++i;
      continue;
    }
    UChar32 c;
    U8_NEXT(s, i, n, c);
    needs_dictionary = c >= 0 && NeedsDictionarySegmentation(c);
  }
  if (!needs_dictionary) {
    // A run of letters, marks and digits is one piece for SplitPieces (it
    // splits only at other characters), so the whole text goes through it in
    // one pass.
    SplitPieces(text, sink, context);
    return;
  }
  auto lease = BreakIterators().Acquire();
  icu::BreakIterator* it = lease.get();
  if (it == nullptr || text.empty()) return;
  UErrorCode status = U_ZERO_ERROR;
  UText ut = UTEXT_INITIALIZER;
  utext_openUTF8(&ut, text.data(), static_cast<std::int64_t>(text.size()),
                 &status);
  if (U_FAILURE(status)) return;
  it->setText(&ut, status);
  if (U_SUCCESS(status)) {
    std::int32_t start = it->first();
    for (std::int32_t end = it->next(); end != icu::BreakIterator::DONE;
         start = end, end = it->next()) {
      // Rule status: 0 none (spaces, punctuation), 100 number, 200 letter, 300
      // kana, 400 ideo.
      if (it->getRuleStatus() < UBRK_WORD_LETTER) continue;
      SplitPieces(text.substr(start, end - start), sink, context);
    }
  }
  // The iterator keeps a shallow clone of `ut` pointing into `text`; it is
  // never read again before the next setText.
  utext_close(&ut);
}

std::string FoldCase(std::string_view utf8) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf =
      icu::Normalizer2::getNFKCCasefoldInstance(status);
  if (U_FAILURE(status)) return std::string(utf8);
  icu::UnicodeString in = icu::UnicodeString::fromUTF8(
      icu::StringPiece(utf8.data(), static_cast<std::int32_t>(utf8.size())));
  icu::UnicodeString out = nfkc_cf->normalize(in, status);
  if (U_FAILURE(status)) return std::string(utf8);
  std::string result;
  out.toUTF8String(result);
  return result;
}

bool IsValidUtf8(std::string_view utf8) {
  const auto* s = reinterpret_cast<const std::uint8_t*>(utf8.data());
  const std::int32_t n = static_cast<std::int32_t>(utf8.size());
  std::int32_t i = 0;
  while (i < n) {
    UChar32 c;
    U8_NEXT(s, i, n, c);
    if (c < 0) return false;
  }
  return true;
}

std::string_view ScriptName(int script) {
  const char* name = uscript_getName(static_cast<UScriptCode>(script));
  return name ? std::string_view(name) : std::string_view("Unknown");
}

std::string_view DirectLanguage(int script) {
  switch (script) {
    case USCRIPT_GREEK:
      return "el";
    case USCRIPT_GEORGIAN:
      return "ka";
    case USCRIPT_ARMENIAN:
      return "hy";
    case USCRIPT_HANGUL:
      return "ko";
    case USCRIPT_HIRAGANA:
    case USCRIPT_KATAKANA:
      return "ja";
    case USCRIPT_HAN:
      return "zh";
    case USCRIPT_THAI:
      return "th";
    case USCRIPT_HEBREW:
      return "he";
    case USCRIPT_BENGALI:
      return "bn";
    case USCRIPT_GUJARATI:
      return "gu";
    case USCRIPT_GURMUKHI:
      return "pa";
    case USCRIPT_TAMIL:
      return "ta";
    case USCRIPT_TELUGU:
      return "te";
    case USCRIPT_KANNADA:
      return "kn";
    case USCRIPT_MALAYALAM:
      return "ml";
    case USCRIPT_ORIYA:
      return "or";
    case USCRIPT_SINHALA:
      return "si";
    case USCRIPT_KHMER:
      return "km";
    case USCRIPT_LAO:
      return "lo";
    case USCRIPT_MYANMAR:
      return "my";
    case USCRIPT_ETHIOPIC:
      return "am";
    case USCRIPT_TIBETAN:
      return "bo";
    case USCRIPT_THAANA:
      return "dv";
    case USCRIPT_MONGOLIAN:
      return "mn";
    default:
      return {};
  }
}

}  // namespace mw::langid::internal
