// ICU normalisation of extracted text: the form every later stage reads.
//
// Order matters: C1 controls are repaired before NFKC case folding so that a
// mis-decoded U+0092 becomes an apostrophe (and folds like one); invisible
// characters are removed after folding because NFKC can produce some of them
// (e.g. from compatibility ligatures) and because spam inserts them between
// letters to break word and hash matching.
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "mime/message.h"

namespace mw::mime {
namespace {

// windows-1252 meaning of bytes 0x80..0x9F. Text that was decoded as ISO-8859-1
// while it was really windows-1252 (very common in mail, and in the language
// samples) carries these as C1 controls. 0 marks the five bytes windows-1252
// leaves undefined: they are dropped.
constexpr char16_t kCp1252C1[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,  // 80-87
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,       // 88-8F
    0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,  // 90-97
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178,  // 98-9F
};

// Characters with no visible form that spam puts between letters.
// Default_Ignorable_Code_Point covers zero-width space/joiners, soft hyphen,
// word joiner, BOM, bidi controls (LRM, RLM, embeddings, isolates), variation
// selectors, Hangul fillers and tags; NFKC_Casefold already removes most of
// them, this catches the rest and anything normalisation re-creates.
bool IsInvisible(UChar32 c) {
  return u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) ||
         c == 0x180E ||  // Mongolian vowel separator: ignorable before
                         // Unicode 6.3
         c == 0x2800;    // braille blank, used as an invisible letter
}

enum class Break { kNone, kLine, kParagraph };

Break BreakOf(UChar32 c) {
  switch (c) {
    case '\n':
    case '\r':
    case 0x0B:    // vertical tab
    case 0x85:    // next line
    case 0x2028:  // line separator
      return Break::kLine;
    case 0x0C:    // form feed
    case 0x2029:  // paragraph separator
      return Break::kParagraph;
    default:
      return Break::kNone;
  }
}

// Replaces the C1 range as windows-1252 would and turns other control
// characters (NUL and friends) into spaces, so they separate words instead of
// gluing or hiding them.
void RepairControls(icu::UnicodeString& s) {
  // In place: the output is never longer than the input.
  const int32_t n = s.length();
  char16_t* buf = s.getBuffer(-1);
  if (buf == nullptr) return;
  int32_t w = 0;
  for (int32_t r = 0; r < n; ++r) {
    const char16_t c = buf[r];
    if (c >= 0x80 && c <= 0x9F && c != 0x85) {
      if (kCp1252C1[c - 0x80] != 0) buf[w++] = kCp1252C1[c - 0x80];
    } else if ((c < 0x20 && c != '\t' && BreakOf(c) == Break::kNone) ||
               c == 0x7F) {
      buf[w++] = u' ';
    } else {
      buf[w++] = c;
    }
  }
  s.releaseBuffer(w);
}

void AppendUtf8(std::string& out, UChar32 c) {
  char buf[U8_MAX_LENGTH];
  int32_t n = 0;
  UBool error = false;
  U8_APPEND(reinterpret_cast<uint8_t*>(buf), n, U8_MAX_LENGTH, c, error);
  if (!error) out.append(buf, static_cast<size_t>(n));
}

// What Layout needs to know of a non-ASCII code point: u_isUWhiteSpace and
// IsInvisible, looked up in FoldTable for the BMP (two ICU property lookups
// per character otherwise).
constexpr std::uint8_t kClassSpace = 1;
constexpr std::uint8_t kClassInvisible = 2;
std::uint8_t IcuClassOf(UChar32 c) {
  return (u_isUWhiteSpace(c) ? kClassSpace : 0) |
         (IsInvisible(c) ? kClassInvisible : 0);
}
std::uint8_t ClassOf(UChar32 c);  // below, with FoldTable

// Whether Layout appends folded code point `c` as it is, in a run: visible,
// not whitespace, not a line break. `cls` is its ClassOf (read for non-ASCII
// only; ASCII controls are spaces by then).
bool CopiedAsIs(UChar32 c, std::uint8_t cls) {
  if (BreakOf(c) != Break::kNone) return false;
  return c < 0x80 ? c != ' ' && c != '\t' : cls == 0;
}

// The last pass, shared by the ASCII and the ICU paths: drops invisibles,
// collapses whitespace inside lines, keeps at most one blank line between
// paragraphs and none at either end. `next(c, run)` yields the folded code
// points and returns false at the end; it may instead yield a non-empty `run`
// of UTF-8 to copy as it is (`c` is then not read): characters that fold to
// themselves and are neither whitespace, line breaks nor invisible.
template <typename Next>
std::string Layout(Next next, std::size_t size_hint) {
  std::string out;
  out.reserve(size_hint);
  bool pending_space = false;  // whitespace since the last visible character
  int pending_breaks = 0;      // 0 none, 1 line, 2 paragraph, likewise
  bool line_has_text = false;
  bool after_cr = false;
  // Before a visible character: the breaks or the space since the last one.
  auto start_text = [&] {
    if (pending_breaks > 0 && !out.empty()) {
      out.append(static_cast<size_t>(pending_breaks), '\n');
    } else if (pending_space) {
      out.push_back(' ');
    }
    pending_breaks = 0;
    pending_space = false;
    line_has_text = true;
  };
  UChar32 c = 0;
  std::string_view run;
  while (next(c, run)) {
    if (!run.empty()) {
      start_text();
      after_cr = false;
      out.append(run);
      run = {};
      continue;
    }
    const bool crlf = after_cr && c == '\n';
    after_cr = c == '\r';
    if (crlf) continue;  // CRLF is one line break
    const Break b = BreakOf(c);
    if (b != Break::kNone) {
      if (b == Break::kParagraph || !line_has_text) {
        // An empty line (or explicit paragraph separator) ends the paragraph.
        if (!out.empty()) pending_breaks = 2;
      } else if (pending_breaks < 1) {
        pending_breaks = 1;
      }
      line_has_text = false;
      pending_space = false;
      continue;
    }
    // ASCII needs no property lookup: only space and tab are whitespace there
    // (controls were already turned into spaces) and nothing is invisible.
    const std::uint8_t cls = c < 0x80 ? 0 : ClassOf(c);
    const bool space =
        c < 0x80 ? (c == ' ' || c == '\t') : (cls & kClassSpace) != 0;
    if (space) {
      pending_space = line_has_text;
      continue;
    }
    if ((cls & kClassInvisible) != 0) continue;
    start_text();
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      AppendUtf8(out, c);
    }
  }
  return out;
}

