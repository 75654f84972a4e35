#include "fingerprint/blocks.h"

#include <openssl/evp.h>
#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>

#include "utf8.h"

namespace mw::fingerprint {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// Appends `block` to `out` with runs of whitespace folded to one space and the
// ends trimmed; drops it when it holds no letter or digit (separators such as
// "--" or a lone "!").
void AddBlock(std::string_view block, std::vector<std::string>& out) {
  std::string folded;
  folded.reserve(block.size());
  bool has_word = false;
  bool pending_space = false;
  for (std::size_t i = 0; i < block.size();) {
    const char c = block[i];
    if (IsSpace(c) || c == '\n') {
      pending_space = !folded.empty();
      ++i;
      continue;
    }
    if (pending_space) folded.push_back(' ');
    pending_space = false;
    std::size_t len;
    const char32_t cp = internal::DecodeUtf8(block, i, &len);
    if (!has_word && internal::IsWordChar(cp)) has_word = true;
    folded.append(block.substr(i, len));
    i += len;
  }
  if (has_word) out.push_back(std::move(folded));
}

// Titles and other abbreviations that end in a dot but rarely end a sentence.
// The text is case-folded, so lower case suffices.
constexpr std::array<std::string_view, 44> kAbbreviations = {
    "mr",   "mrs", "ms",  "dr",   "prof", "st",  "sr",  "jr",  "vs",
    "etc",  "inc", "ltd", "co",   "corp", "no",  "nos", "fig", "approx",
    "dept", "est", "gen", "col",  "capt", "lt",  "sgt", "rev", "hon",
    "mt",   "ft",  "ave", "blvd", "jan",  "feb", "mar", "apr", "jun",
    "jul",  "aug", "sep", "sept", "oct",  "nov", "dec", "cf"};

bool IsAsciiLetter(char c) { return c >= 'a' && c <= 'z'; }

// True for "e.g.", "i.e.", "u.s.", "u.s.a.", "a.m.", "ph.d.": two or more
// groups of one or two letters, each followed by a dot.
bool IsDottedAbbreviation(std::string_view t) {
  int groups = 0;
  std::size_t i = 0;
  while (i < t.size()) {
    std::size_t letters = 0;
    while (i < t.size() && IsAsciiLetter(t[i])) {
      ++letters;
      ++i;
    }
    if (letters == 0 || letters > 2 || i >= t.size() || t[i] != '.')
      return false;
    ++i;
    ++groups;
  }
  return groups >= 2;
}

// Removes the dots of abbreviations so that the sentence iterator does not cut
// after them. `token` is one run of non-space characters.
void AppendToken(std::string_view token, std::string& out) {
  // Leading "(" or quotes and trailing "," ";" ":" ")" do not belong to the
  // abbreviation.
  std::size_t begin = 0;
  while (begin < token.size() &&
         (token[begin] == '(' || token[begin] == '"' || token[begin] == '\'' ||
          token[begin] == '[')) {
    ++begin;
  }
  std::size_t end = token.size();
  while (end > begin && (token[end - 1] == ',' || token[end - 1] == ';' ||
                         token[end - 1] == ':' || token[end - 1] == ')' ||
                         token[end - 1] == ']')) {
    --end;
  }
  const std::string_view core = token.substr(begin, end - begin);
  if (core.size() >= 2 && core.back() == '.') {
    const std::string_view word = core.substr(0, core.size() - 1);
    const bool initial = word.size() == 1 && IsAsciiLetter(word[0]);
    const bool listed = std::find(kAbbreviations.begin(), kAbbreviations.end(),
                                  word) != kAbbreviations.end();
    if (IsDottedAbbreviation(core)) {
      out.append(token.substr(0, begin));
      for (const char c : core) {
        if (c != '.') out.push_back(c);
      }
      out.append(token.substr(end));
      return;
    }
    if (initial || listed) {
      out.append(token.substr(0, begin));
      out.append(word);
      out.append(token.substr(end));
      return;
    }
  }
  out.append(token);
}

// One paragraph per line of the result: the lines of each "\n\n"-separated
// paragraph joined by a space, abbreviations without their dots.
std::string PrepareForSentences(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  bool paragraph_open = false;
  while (i <= text.size()) {
    std::size_t eol = text.find('\n', i);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = text.substr(i, eol - i);
    const bool blank = std::all_of(line.begin(), line.end(), IsSpace);
    if (blank) {
      if (paragraph_open) out.push_back('\n');
      paragraph_open = false;
    } else {
      if (paragraph_open) out.push_back(' ');
      paragraph_open = true;
      std::size_t t = 0;
      while (t < line.size()) {
        if (IsSpace(line[t])) {
          out.push_back(' ');
          ++t;
          continue;
        }
        std::size_t e = t;
        while (e < line.size() && !IsSpace(line[e])) ++e;
        AppendToken(line.substr(t, e - t), out);
        t = e;
      }
    }
    i = eol + 1;
  }
  return out;
}

// The sentence iterator is built once (thread-safe static initialisation) and
// cloned per call: building one from the rules costs far more than a clone.
std::unique_ptr<icu::BreakIterator> NewSentenceIterator() {
  static const icu::BreakIterator* const prototype = [] {
    UErrorCode status = U_ZERO_ERROR;
    icu::BreakIterator* it = icu::BreakIterator::createSentenceInstance(
        icu::Locale::getRoot(), status);
    if (U_FAILURE(status)) {
      delete it;
      return static_cast<icu::BreakIterator*>(nullptr);
    }
    return it;
  }();
  if (prototype == nullptr) return nullptr;
  return std::unique_ptr<icu::BreakIterator>(prototype->clone());
}

}  // namespace

