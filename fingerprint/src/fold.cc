#include "fingerprint/fold.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu.h"
#include "line_busters.h"
#include "scan.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define MW_FOLD_X86 1
#endif

namespace mw::fingerprint {
namespace {

// Character classes as bits of one table, as every byte of the text is tested.
enum : std::uint8_t { kDigit = 1, kAlpha = 2, kBlank = 4, kEdgePunct = 8 };
constexpr std::array<std::uint8_t, 256> kClass = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] |= kDigit;
  for (int c = 'a'; c <= 'z'; ++c) t[c] |= kAlpha;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] |= kAlpha;
  for (const char c : {' ', '\t', '\r'})
    t[static_cast<unsigned char>(c)] |= kBlank;
  for (const char c : {'.', ',', ';', ':', '!', '?', '(', ')', '[', ']', '<',
                       '>', '"', '\'', '*', '-', '_'}) {
    t[static_cast<unsigned char>(c)] |= kEdgePunct;
  }
  return t;
}();
bool Is(char c, std::uint8_t cls) {
  return (kClass[static_cast<unsigned char>(c)] & cls) != 0;
}

bool IsDigit(char c) { return Is(c, kDigit); }
bool IsAlnum(char c) { return Is(c, kDigit | kAlpha); }
bool IsBlank(char c) { return Is(c, kBlank); }
bool IsEdgePunct(char c) { return Is(c, kEdgePunct); }
bool IsEmailChar(char c) {
  return IsAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}

// The token without leading and trailing punctuation.
std::string_view Core(std::string_view t) {
  std::size_t b = 0;
  std::size_t e = t.size();
  while (b < e && IsEdgePunct(t[b])) ++b;
  while (e > b && IsEdgePunct(t[e - 1])) --e;
  return t.substr(b, e - b);
}

// A random-looking token: 6+ ASCII alphanumerics mixing letters and digits, or
// 20+ of them.
bool IsHashBuster(std::string_view token) {
  if (token.size() < 6) return false;  // the core is no longer
  const std::string_view core = Core(token);
  if (core.size() < 6) return false;
  bool digit = false;
  bool letter = false;
  for (const char c : core) {
    if (!IsAlnum(c)) return false;
    (IsDigit(c) ? digit : letter) = true;
  }
  return (digit && letter) || core.size() >= 20;
}

// Whether FoldUrl may change `token`: it holds "://" or "www." (a loop, as
// tokens are short and this runs for each of them).
bool MayHoldUrl(std::string_view token) {
  for (std::size_t i = 0; i + 3 <= token.size(); ++i) {
    if (token[i] == ':' && token[i + 1] == '/' && token[i + 2] == '/')
      return true;
    if (token[i] == 'w' && i + 4 <= token.size() && token[i + 1] == 'w' &&
        token[i + 2] == 'w' && token[i + 3] == '.') {
      return true;
    }
  }
  return false;
}

bool HasDigit(std::string_view token) {
  return std::any_of(token.begin(), token.end(), IsDigit);
}

// Replaces each e-mail address inside `token` by "@".
std::string FoldEmails(std::string_view token) {
  std::string out;
  std::size_t i = 0;
  while (i < token.size()) {
    const std::size_t at = token.find('@', i);
    if (at == std::string_view::npos) break;
    std::size_t b = at;
    while (b > i && IsEmailChar(token[b - 1])) --b;
    std::size_t e = at + 1;
    bool dot = false;
    while (e < token.size() && IsEmailChar(token[e])) {
      dot = dot || token[e] == '.';
      ++e;
    }
    while (e > at + 1 && token[e - 1] == '.')
      --e;  // sentence full stop after the address
    if (b == at || e == at + 1 || !dot) {
      out.append(token.substr(i, at + 1 - i));
      i = at + 1;
      continue;
    }
    out.append(token.substr(i, b - i));
    out.push_back('@');
    i = e;
  }
  out.append(token.substr(i));
  return out;
}