bool IsAscii(std::string_view s) {
  for (const char ch : s) {
    if (static_cast<unsigned char>(ch) >= 0x80) return false;
  }
  return true;
}

// NFKC_Casefold of an ASCII character after RepairControls: A-Z -> a-z,
// controls other than tab and line breaks -> space.
char32_t FoldAscii(std::uint8_t b) {
  if (b >= 'A' && b <= 'Z') return b + ('a' - 'A');
  if ((b < 0x20 && b != '\t' && BreakOf(b) == Break::kNone) || b == 0x7F) {
    return ' ';
  }
  return b;
}

// The ICU path: UTF-8 -> UTF-16 (invalid sequences become U+FFFD), C1 and
// control repair, NFKC_Casefold. Returns the folded text.
icu::UnicodeString FoldWithIcu(std::string_view utf8) {
  icu::UnicodeString raw = icu::UnicodeString::fromUTF8(
      icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size())));
  RepairControls(raw);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf =
      icu::Normalizer2::getNFKCCasefoldInstance(status);
  icu::UnicodeString folded;
  if (U_SUCCESS(status)) folded = nfkc_cf->normalize(raw, status);
  if (U_FAILURE(status))
    folded = raw.foldCase();  // ICU data missing: degrade, don't fail
  return folded;
}

}  // namespace

bool NormalisationDegraded() {
  // ICU loads its data once per process; the answer cannot change.
  static const bool degraded = [] {
    UErrorCode status = U_ZERO_ERROR;
    icu::Normalizer2::getNFKCCasefoldInstance(status);
    return U_FAILURE(status) != 0;
  }();
  return degraded;
}