// SHA-1 fetched once: with OpenSSL 3, passing EVP_sha1() to EVP_Digest looks
// the algorithm up in the provider on every call, which cost more than hashing
// a sentence. The fetched EVP_MD is immutable and safe to share between
// threads; it lives as long as the process.
const EVP_MD* Sha1Md() {
  static const EVP_MD* const md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA1", nullptr);
    return fetched != nullptr ? fetched : EVP_sha1();
  }();
  return md;
}

Sha1 Sha1Of(std::string_view bytes) {
  Sha1 out{};
  unsigned int len = 0;
  // EVP_Digest only fails on allocation failure inside OpenSSL; the zero digest
  // that would leave is harmless (it matches nothing but other such failures).
  EVP_Digest(bytes.data(), bytes.size(), out.data(), &len, Sha1Md(), nullptr);
  return out;
}

std::string Hex(const Sha1& sha1) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(40);
  for (const std::uint8_t b : sha1) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::vector<std::string> SplitSentences(std::string_view text) {
  std::vector<std::string> out;
  const std::string prepared = PrepareForSentences(text);
  const icu::UnicodeString original = icu::UnicodeString::fromUTF8(prepared);
  // ICU's rule SB8 keeps "a. b" together when a lower-case letter follows the
  // full stop, which suits cased text ("e.g. this") but not ours: case folding
  // made every letter lower case. The abbreviations have lost their dots above,
  // so a full stop followed by a space ends a sentence; the iterator reads a
  // copy where it is '!', which always ends one (same length, so offsets stay
  // valid for `original`).
  icu::UnicodeString analysed = original;
  const int32_t n = analysed.length();
  for (int32_t k = 0; k + 1 < n; ++k) {
    if (analysed.charAt(k) == u'.' && analysed.charAt(k + 1) == u' ')
      analysed.setCharAt(k, u'!');
  }
  std::unique_ptr<icu::BreakIterator> it = NewSentenceIterator();
  std::string block;
  if (it == nullptr) {  // ICU data missing: degrade to one block per paragraph
    return SplitParagraphs(prepared);
  }
  it->setText(analysed);
  int32_t start = it->first();
  for (int32_t end = it->next(); end != icu::BreakIterator::DONE;
       start = end, end = it->next()) {
    block.clear();
    original.tempSubStringBetween(start, end).toUTF8String(block);
    AddBlock(block, out);
  }
  return out;
}

std::vector<std::string> SplitParagraphs(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t eol = text.find('\n', i);
    if (eol == std::string_view::npos) eol = text.size();
    AddBlock(text.substr(i, eol - i), out);
    i = eol + 1;
  }
  return out;
}

BlockList HashBlocks(const std::vector<std::string>& blocks, BlockKind kind) {
  BlockList list;
  list.kind = kind;
  list.hashes.reserve(blocks.size());
  list.keys.reserve(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Sha1 h = Sha1Of(blocks[i]);
    list.hashes.push_back(h);
    std::uint64_t key = 0;
    for (int b = 0; b < 8; ++b) key = (key << 8) | h[b];
    list.keys.push_back({key, static_cast<std::uint32_t>(i),
                         static_cast<std::uint32_t>(std::min<std::size_t>(
                             blocks[i].size(), UINT32_MAX))});
  }
  std::sort(list.keys.begin(), list.keys.end());
  return list;
}

}  // namespace mw::fingerprint