// Cuts the query string and fragment of a URL token, keeping trailing
// punctuation.
std::string FoldUrl(std::string_view token) {
  const std::size_t scheme = token.find("://");
  const std::size_t www = token.find("www.");
  if (scheme == std::string_view::npos && www == std::string_view::npos) {
    return std::string(token);
  }
  const std::size_t start = scheme != std::string_view::npos ? scheme + 3 : www;
  const std::size_t cut = token.find_first_of("?#", start);
  if (cut == std::string_view::npos) return std::string(token);
  std::size_t end = token.size();
  while (end > cut && (token[end - 1] == '.' || token[end - 1] == ',' ||
                       token[end - 1] == ')' || token[end - 1] == '>' ||
                       token[end - 1] == ']' || token[end - 1] == '"')) {
    --end;
  }
  std::string out(token.substr(0, cut));
  out.append(token.substr(end));
  return out;
}

// Replaces runs of digits, with inner '.', ',', ':', '-' or '/' between digits,
// by "0".
std::string FoldNumbers(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  std::size_t i = 0;
  while (i < token.size()) {
    if (!IsDigit(token[i])) {
      out.push_back(token[i++]);
      continue;
    }
    while (i < token.size()) {
      if (IsDigit(token[i])) {
        ++i;
      } else if (i + 1 < token.size() && IsDigit(token[i + 1]) &&
                 (token[i] == '.' || token[i] == ',' || token[i] == ':' ||
                  token[i] == '-' || token[i] == '/')) {
        i += 2;
      } else {
        break;
      }
    }
    out.push_back('0');
  }
  return out;
}

constexpr std::array<std::string_view, 8> kGreetings = {
    "dear", "hi", "hello", "hey", "greetings", "attention", "attn", "howdy"};

// Number of leading tokens that form the greeting word(s): "dear" -> 1, "good
// morning" -> 2.
std::size_t GreetingWords(const std::vector<std::string_view>& tokens) {
  if (tokens.empty()) return 0;
  const std::string_view first = Core(tokens[0]);
  for (const std::string_view g : kGreetings) {
    if (first == g) return 1;
  }
  if (first == "good" && tokens.size() > 1) {
    const std::string_view second = Core(tokens[1]);
    if (second == "morning" || second == "afternoon" || second == "evening" ||
        second == "day") {
      return 2;
    }
  }
  return 0;
}

bool EndsGreeting(std::string_view token) {
  const char c = token.back();
  return c == ',' || c == ':' || c == '!' || c == ';';
}

// Folds a greeting line: "dear john smith," -> "dear,". Returns false when the
// line is not one.
bool FoldGreeting(std::vector<std::string_view>& tokens,
                  std::vector<std::string>& owned) {
  const std::size_t words = GreetingWords(tokens);
  if (words == 0) return false;
  if (EndsGreeting(tokens[words - 1]))
    return false;  // "hello, ..." has no name to remove
  constexpr std::size_t kMaxNameWords = 3;
  for (std::size_t k = words; k < tokens.size() && k < words + kMaxNameWords;
       ++k) {
    const bool last_on_line = k + 1 == tokens.size();
    if (EndsGreeting(tokens[k]) || last_on_line) {
      std::string head;
      for (std::size_t w = 0; w < words; ++w) {
        if (w > 0) head.push_back(' ');
        head.append(tokens[w]);
      }
      if (EndsGreeting(tokens[k])) head.push_back(tokens[k].back());
      owned.push_back(std::move(head));
      tokens.erase(tokens.begin(),
                   tokens.begin() + static_cast<std::ptrdiff_t>(k + 1));
      tokens.insert(tokens.begin(), owned.back());
      return true;
    }
  }
  return false;
}

