#include "fingerprint/blocks.h"

#include <openssl/evp.h>
#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>

#include "byte_order.h"
#include "checked.h"
#include "scan.h"
#include "sha1.h"
#include "utf8.h"

namespace mw::fingerprint {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

bool IsBlockSpace(char c) { return IsSpace(c) || c == '\n'; }

// Whether `token` (no whitespace in it) holds a letter or digit.
bool HasWordChar(std::string_view token) {
  for (std::size_t i = 0; i < token.size();) {
    const auto byte = static_cast<unsigned char>(token[i]);
    if (byte < 0x80) {
      if (internal::IsWordChar(byte)) return true;
      ++i;
      continue;
    }
    // A multi-byte sequence holds no ASCII byte, so decoding inside the token
    // reads what decoding inside the whole block would.
    std::size_t len;
    if (internal::IsWordChar(internal::DecodeUtf8(token, i, &len))) return true;
    i += len;
  }
  return false;
}

// Where the splitters put their blocks: StringSink keeps them (SplitSentences,
// SplitParagraphs), HashSink hashes them into a BlockList as they come
// (ComputeBlocks), so Compute builds no string per block.
class BlockSink {
 public:
  virtual ~BlockSink() = default;
  // One block, folded and trimmed, holding a letter or digit. The view dies
  // with the call.
  virtual void Add(std::string_view block) = 0;
  // Forgets every block added (the degraded path starts over).
  virtual void Reset() = 0;
  std::string scratch;  // AddBlock's buffer, reused from block to block
};

class StringSink final : public BlockSink {
 public:
  void Add(std::string_view block) override { blocks.emplace_back(block); }
  void Reset() override { blocks.clear(); }
  std::vector<std::string> blocks;
};

// Gives `block` to `out` with runs of whitespace folded to one space and the
// ends trimmed; drops it when it holds no letter or digit (separators such as
// "--" or a lone "!").
void AddBlock(std::string_view block, BlockSink& out) {
  // Most blocks are their own folded form once trimmed (single spaces between
  // words: the fold and the sentence preparation leave them so), and go to
  // the sink as they are, with no copy.
  std::size_t first = 0;
  std::size_t last = block.size();
  while (first < last && IsBlockSpace(block[first])) ++first;
  while (last > first && IsBlockSpace(block[last - 1])) --last;
  const std::string_view trimmed = block.substr(first, last - first);
  const internal::FoldedScan scan = internal::ScanFolded(trimmed);
  if (scan.folded) {
    // HasWordChar reads the multi-byte characters, as it would per token.
    if (scan.ascii_word || (scan.non_ascii && HasWordChar(trimmed))) {
      out.Add(trimmed);
    }
    return;
  }
  std::string& folded = out.scratch;
  folded.clear();
  bool has_word = false;
  std::size_t i = 0;
  for (;;) {
    while (i < block.size() && IsBlockSpace(block[i])) ++i;
    if (i == block.size()) break;
    std::size_t end = i + 1;
    while (end < block.size() && !IsBlockSpace(block[end])) ++end;
    const std::string_view token = block.substr(i, end - i);
    if (!folded.empty()) folded.push_back(' ');
    folded.append(token);
    if (!has_word) has_word = HasWordChar(token);
    i = end;
  }
  if (has_word) out.Add(folded);
}

// One block per non-empty line.
void SplitParagraphsInto(std::string_view text, BlockSink& out) {
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t eol = text.find('\n', i);
    if (eol == std::string_view::npos) eol = text.size();
    AddBlock(text.substr(i, eol - i), out);
    i = eol + 1;
  }
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

bool IsListedAbbreviation(std::string_view word) {
  // The longest listed one has 6 letters; most words ending a sentence are
  // longer, or not listed, which the size compare inside == settles.
  return word.size() <= 6 &&
         std::find(kAbbreviations.begin(), kAbbreviations.end(), word) !=
             kAbbreviations.end();
}

// When `token` (one run of non-space characters) is an abbreviation, writes
// it to `out` without the dots that would make the sentence iterator cut
// after it, and returns true; else writes nothing and returns false (most
// tokens with a dot end a sentence, and are left where they are).
bool RemoveAbbreviationDots(std::string_view token, std::string& out) {
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
  if (core.size() < 2 || core.back() != '.') return false;
  const std::string_view word = core.substr(0, core.size() - 1);
  if (IsDottedAbbreviation(core)) {
    out.append(token.substr(0, begin));
    for (const char c : core) {
      if (c != '.') out.push_back(c);
    }
    out.append(token.substr(end));
    return true;
  }
  if ((word.size() == 1 && IsAsciiLetter(word[0])) ||
      IsListedAbbreviation(word)) {
    out.append(token.substr(0, begin));
    out.append(word);
    out.append(token.substr(end));
    return true;
  }
  return false;
}

// One paragraph per line of the result: the lines of each "\n\n"-separated
// paragraph joined by a space, abbreviations without their dots.
std::string PrepareForSentences(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 1);
  std::string token;
  std::size_t i = 0;
  bool paragraph_open = false;
  while (i <= text.size()) {
    // One scan finds the line's end and tells whether it is blank, needs its
    // spaces made ' ' and holds a dot; the line is then copied in one piece.
    const internal::LineScan scan = internal::ScanLine(text, i);
    const std::string_view line = text.substr(i, scan.end - i);
    i = scan.end + 1;
    if (!scan.non_space) {
      if (paragraph_open) out.push_back('\n');
      paragraph_open = false;
      continue;
    }
    if (paragraph_open) out.push_back(' ');
    const std::size_t from = out.size();
    out.append(line);
    if (scan.other_space) {
      for (std::size_t k = from; k < out.size(); ++k) {
        if (IsSpace(out[k])) out[k] = ' ';
      }
    }
    const bool dot = scan.dot;
    paragraph_open = true;
    // Only a token with a dot can be an abbreviation: each such token (runs
    // of non-spaces, as the spaces are all ' ' now) is rewritten in place.
    std::size_t k = from;
    while (dot) {
      const std::size_t d = out.find('.', k);
      if (d == std::string::npos) break;
      std::size_t begin = d;
      while (begin > from && out[begin - 1] != ' ') --begin;
      std::size_t end = d + 1;
      while (end < out.size() && out[end] != ' ') ++end;
      token.clear();
      if (!RemoveAbbreviationDots(
              std::string_view(out).substr(begin, end - begin), token)) {
        k = end;
        continue;
      }
      // Only dots are removed: the token is shorter, in the same place.
      out.replace(begin, end - begin, token);
      k = begin + token.size();
    }
  }
  return out;
}

