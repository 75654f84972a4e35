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
#include <climits>
#include <string>
#include <string_view>

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

// The last pass, shared by the ASCII and the ICU paths: drops invisibles,
// collapses whitespace inside lines, keeps at most one blank line between
// paragraphs and none at either end. `next(c)` yields the folded code points
// and returns false at the end.
template <typename Next>
std::string Layout(Next next, std::size_t size_hint) {
  std::string out;
  out.reserve(size_hint);
  bool pending_space = false;  // whitespace since the last visible character
  int pending_breaks = 0;      // 0 none, 1 line, 2 paragraph, likewise
  bool line_has_text = false;
  bool after_cr = false;
  UChar32 c;
  while (next(c)) {
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
    const bool space = c < 0x80 ? (c == ' ' || c == '\t')
                                : static_cast<bool>(u_isUWhiteSpace(c));
    if (space) {
      pending_space = line_has_text;
      continue;
    }
    if (c >= 0x80 && IsInvisible(c)) continue;
    if (pending_breaks > 0 && !out.empty()) {
      out.append(static_cast<size_t>(pending_breaks), '\n');
    } else if (pending_space) {
      out.push_back(' ');
    }
    pending_breaks = 0;
    pending_space = false;
    line_has_text = true;
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

}  // namespace

std::string NormaliseText(std::string_view utf8) {
  if (IsAscii(utf8)) {
    // Most mail is ASCII, where NFKC case folding is exactly A-Z -> a-z: skip
    // the round trip through UTF-16 and ICU. Controls become spaces as in
    // RepairControls (the C1 range cannot occur in ASCII).
    std::size_t i = 0;
    return Layout(
        [&](UChar32& c) {
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
  // mime.max_text_bytes is at most 1 GiB. fromUTF8 replaces every invalid
  // sequence with U+FFFD, so nothing is dropped silently.
  const auto len =
      static_cast<int32_t>(std::min<std::size_t>(utf8.size(), INT32_MAX / 2));
  icu::UnicodeString raw =
      icu::UnicodeString::fromUTF8(icu::StringPiece(utf8.data(), len));
  RepairControls(raw);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf =
      icu::Normalizer2::getNFKCCasefoldInstance(status);
  icu::UnicodeString folded;
  if (U_SUCCESS(status)) folded = nfkc_cf->normalize(raw, status);
  if (U_FAILURE(status))
    folded = raw.foldCase();  // ICU data missing: degrade, don't fail
  int32_t i = 0;
  return Layout(
      [&](UChar32& c) {
        if (i >= folded.length()) return false;
        c = folded.char32At(i);
        i += U16_LENGTH(c);
        return true;
      },
      utf8.size());
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