// One token (or blank, or line feed) of the fast fold at src[i], written at
// dst; returns the index after it. `first`: no token yet on this line.
//
// A token runs up to the next blank or line feed. Where sixteen bytes can be
// read, one vector compare finds its end and tells whether it may be a hash
// buster (6+ bytes with a digit: one of fewer than 20 bytes must mix letters
// and digits) or a URL (it holds ':' or 'w'). Short tokens are copied with one
// 16-byte store: the output is no longer than the input read (see below), so
// the store stays inside the buffer, and the bytes past the token are
// overwritten by what comes next, or cut at the end.
std::size_t FoldStep(const char* src, std::size_t i, std::size_t n, char*& dst,
                     bool& first, bool hash_busters, bool urls,
                     std::string& url) {
  const char c = src[i];
  if (c == '\n') {
    *dst++ = '\n';
    first = true;
    return i + 1;
  }
  if (IsBlank(c)) return i + 1;
  std::size_t e = n;
  bool may_bust = true;
  bool may_url = true;
  bool short_token = false;
#ifdef MW_SCAN_SSE2
  if (i + 16 <= n) {
    const __m128i v = internal::Load16(src + i);
    const auto stop = static_cast<std::uint32_t>(_mm_movemask_epi8(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                  _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))),
                     _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')),
                                  _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))))));
    if (stop != 0) {
      const int len = std::countr_zero(stop);
      const std::uint32_t in_token = (std::uint32_t{1} << len) - 1;
      e = i + static_cast<std::size_t>(len);
      const auto digits = static_cast<std::uint32_t>(_mm_movemask_epi8(
          _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                        _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), v))));
      const auto colon_or_w = static_cast<std::uint32_t>(_mm_movemask_epi8(
          _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')),
                       _mm_cmpeq_epi8(v, _mm_set1_epi8('w')))));
      may_bust = len >= 6 && (digits & in_token) != 0;
      may_url = (colon_or_w & in_token) != 0;
      short_token = true;
    }
  }
#endif
  if (!short_token) {
    e = i + 1;
    while (e < n && !IsBlank(src[e]) && src[e] != '\n') ++e;
  }
  std::string_view token(src + i, e - i);
  if (hash_busters && may_bust && IsHashBuster(token)) return e;
  if (urls && may_url && MayHoldUrl(token)) {
    url = FoldUrl(token);
    token = url;
  }
  if (!first) *dst++ = ' ';
  first = false;
#ifdef MW_SCAN_SSE2
  if (short_token && token.data() == src + i) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                     internal::Load16(src + i));
    dst += token.size();
    return e;
  }
#endif
  std::memcpy(dst, token.data(), token.size());
  dst += token.size();
  return e;
}

#ifdef MW_FOLD_X86