// The sentence iterator is built once (thread-safe static initialisation) and
// cloned per call: building one from the rules costs far more than a clone.
// nullptr when ICU's data is missing.
const icu::BreakIterator* SentencePrototype() {
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
  return prototype;
}

std::unique_ptr<icu::BreakIterator> NewSentenceIterator() {
  const icu::BreakIterator* prototype = SentencePrototype();
  if (prototype == nullptr) return nullptr;
  return std::unique_ptr<icu::BreakIterator>(prototype->clone());
}

// ICU's sentence iterator over `text`, each sentence through AddBlock. ICU's
// rule SB8 keeps "a. b" together when a lower-case letter follows the full
// stop, which suits cased text ("e.g. this") but not ours: case folding made
// every letter lower case. The abbreviations have lost their dots (see
// PrepareForSentences), so a full stop followed by a space ends a sentence;
// the iterator reads a copy where it is '!', which always ends one (same
// length, so offsets stay valid for the original).
void SplitWithIcu(std::string_view text, icu::BreakIterator& it,
                  BlockSink& out) {
  const icu::UnicodeString original = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  icu::UnicodeString analysed = original;
  const int32_t n = analysed.length();
  for (int32_t k = 0; k + 1 < n; ++k) {
    if (analysed.charAt(k) == u'.' && analysed.charAt(k + 1) == u' ')
      analysed.setCharAt(k, u'!');
  }
  it.setText(analysed);
  std::string block;
  int32_t start = it.first();
  for (int32_t end = it.next(); end != icu::BreakIterator::DONE;
       start = end, end = it.next()) {
    block.clear();
    original.tempSubStringBetween(start, end).toUTF8String(block);
    AddBlock(block, out);
  }
}

// The Sentence_Break classes (UAX #29) of the ASCII characters, read from
// ICU's own property data so that the fast path below sees what ICU's
// iterator sees.
struct AsciiSentenceClasses {
  std::array<std::uint8_t, 128> of{};
  // SATerm or ParaSep: the characters after which a break can follow.
  std::array<bool, 128> ends{};
  // False if some ASCII character is Extend or Format (rule SB5, which the
  // fast path does not implement); never so in Unicode up to 15.
  bool usable = true;
  // Whether `ends` holds exactly . ! ? CR LF (so in Unicode up to 15), which
  // internal::FindSentenceEnd finds sixteen bytes at a time.
  bool standard_ends = false;
};