namespace {

// NFKC_Casefold of single BMP code points that fold independently of their
// neighbours, in lazily built blocks of 128.
//
// Why this is exact: a character for which Normalizer2::hasBoundaryBefore holds
// never interacts with what precedes it, so a string is normalised by
// normalising the parts between such characters independently (the contract
// of hasBoundaryBefore). A text in which every character is "simple" (boundary
// before, not a C1 or other control, at most kMaxFold code points folded) thus
// folds to the concatenation of its characters' folds; a run of other
// characters is folded by ICU together with the simple character before it
// (which the run may combine with, e.g. "a" + U+0301) up to the next simple
// character, which starts a new independent part.
class FoldTable {
 public:
  static constexpr int kMaxFold = 3;
  struct Entry {
    std::uint8_t size;  // code points of the fold; kNotSimple: use ICU
    std::uint8_t cls;   // IcuClassOf the code point itself (for Layout)
    // Simple, folds to itself, and Layout copies it as it is (not whitespace,
    // a line break or invisible): a run of such characters followed by a
    // simple one is its own normalisation.
    bool verbatim;
    char32_t fold[kMaxFold];
  };
  static constexpr std::uint8_t kNotSimple = 0xff;

  // The entry of a BMP code point; null when ICU's NFKC_Casefold data is
  // missing (the caller then takes the ICU path, which degrades).
  const Entry* Find(char32_t c) {
    Block* b = blocks_[c >> 7].load(std::memory_order_acquire);
    if (b == nullptr) b = Build(c >> 7);
    return b == nullptr ? nullptr : &b->entries[c & 127];
  }

 private:
  struct Block {
    Entry entries[128];
  };

  Block* Build(std::uint32_t index) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* nfkc_cf =
        icu::Normalizer2::getNFKCCasefoldInstance(status);
    if (U_FAILURE(status)) return nullptr;
    auto block = std::make_unique<Block>();
    for (char32_t k = 0; k < 128; ++k) {
      const char32_t c = (index << 7) | k;
      Entry& e = block->entries[k];
      e.size = kNotSimple;
      e.verbatim = false;
      e.cls = IcuClassOf(static_cast<UChar32>(c));
      // Controls, C1 included, are repaired before folding (RepairControls);
      // surrogates do not occur in decoded UTF-8.
      if (c < 0xA0 || (c >= 0xD800 && c <= 0xDFFF)) continue;
      if (!nfkc_cf->hasBoundaryBefore(static_cast<UChar32>(c))) continue;
      UErrorCode s = U_ZERO_ERROR;
      const icu::UnicodeString folded =
          nfkc_cf->normalize(icu::UnicodeString(static_cast<UChar32>(c)), s);
      if (U_FAILURE(s)) continue;
      int n = 0;
      bool fits = true;
      for (int32_t i = 0; i < folded.length(); ++n) {
        if (n == kMaxFold) {
          fits = false;
          break;
        }
        const UChar32 f = folded.char32At(i);
        e.fold[n] = static_cast<char32_t>(f);
        i += U16_LENGTH(f);
      }
      if (fits) e.size = static_cast<std::uint8_t>(n);
      e.verbatim = fits && n == 1 && e.fold[0] == c &&
                   CopiedAsIs(static_cast<UChar32>(c), e.cls);
    }
    Block* expected = nullptr;
    if (blocks_[index].compare_exchange_strong(expected, block.get(),
                                               std::memory_order_acq_rel)) {
      return block.release();  // kept for the life of the process
    }
    return expected;  // another thread built it first
  }

  std::atomic<Block*> blocks_[0x10000 >> 7] = {};
};

FoldTable& Folds() {
  static FoldTable* table = new FoldTable;  // never destroyed: used at exit
  return *table;
}

std::uint8_t ClassOf(UChar32 c) {
  if (c <= 0xFFFF) {
    const FoldTable::Entry* e = Folds().Find(static_cast<char32_t>(c));
    if (e != nullptr) return e->cls;
  }
  return IcuClassOf(c);
}

// A run ICU folded, and whether Layout may copy its fold as it is: every
// code point visible, none a line break, whitespace or invisible (as Layout
// would find one by one), so a Thai syllable with its tone mark or a
// Devanagari conjunct is appended whole instead of code point by code point.
struct IcuFold {
  icu::UnicodeString fold;
  std::string utf8;  // the fold in UTF-8, when plain
  bool plain = false;