// Up to 63 bytes of the fold at once with AVX-512: the bytes kept (tokens,
// line feeds, one space between two tokens of a line) are picked by a mask
// and packed with one compress. REQUIRES: 64 bytes readable at p; p is the
// text's start or a token's (the byte before it a blank or line feed); the
// output written so far is no longer than the input read before p.
//
// The chunk ends at the last token start in p[1..63], so every token in it is
// whole and no blank run crosses its start, or earlier, at the start of the
// first token that a fold could change (6 or more bytes with a digit, 20 or
// more bytes, "://" or "www."), which is left to FoldStep. Returns 0 when
// the chunk would be empty (such a token at p, or no token start in
// p[1..63]); else writes the chunk's output at dst and returns its length.
//
// Which blank of a run stands for the space does not matter (a space is
// written whatever the blank was): the last one of each run that follows a
// token and precedes another, found by adding the run's first bit to the
// blank mask, which carries through the run to the byte after it. A run at
// the chunk's end is left to the next chunk, which writes the space first when
// `first` says a token came before on the line: the token after it might be
// dropped, and then so must the space.
__attribute__((target("avx512f,avx512bw,avx512vbmi2,bmi,bmi2,lzcnt,popcnt")))
std::size_t
FoldChunkAvx512(const char* p, char*& dst, bool& first, bool hash_busters,
                bool urls) {
  const __m512i v = _mm512_loadu_si512(p);
  const std::uint64_t line_feed =
      _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n'));
  const std::uint64_t blank_all =
      _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(' ')) |
      _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\t')) |
      _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\r'));
  const std::uint64_t token_all = ~(blank_all | line_feed);
  const std::uint64_t starts =
      token_all & ~(token_all << 1) & ~std::uint64_t{1};
  if (starts == 0) return 0;
  int j = 63 - std::countl_zero(starts);  // 1 <= j <= 63
  std::uint64_t in_chunk = (std::uint64_t{1} << j) - 1;
  // Bytes of tokens that a fold may change: the chunk ends before the first
  // such token, which FoldStep takes.
  std::uint64_t changed = 0;
  if (hash_busters) {
    // Bytes of tokens of 6 or more bytes: the 6-byte windows inside tokens,
    // spread over the 6 bytes of each; and the 20-byte windows.
    const std::uint64_t token = token_all & in_chunk;
    const std::uint64_t a2 = token & (token >> 1);
    const std::uint64_t a4 = a2 & (a2 >> 2);
    const std::uint64_t a6 = a4 & (a2 >> 4);
    const std::uint64_t c2 = a6 | (a6 << 1);
    const std::uint64_t long6 = c2 | (c2 << 2) | (c2 << 4);
    const std::uint64_t a8 = a4 & (a4 >> 4);
    const std::uint64_t a16 = a8 & (a8 >> 8);
    const std::uint64_t a20 = a16 & (a4 >> 16);
    const std::uint64_t digit =
        _mm512_cmp_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8('0')),
                             _mm512_set1_epi8(10), _MM_CMPINT_LT);
    changed |= (digit & long6) | a20;
  }
  if (urls) {
    const std::uint64_t colon =
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(':'));
    const std::uint64_t slash =
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('/'));
    const std::uint64_t w = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('w'));
    const std::uint64_t dot = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('.'));
    const std::uint64_t url = (colon & (slash >> 1) & (slash >> 2)) |
                              (w & (w >> 1) & (w >> 2) & (dot >> 3));
    changed |= url & in_chunk;
  }
  if (changed != 0) {
    // The start of the token that holds the first such byte (a token byte,
    // so some token starts at or before it: bit 0 is one when the chunk
    // starts a token, and its first byte is none when it starts the text).
    const int q = std::countr_zero(changed);
    const std::uint64_t up_to_q = (std::uint64_t{2} << q) - 1;
    const std::uint64_t token_starts = token_all & ~(token_all << 1);
    j = 63 - std::countl_zero(token_starts & up_to_q);
    if (j == 0) return 0;
    in_chunk = (std::uint64_t{1} << j) - 1;
  }
  const std::uint64_t token = token_all & in_chunk;
  const std::uint64_t blank = blank_all & in_chunk;
  const std::uint64_t lf = line_feed & in_chunk;
  const std::uint64_t run_starts = blank & ~(blank << 1);
  const std::uint64_t after_token = run_starts & (token << 1);
  const std::uint64_t space = (((blank + after_token) & ~blank & token) >> 1);
  const std::uint64_t keep = token | lf | space;
  if (!first && (token & 1) != 0) *dst++ = ' ';
  const __m512i spaced =
      _mm512_mask_blend_epi8(blank, v, _mm512_set1_epi8(' '));
  _mm512_storeu_si512(dst, _mm512_maskz_compress_epi8(keep, spaced));
  dst += std::popcount(keep);
  if (token != 0) {
    first =
        lf != 0 && (63 - std::countl_zero(lf)) > (63 - std::countl_zero(token));
  } else if (lf != 0) {
    first = true;
  }
  return static_cast<std::size_t>(j);
}
#endif

// Fold with only the hash-buster and URL folds (the defaults), written for
// speed: the same output as FoldLines, which is its test reference.
//
// The output is written into a buffer of the input's size, as no fold ever
// lengthens the text: a token is copied as it is or shortened (a URL loses
// its query, a hash buster disappears), and the space written before a token
// stands for at least one blank read after the previous one. So after each
// step the output is no longer than the input read. With AVX-512 (VBMI2),
// chunks of up to 63 bytes whose tokens no fold changes, most of the text, are
// folded at once (FoldChunkAvx512); the rest, and everything on other CPUs,
// token by token (FoldStep), which after a chunk it could not take goes on to
// the next token's start.
std::string FoldHashBustersAndUrls(std::string_view text, bool hash_busters,
                                   bool urls, bool vector_chunks) {
  std::string out(text.size(), '\0');
  char* const base = out.data();
  char* dst = base;
  const char* const src = text.data();
  const std::size_t n = text.size();
  std::string url;
  bool first = true;  // no token yet on this line
  std::size_t i = 0;
#ifdef MW_FOLD_X86
  // FoldChunkAvx512 needs a token's start (or the text's): `i` is one
  // whenever FoldStep reaches a non-blank byte that is not a line feed after
  // a blank or a line feed.
  while (vector_chunks && i + 64 <= n) {
    const std::size_t used =
        FoldChunkAvx512(src + i, dst, first, hash_busters, urls);
    if (used != 0) {
      i += used;
      continue;
    }
    // One token (or blank, or line feed), then on to the next token's start.
    i = FoldStep(src, i, n, dst, first, hash_busters, urls, url);
    while (i < n && (IsBlank(src[i]) || src[i] == '\n'))
      i = FoldStep(src, i, n, dst, first, hash_busters, urls, url);
  }
#else
  (void)vector_chunks;
#endif
  while (i < n) i = FoldStep(src, i, n, dst, first, hash_busters, urls, url);
  out.resize(static_cast<std::size_t>(dst - base));
  return out;
}

