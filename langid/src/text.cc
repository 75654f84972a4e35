#include "text.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <iterator>

namespace mw::langid::internal {
namespace {

bool IsKana(UScriptCode s) {
  return s == USCRIPT_HIRAGANA || s == USCRIPT_KATAKANA;
}

// What Split asks of a code point: letter, combining mark, decimal digit.
// Letters and marks continue a piece; digits mark it as not a word.
constexpr std::uint8_t kLetter = 1;
constexpr std::uint8_t kMark = 2;
constexpr std::uint8_t kDigit = 4;

std::uint8_t IcuClassOf(UChar32 c) {
  const std::int32_t mask = U_GET_GC_MASK(c);
  return ((mask & U_GC_L_MASK) != 0 ? kLetter : 0) |
         ((mask & U_GC_M_MASK) != 0 ? kMark : 0) | (u_isdigit(c) ? kDigit : 0);
}

UScriptCode IcuScriptOf(UChar32 c) {
  UErrorCode err = U_ZERO_ERROR;
  const UScriptCode sc = uscript_getScript(c, &err);
  return U_SUCCESS(err) ? sc : USCRIPT_INVALID_CODE;
}

// ICU's answers for the BMP in one table (128 KB, built once on first use in
// a few milliseconds): class bits in the high byte, the script in the low.
// u_charType and uscript_getScript cost a trie walk per call, and scripts
// without spaces (Thai, CJK) ask for every character.
const std::uint16_t* BmpTable() {
  static const std::uint16_t* const table = [] {
    static_assert(USCRIPT_CODE_LIMIT < 0xff);  // 0xff: USCRIPT_INVALID_CODE
    auto* t = new std::uint16_t[0x10000];      // kept for the process's life
    for (UChar32 k = 0; k < 0x10000; ++k) {
      const UScriptCode sc = IcuScriptOf(k);
      t[k] =
          static_cast<std::uint16_t>(IcuClassOf(k) << 8 | (sc < 0 ? 0xff : sc));
    }
    return t;
  }();
  return table;
}

inline std::uint8_t ClassOf(UChar32 c) {
  if (c < 0) return 0;
  return c < 0x10000 ? BmpTable()[c] >> 8 : IcuClassOf(c);
}

inline UScriptCode ScriptOf(UChar32 c) {
  if (c < 0 || c >= 0x10000) return IcuScriptOf(c);
  const int sc = BmpTable()[c] & 0xff;
  return sc == 0xff ? USCRIPT_INVALID_CODE : static_cast<UScriptCode>(sc);
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

// Gives a piece whose script is `*script` so far the script of its next letter
// or mark `c`: the first that is not Common or Inherited, except that kana
// wins over Han. Once the piece has a script only kana can change it, and
// there is no kana below U+3040: most letters skip the lookup.
void UpdateScript(UChar32 c, UScriptCode* script) {
  if (*script != USCRIPT_COMMON && c < 0x3040) return;
  const UScriptCode sc = ScriptOf(c);
  if (sc != USCRIPT_INVALID_CODE && sc != USCRIPT_COMMON &&
      sc != USCRIPT_INHERITED &&
      (*script == USCRIPT_COMMON || (IsKana(sc) && !IsKana(*script)))) {
    *script = sc;
  }
}

// Scripts written without spaces between words: Thai, Lao, Myanmar, Khmer,
// kana, Han (and their compatibility and supplementary blocks). Every one of
// them decides its language alone (DirectLanguage), so their words are never
// looked up: only their number and script count.
bool IsUnspacedScript(UChar32 c) {
  return (c >= 0x0E00 && c <= 0x0EFF) || (c >= 0x1000 && c <= 0x109F) ||
         (c >= 0x1780 && c <= 0x17FF) || (c >= 0x2E80 && c <= 0xA4CF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF66 && c <= 0xFF9F) ||
         c >= 0x20000;
}

// Base characters (letters; combining marks stay with the letter before them)
// per word of an unspaced run: the mean word length ICU's dictionary
// BreakIterator finds on the dev sentences, rounded (Han and kana 1.6-1.7
// code points per word, Katakana loanwords 3.3; Thai 4.2 code points with
// marks). The counts come out within 20% of ICU's: Chinese 17% fewer,
// Japanese 11% fewer, Thai 1% fewer.
int UnspacedWordLetters(UChar32 c) {
  return c >= 0x0E00 && c <= 0x17FF ? 4 : 2;
}

// Reports the words of the run of unspaced letters and combining marks that
// starts at `i` (an unspaced letter): pieces of UnspacedWordLetters letters
// each (the last may be shorter), each with the script Split would give it.
// Returns where the run ends. One pass: each character is decoded and
// classified once.
std::int32_t SplitUnspacedRun(std::string_view text, std::int32_t i,
                              WordSink sink, void* context) {
  const auto* s = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::int32_t n = static_cast<std::int32_t>(text.size());
  std::int32_t start = i, letters = 0, limit = 0;
  UScriptCode script = USCRIPT_COMMON;
  while (i < n) {
    std::int32_t next = i;
    UChar32 c;
    U8_NEXT(s, next, n, c);
    if (c < 0) break;
    const std::uint8_t cls = ClassOf(c);
    if ((cls & kMark) == 0) {
      if ((cls & kLetter) == 0 || !IsUnspacedScript(c)) break;
      if (letters == limit && letters > 0) {
        EmitPiece(text.substr(start, i - start), false, script, sink, context);
        start = i;
        letters = 0;
        script = USCRIPT_COMMON;
      }
      if (letters == 0) limit = UnspacedWordLetters(c);
      ++letters;
    }
    // A mark counts for the script as in Split: after Common letters (e.g.
    // U+30FC) it can give the piece its script.
    UpdateScript(c, &script);
    i = next;
  }
  EmitPiece(text.substr(start, i - start), false, script, sink, context);
  return i;
}

// Splits `word` at every code point that is neither a letter nor a combining
// mark (SplitPieces); with kUnspaced, runs of unspaced letters are cut into
// word-sized pieces on the way (SegmentWords), in the same pass.
template <bool kUnspaced>
void Split(std::string_view word, WordSink sink, void* context) {
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
      const std::uint8_t cls = ClassOf(c);
      if (kUnspaced && c >= 0x0E00 && IsUnspacedScript(c) &&
          (cls & (kLetter | kMark)) != 0) {
        EmitPiece(word.substr(start, at - start), has_digit, script, sink,
                  context);
        i = SplitUnspacedRun(word, at, sink, context);
        start = i;
        has_digit = false;
        script = USCRIPT_COMMON;
        continue;
      }
      if ((cls & (kLetter | kMark)) != 0) {
        UpdateScript(c, &script);
        continue;
      }
      if ((cls & kDigit) != 0) {
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

}  // namespace

void SplitPieces(std::string_view word, WordSink sink, void* context) {
  Split<false>(word, sink, context);
}

void SegmentWords(std::string_view text, WordSink sink, void* context) {
  // For scripts that separate words, ICU's word BreakIterator rules come down
  // to runs of letters, marks and digits (joined by MidLetter punctuation such
  // as "'" or ".", where the pieces are split again anyway), so splitting at
  // every other character gives the same pieces several times faster. Runs of
  // unspaced scripts are cut into pieces of about a word's length instead of
  // being segmented with ICU's dictionaries, which cost 5-6 times CLD2's time
  // on Chinese, Japanese and Thai for words nothing looks up
  // (IsUnspacedScript).
  Split<true>(text, sink, context);
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

namespace {

#include "han_variants.inc"

// kSimplifiedMarkers and kTraditionalMarkers as two bits per BMP code point
// (16 KiB, built once): a binary search per character of Chinese text cost
// more than the rest of its detection.
class HanVariantTable {
 public:
  HanVariantTable() {
    for (const char32_t c : kSimplifiedMarkers) Set(c, 1);
    for (const char32_t c : kTraditionalMarkers) Set(c, 2);
  }
  // 1 simplified, 2 traditional, 0 neither.
  unsigned Of(char32_t c) const {
    if (c > 0xFFFF) {
      if (std::binary_search(std::begin(kSimplifiedMarkers),
                             std::end(kSimplifiedMarkers), c)) {
        return 1;
      }
      return std::binary_search(std::begin(kTraditionalMarkers),
                                std::end(kTraditionalMarkers), c)
                 ? 2
                 : 0;
    }
    return (bits_[c >> 2] >> ((c & 3) * 2)) & 3u;
  }

 private:
  void Set(char32_t c, unsigned v) {
    if (c <= 0xFFFF)
      bits_[c >> 2] |= static_cast<std::uint8_t>(v << ((c & 3) * 2));
  }
  std::array<std::uint8_t, 0x10000 / 4> bits_{};
};

}  // namespace

void CountHanVariants(std::string_view piece, std::uint32_t* simplified,
                      std::uint32_t* traditional) {
  static const HanVariantTable table;
  const auto* s = reinterpret_cast<const std::uint8_t*>(piece.data());
  const std::int32_t n = static_cast<std::int32_t>(piece.size());
  for (std::int32_t i = 0; i < n;) {
    UChar32 c;
    U8_NEXT(s, i, n, c);
    if (c < 0x3400) continue;
    const unsigned v = table.Of(static_cast<char32_t>(c));
    *simplified += v == 1;
    *traditional += v == 2;
  }
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