const AsciiSentenceClasses& AsciiClasses() {
  static const AsciiSentenceClasses classes = [] {
    AsciiSentenceClasses t;
    for (UChar32 c = 0; c < 128; ++c) {
      const int v = u_getIntPropertyValue(c, UCHAR_SENTENCE_BREAK);
      t.of[c] = static_cast<std::uint8_t>(v);
      t.ends[c] = v == U_SB_ATERM || v == U_SB_STERM || v == U_SB_SEP ||
                  v == U_SB_CR || v == U_SB_LF;
      if (v == U_SB_EXTEND || v == U_SB_FORMAT) t.usable = false;
    }
    t.standard_ends = true;
    for (int c = 0; c < 128; ++c) {
      const bool listed =
          c == '.' || c == '!' || c == '?' || c == '\r' || c == '\n';
      if (t.ends[c] != listed) t.standard_ends = false;
    }
    return t;
  }();
  return classes;
}

// The sentences of one ASCII paragraph (no '\n' in it) with the breaks ICU's
// iterator finds in it, each through AddBlock; SplitWithIcu's '.' -> '!'
// substitution included. The UAX #29 sentence rules, as ICU's root rules
// (sent.txt) implement them, decided at each position p between text[p - 1]
// and text[p] in rule order; SB1/SB2 (the ends) and SB5 (Extend, Format: none
// in ASCII) need nothing. Linear: the look-behind "SATerm Close* Sp*" is
// tracked as the text is read, and SB8's look-ahead is remembered up to where
// it stopped, since it stops at the same place from any position before.
// tests/fingerprint/blocks_test.cc and corpus_test.cc check it against ICU.
void SplitAsciiParagraph(std::string_view text,
                         const AsciiSentenceClasses& classes, BlockSink& out) {
  const std::size_t n = text.size();
  const auto cls = [&](std::size_t i) -> int {
    const char c = text[i];
    // The '!' that SplitWithIcu substitutes for ". ".
    if (c == '.' && i + 1 < n && text[i + 1] == ' ')
      return classes.of[static_cast<unsigned char>('!')];
    return classes.of[static_cast<unsigned char>(c)];
  };
  const auto is_para_sep = [](int c) {
    return c == U_SB_SEP || c == U_SB_CR || c == U_SB_LF;
  };
  // Look-behind state for the text before p: whether it ends in
  // SATerm Close* Sp*, whether that SATerm is an ATerm, whether Sp* is empty.
  bool after_term = false;
  bool aterm = false;
  bool spaces = false;
  // SB8 look-ahead: from any p <= ahead_stop, the scan over characters that
  // are not OLetter, Upper, Lower, ParaSep or SATerm stops at ahead_stop.
  std::size_t ahead_stop = 0;
  bool ahead_lower = false;
  bool have_ahead = false;
  std::size_t start = 0;
  int prev2 = -1;
  int prev = n > 0 ? cls(0) : -1;
  for (std::size_t p = 1; p < n; ++p) {
    if (!after_term && !classes.ends[static_cast<unsigned char>(text[p - 1])]) {
      // Only SB998 applies until a terminator or separator: no break before
      // the character after it.
      std::size_t q = p;
      if (classes.standard_ends) {
        q = internal::FindSentenceEnd(text, q);
      } else {
        while (q < n && !classes.ends[static_cast<unsigned char>(text[q])]) ++q;
      }
      if (q + 1 >= n) break;
      p = q + 1;
      prev2 = cls(q - 1);
      prev = cls(q);
    }
    // Update the look-behind with text[p - 1].
    if (prev == U_SB_ATERM || prev == U_SB_STERM) {
      after_term = true;
      aterm = prev == U_SB_ATERM;
      spaces = false;
    } else if (prev == U_SB_CLOSE) {
      if (spaces) after_term = false;
    } else if (prev == U_SB_SP) {
      spaces = true;
    } else {
      after_term = false;
    }
    const int next = cls(p);
    bool brk;
    if (prev == U_SB_CR && next == U_SB_LF) {  // SB3
      brk = false;
    } else if (is_para_sep(prev)) {  // SB4
      brk = true;
    } else if (prev == U_SB_ATERM && next == U_SB_NUMERIC) {  // SB6
      brk = false;
    } else if ((prev2 == U_SB_UPPER || prev2 == U_SB_LOWER) &&
               prev == U_SB_ATERM && next == U_SB_UPPER) {  // SB7
      brk = false;
    } else if (after_term) {
      bool sb8 = false;
      if (aterm) {
        if (!have_ahead || p > ahead_stop) {
          std::size_t q = p;
          for (; q < n; ++q) {
            const int c = cls(q);
            if (c == U_SB_OLETTER || c == U_SB_UPPER || c == U_SB_LOWER ||
                is_para_sep(c) || c == U_SB_ATERM || c == U_SB_STERM) {
              break;
            }
          }
          ahead_stop = q;
          ahead_lower = q < n && cls(q) == U_SB_LOWER;
          have_ahead = true;
        }
        sb8 = ahead_lower;
      }
      if (sb8) {  // SB8
        brk = false;
      } else if (next == U_SB_SCONTINUE || next == U_SB_STERM ||
                 next == U_SB_ATERM) {  // SB8a
        brk = false;
      } else if (!spaces && (next == U_SB_CLOSE || next == U_SB_SP ||
                             is_para_sep(next))) {  // SB9
        brk = false;
      } else if (next == U_SB_SP || is_para_sep(next)) {  // SB10
        brk = false;
      } else {  // SB11
        brk = true;
      }
    } else {  // SB998
      brk = false;
    }
    if (brk) {
      AddBlock(text.substr(start, p - start), out);
      start = p;
    }
    prev2 = prev;
    prev = next;
  }
  if (start < n) AddBlock(text.substr(start), out);
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

bool internal::Sha1Checked(std::string_view bytes, Sha1& out) {
  unsigned int len = 0;
  // EVP_Digest only fails on allocation failure inside OpenSSL.
  if (EVP_Digest(bytes.data(), bytes.size(), out.data(), &len, Sha1Md(),
                 nullptr) != 1 ||
      len != out.size()) {
    out = Sha1{};
    return false;
  }
  return true;
}

Sha1 Sha1Of(std::string_view bytes) {
  Sha1 out{};
  internal::Sha1Checked(bytes, out);
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

namespace {

void SplitSentencesInto(std::string_view text, BlockSink& out) {
  const std::string prepared = PrepareForSentences(text);
  if (SentencePrototype() == nullptr) {
    // ICU data missing: degrade to one block per paragraph
    SplitParagraphsInto(prepared, out);
    return;
  }
  // `prepared` holds one paragraph per line, and UAX #29 always breaks after
  // a line feed (SB4) and never before one (SB9, SB10, SB998), so ICU cuts
  // each paragraph as it would cut it alone; each ICU run below starts at a
  // paragraph and takes its line feed along. An ASCII paragraph, the common
  // case, takes the fast path; the others go to ICU, whose iterator is cloned
  // on the first such paragraph (a per-call object: no state outlives the
  // call, so calls on other threads never share one).
  const AsciiSentenceClasses& classes = AsciiClasses();
  std::unique_ptr<icu::BreakIterator> it;
  std::size_t i = 0;
  while (i < prepared.size()) {
    std::size_t eol = prepared.find('\n', i);
    eol = eol == std::string::npos ? prepared.size() : eol + 1;
    const std::string_view line(prepared.data() + i, eol - i);
    const std::string_view paragraph =
        line.back() == '\n' ? line.substr(0, line.size() - 1) : line;
    if (classes.usable && internal::IsAscii(paragraph)) {
      SplitAsciiParagraph(paragraph, classes, out);
    } else {
      if (it == nullptr) it = NewSentenceIterator();
      if (it == nullptr) {  // out of memory: degrade as above
        out.Reset();
        SplitParagraphsInto(prepared, out);
        return;
      }
      SplitWithIcu(line, *it, out);
    }
    i = eol;
  }
}

// Hashes each block into a BlockList. With the SHA extensions, blocks are
// hashed two at a time (internal::Sha1ShaNi2: a short block alone leaves the
// SHA unit waiting most of the time): one block waits, copied (the view dies
// with Add), for the next or for Finish.
class HashSink final : public BlockSink {
 public:
  // `sha_ni`: hash with the SHA extensions (REQUIRES: internal::HasShaNi()),
  // else with OpenSSL.
  explicit HashSink(BlockKind kind, bool sha_ni = internal::HasShaNi())
      : sha_ni_(sha_ni) {
    list_.kind = kind;
  }

  void Add(std::string_view block) override {
    const auto len = static_cast<std::uint32_t>(
        std::min<std::size_t>(block.size(), UINT32_MAX));
    const auto pos = static_cast<std::uint32_t>(list_.hashes.size());
    list_.keys.push_back({0, pos, len});  // the key once the hash is known
    list_.hashes.emplace_back();
    if (!sha_ni_) {
      HashWithOpenSsl(block, list_.hashes.back());
      return;
    }
    if (!pending_) {
      waiting_.assign(block);
      pending_ = true;
      return;
    }
    internal::Sha1ShaNi2(waiting_, block, list_.hashes[pos - 1],
                         list_.hashes[pos]);
    pending_ = false;
  }

  void Reset() override {
    list_.hashes.clear();
    list_.keys.clear();
    pending_ = false;
    degraded_ = false;  // the blocks it was about are gone
  }

  void Reserve(std::size_t blocks) {
    list_.hashes.reserve(blocks);
    list_.keys.reserve(blocks);
  }

  BlockList Finish() {
    if (pending_) internal::Sha1ShaNi(waiting_, list_.hashes.back());
    pending_ = false;
    for (BlockKey& k : list_.keys) {
      // The first 4 bytes of the hash, big-endian: the same key on every
      // host (keys are stored, docs/fingerprint.md "Stored form").
      k.key = BlockKeyOf(internal::LoadBe64(list_.hashes[k.pos].data()));
    }
    std::sort(list_.keys.begin(), list_.keys.end());
    return std::move(list_);
  }

  // Whether a block's SHA-1 could not be computed (its hash is all zeros).
  bool degraded() const { return degraded_; }

 private:
  // One digest context for all blocks: EVP_Digest would allocate and free
  // one per block, which cost as much as hashing a short line. On failure
  // (allocation inside OpenSSL), the one-shot call, as before; when that
  // fails too, the list is degraded.
  void HashWithOpenSsl(std::string_view block, Sha1& h) {
    unsigned int len = 0;
    if ((ctx_ == nullptr && !(ctx_ = NewDigestContext())) ||
        EVP_DigestInit_ex2(ctx_.get(), Sha1Md(), nullptr) != 1 ||
        EVP_DigestUpdate(ctx_.get(), block.data(), block.size()) != 1 ||
        EVP_DigestFinal_ex(ctx_.get(), h.data(), &len) != 1) {
      if (!internal::Sha1Checked(block, h)) degraded_ = true;
    }
  }

  using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;
  // Made on the first block that needs it: with the SHA extensions, never.
  static DigestContext NewDigestContext() {
    return DigestContext(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  }
  DigestContext ctx_{nullptr, &EVP_MD_CTX_free};
  bool sha_ni_;
  // With the SHA extensions: the last block, not hashed yet.
  bool pending_ = false;
  std::string waiting_;
  bool degraded_ = false;
  BlockList list_;
};

}  // namespace

std::vector<Sha1> TEST_BlockSha1(std::string_view bytes) {
  std::vector<Sha1> out;
  for (const bool sha_ni : {false, true}) {
    if (sha_ni && !internal::HasShaNi()) continue;
    HashSink sink(BlockKind::kParagraphs, sha_ni);
    sink.Add(bytes);
    sink.Add(bytes);  // the OpenSSL context's second use
    const BlockList list = sink.Finish();
    out.push_back(list.hashes[0]);
    out.push_back(list.hashes[1]);
  }
  return out;
}

std::vector<std::string> TEST_SplitSentencesIcu(std::string_view text) {
  StringSink out;
  const std::string prepared = PrepareForSentences(text);
  std::unique_ptr<icu::BreakIterator> it = NewSentenceIterator();
  if (it == nullptr) return SplitParagraphs(prepared);
  SplitWithIcu(prepared, *it, out);
  return std::move(out.blocks);
}

std::vector<std::string> SplitSentences(std::string_view text) {
  StringSink out;
  SplitSentencesInto(text, out);
  return std::move(out.blocks);
}

std::vector<std::string> SplitParagraphs(std::string_view text) {
  StringSink out;
  SplitParagraphsInto(text, out);
  return std::move(out.blocks);
}

BlockList HashBlocks(const std::vector<std::string>& blocks, BlockKind kind) {
  HashSink sink(kind);
  for (const std::string& block : blocks) sink.Add(block);
  return sink.Finish();
}

BlockList ComputeBlocks(std::string_view text, BlockKind kind) {
  bool degraded = false;
  return internal::ComputeBlocksChecked(text, kind, &degraded);
}

BlockList internal::ComputeBlocksChecked(std::string_view text, BlockKind kind,
                                         bool* degraded) {
  HashSink sink(kind);
  // Sentences and lines of mail run 50-80 bytes: room for most lists at
  // once, rather than a reallocation and copy at each doubling.
  sink.Reserve(text.size() / 48 + 4);
  if (kind == BlockKind::kSentences) {
    SplitSentencesInto(text, sink);
  } else {
    SplitParagraphsInto(text, sink);
  }
  BlockList list = sink.Finish();
  if (sink.degraded()) *degraded = true;
  return list;
}

}  // namespace mw::fingerprint