  void Set(icu::UnicodeString folded) {
    fold = std::move(folded);
    utf8.clear();
    plain = !fold.isEmpty();
    for (int32_t i = 0; plain && i < fold.length();) {
      const UChar32 c = fold.char32At(i);
      i += U16_LENGTH(c);
      plain = CopiedAsIs(c, c < 0x80 ? 0 : ClassOf(c));
    }
    if (plain) fold.toUTF8String(utf8);
  }
};

}  // namespace

// The ICU path alone, which NormaliseText must equal (tests compare them).
std::string TEST_NormaliseTextIcu(std::string_view utf8) {
  const auto len =
      static_cast<int32_t>(std::min<std::size_t>(utf8.size(), INT32_MAX / 2));
  const icu::UnicodeString folded = FoldWithIcu(utf8.substr(0, len));
  int32_t i = 0;
  return Layout(
      [&](UChar32& c, std::string_view&) {
        if (i >= folded.length()) return false;
        c = folded.char32At(i);
        i += U16_LENGTH(c);
        return true;
      },
      utf8.size());
}

std::string NormaliseText(std::string_view utf8) {
  if (IsAscii(utf8)) {
    // Most mail is ASCII, where NFKC case folding is exactly A-Z -> a-z: skip
    // the round trip through UTF-16 and ICU. Controls become spaces as in
    // RepairControls (the C1 range cannot occur in ASCII).
    std::size_t i = 0;
    return Layout(
        [&](UChar32& c, std::string_view&) {
          if (i == utf8.size()) return false;
          c = static_cast<unsigned char>(utf8[i++]);
          if (c >= 'A' && c <= 'Z') {
            c += 'a' - 'A';
          } else if ((c < 0x20 && c != '\t' && BreakOf(c) == Break::kNone) ||
                     c == 0x7F) {
            c = ' ';
          }
          return true;
        },
        utf8.size());
  }
  // ICU strings are indexed by int32_t; no caller comes near this, since
  // mime.max_text_bytes is at most 1 GiB.
  const std::string_view text =
      utf8.substr(0, std::min<std::size_t>(utf8.size(), INT32_MAX / 2));
  // Other text: characters that fold alone come from FoldTable (several times
  // faster than converting to UTF-16 and normalising), runs of the others go
  // through ICU with the simple character before them (see FoldTable).
  FoldTable& table = Folds();
  const auto* s = reinterpret_cast<const std::uint8_t*>(text.data());
  const auto n = static_cast<int32_t>(text.size());
  int32_t i = 0;                      // next byte to decode
  const char32_t* pending = nullptr;  // folded code points not yet yielded
  int pending_size = 0;
  char32_t ascii = 0;
  // An ICU-folded run, yielded from chunk_at (points into icu_folds or at
  // `unmemoised`).
  const IcuFold* chunk = nullptr;
  int32_t chunk_at = 0;
  int32_t chunk_size = 0;
  bool degrade = false;  // ICU data missing: the whole text through ICU
  // ICU's folds of the short runs already met in this text (keys view `text`;
  // the values' addresses are stable, as chunk needs).
  constexpr std::size_t kMaxMemoChunk = 32;
  std::unordered_map<std::string_view, IcuFold> icu_folds;
  IcuFold unmemoised;
  // Decodes the character at `at`: its fold when it is simple.
  auto simple = [&](int32_t & at, const char32_t** fold, int* size,
                    char32_t* one) __attribute__((always_inline)) {
    const std::uint8_t b = s[at];
    if (b < 0x80) {
      ++at;
      *one = FoldAscii(b);
      *fold = one;
      *size = 1;
      return true;
    }
    const int32_t start = at;
    UChar32 c;
    U8_NEXT(s, at, n, c);
    if (c < 0 || c > 0xFFFF) {
      at = start;
      return false;
    }
    const FoldTable::Entry* e = table.Find(static_cast<char32_t>(c));
    if (e == nullptr) degrade = true;
    if (e == nullptr || e->size == FoldTable::kNotSimple) {
      at = start;
      return false;
    }
    *fold = e->fold;
    *size = e->size;
    return true;
  };
  // The end of the run of verbatim characters (FoldTable::Entry) from `at`:
  // printable ASCII other than A-Z, and BMP characters whose entry says so.
  auto verbatim_end = [&](int32_t at) {
    while (at < n) {
      const std::uint8_t b = s[at];
      if (b < 0x80) {
        if (b <= ' ' || b == 0x7F || (b >= 'A' && b <= 'Z')) break;
        ++at;
        continue;
      }
      int32_t k = at;
      UChar32 c;
      U8_NEXT(s, k, n, c);
      if (c < 0 || c > 0xFFFF) break;
      const FoldTable::Entry* e = table.Find(static_cast<char32_t>(c));
      if (e == nullptr || !e->verbatim) break;
      at = k;
    }
    return at;
  };
  auto next = [&](UChar32& c, std::string_view& run) {
    for (;;) {
      if (pending_size > 0) {
        c = static_cast<UChar32>(*pending++);
        --pending_size;
        return true;
      }
      if (chunk_at < chunk_size) {
        c = chunk->fold.char32At(chunk_at);
        chunk_at += U16_LENGTH(c);
        return true;
      }
      if (i >= n) return false;
      // A run of verbatim characters is copied whole when the character after
      // it is simple (it has a boundary before it, so the run cannot combine
      // with it); else its last character goes the general way below.
      int32_t end = verbatim_end(i);
      if (end > i && end < n) {
        int32_t probe = end;
        const char32_t* f;
        int sz;
        char32_t o;
        if (!simple(probe, &f, &sz, &o)) U8_BACK_1(s, i, end);
      }
      if (end > i) {
        run = text.substr(static_cast<std::size_t>(i),
                          static_cast<std::size_t>(end - i));
        i = end;
        return true;
      }
      // A character folds alone when the next one is simple (it has a
      // boundary before it); ASCII always is.
      if (s[i] < 0x80 && (i + 1 == n || s[i + 1] < 0x80)) {
        c = static_cast<UChar32>(FoldAscii(s[i++]));
        return true;
      }
      const int32_t at = i;
      const char32_t* fold;
      int size;
      char32_t one;
      if (simple(i, &fold, &size, &one)) {
        int32_t probe = i;
        const char32_t* f;
        int sz;
        char32_t o;
        if (i == n || s[i] < 0x80 || simple(probe, &f, &sz, &o)) {
          if (fold == &one) {
            ascii = one;
            fold = &ascii;
          }
          pending = fold;
          pending_size = size;
          continue;
        }
        if (degrade) return false;
        end = i;  // this character may combine with the run after it
      } else {
        if (degrade) return false;
        end = at;
      }
      // The run of characters that are not simple, up to the next simple
      // one, folded by ICU with the simple character before it (if any).
      while (end < n) {
        int32_t probe = end;
        const char32_t* f;
        int sz;
        char32_t o;
        if (simple(probe, &f, &sz, &o)) break;
        if (degrade) return false;
        // Not simple: skip one code point (or one invalid byte sequence as
        // U8_NEXT delimits it; ICU then substitutes the same maximal parts).
        UChar32 skipped;
        U8_NEXT(s, end, n, skipped);
        (void)skipped;
      }
      const std::string_view piece = text.substr(at, end - at);
      if (piece.size() <= kMaxMemoChunk) {
        // Scripts with combining marks (Devanagari viramas, Thai tone marks,
        // Arabic vowels) send the same few clusters to ICU over and over.
        auto [it, fresh] = icu_folds.try_emplace(piece);
        if (fresh) it->second.Set(FoldWithIcu(piece));
        chunk = &it->second;
      } else {
        unmemoised.Set(FoldWithIcu(piece));
        chunk = &unmemoised;
      }
      i = end;
      if (chunk->plain) {
        run = chunk->utf8;
        return true;
      }
      chunk_at = 0;
      chunk_size = chunk->fold.length();
    }
  };
  std::string out = Layout(next, text.size());
  if (!degrade) return out;
  return TEST_NormaliseTextIcu(utf8);
}

Text Normalise(const Message& message) {
  Text text;
  text.body = NormaliseText(message.body);
  // The subject is one line: its folding whitespace and any encoded newlines
  // become spaces.
  std::string subject = NormaliseText(message.subject);
  for (char& ch : subject) {
    if (ch == '\n') ch = ' ';
  }
  std::string collapsed;
  collapsed.reserve(subject.size());
  for (char ch : subject) {
    if (ch == ' ' && !collapsed.empty() && collapsed.back() == ' ') continue;
    collapsed.push_back(ch);
  }
  text.subject = std::move(collapsed);
  return text;
}

}  // namespace mw::mime