// Every fold, a line at a time (the greeting fold needs the whole line).
std::string FoldLines(std::string_view text, const FoldOptions& options) {
  std::string out;
  out.reserve(text.size());
  std::vector<std::string_view> tokens;
  std::vector<std::string> owned;
  std::string folded;
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t eol = text.find('\n', i);
    const bool last = eol == std::string_view::npos;
    if (last) eol = text.size();
    const std::string_view line = text.substr(i, eol - i);
    bool first = true;
    // Appends one token of the line with the folds applied, or drops it.
    const auto emit = [&](const std::string_view raw) {
      if (options.hash_busters && IsHashBuster(raw)) return;
      // Most tokens need no fold and are copied as they are; a fold builds
      // the new token in `next`, which then replaces `token`'s storage.
      std::string_view token = raw;
      const auto apply = [&](std::string next) {
        folded.swap(next);
        token = folded;
      };
      if (options.emails && token.find('@') != std::string_view::npos)
        apply(FoldEmails(token));
      if (options.urls && MayHoldUrl(token)) apply(FoldUrl(token));
      if (options.numbers && HasDigit(token)) apply(FoldNumbers(token));
      if (!first) out.push_back(' ');
      first = false;
      out.append(token);
    };
    // Tokens go straight to `emit`, unless the greeting fold must see the
    // whole line first.
    tokens.clear();
    for (std::size_t t = 0; t < line.size();) {
      if (IsBlank(line[t])) {
        ++t;
        continue;
      }
      std::size_t e = t + 1;
      while (e < line.size() && !IsBlank(line[e])) ++e;
      if (options.greetings) {
        tokens.push_back(line.substr(t, e - t));
      } else {
        emit(line.substr(t, e - t));
      }
      t = e;
    }
    if (options.greetings) {
      owned.clear();
      // FoldGreeting keeps views into `owned`: it must not reallocate.
      owned.reserve(2);
      FoldGreeting(tokens, owned);
      for (const std::string_view raw : tokens) emit(raw);
    }
    if (last) break;
    out.push_back('\n');
    i = eol + 1;
  }
  return out;
}

// The token folds (every fold but the line busters).
std::string FoldTokens(std::string_view text, const FoldOptions& options) {
  if (!options.numbers && !options.emails && !options.greetings) {
#ifdef MW_FOLD_X86
    const bool vector_chunks = internal::Cpu().avx512vbmi2;
#else
    const bool vector_chunks = false;
#endif
    return FoldHashBustersAndUrls(text, options.hash_busters, options.urls,
                                  vector_chunks);
  }
  return FoldLines(text, options);
}

}  // namespace

std::string Fold(std::string_view text, const FoldOptions& options) {
  if (!options.hash_busters && !options.numbers && !options.urls &&
      !options.emails && !options.greetings) {
    return std::string(text);
  }
  if (options.hash_busters) {
    if (const auto unbusted = internal::FoldLineBusters(text)) {
      return FoldTokens(*unbusted, options);
    }
  }
  return FoldTokens(text, options);
}

std::string TEST_FoldLines(std::string_view text, const FoldOptions& options) {
  if (options.hash_busters) {
    if (const auto unbusted = internal::FoldLineBusters(text)) {
      return FoldLines(*unbusted, options);
    }
  }
  return FoldLines(text, options);
}

std::string TEST_FoldTokens(std::string_view text, const FoldOptions& options) {
  return FoldHashBustersAndUrls(text, options.hash_busters, options.urls,
                                false);
}

}  // namespace mw::fingerprint
