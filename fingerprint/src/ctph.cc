#include "fingerprint/ctph.h"

#include <fuzzy.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <memory>

#include "fingerprint/core.h"

namespace mw::fingerprint {
namespace {

struct FuzzyStateFree {
  void operator()(fuzzy_state* s) const { fuzzy_free(s); }
};
using FuzzyState = std::unique_ptr<fuzzy_state, FuzzyStateFree>;

// Parses libfuzzy's "B:sig:sig2". Returns an empty Ctph for anything else.
Ctph Parse(std::string_view text) {
  Ctph out;
  const std::size_t c1 = text.find(':');
  if (c1 == std::string_view::npos) return out;
  const std::size_t c2 = text.find(':', c1 + 1);
  if (c2 == std::string_view::npos) return out;
  std::uint32_t b = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + c1, b);
  if (ec != std::errc() || p != text.data() + c1) return out;
  out.block_size = b;
  out.sig.assign(text.substr(c1 + 1, c2 - c1 - 1));
  out.sig2.assign(text.substr(c2 + 1));
  return out;
}

// libfuzzy itself (FUZZY_FLAG_ELIMSEQ | FUZZY_FLAG_NOTRUNC): the reference
// that SpamSum below reproduces, and the path for inputs beyond its range.
Ctph LibfuzzyCtph(std::string_view bytes) {
  if (bytes.empty()) return {};
  FuzzyState state(fuzzy_new());
  if (!state)
    return {};  // out of memory: an empty signature compares with nothing
  // fuzzy_update takes a size_t length; feed in pieces anyway so no length
  // narrows anywhere.
  constexpr std::size_t kChunk = 1u << 30;
  for (std::size_t off = 0; off < bytes.size(); off += kChunk) {
    const std::size_t len = std::min(kChunk, bytes.size() - off);
    if (fuzzy_update(state.get(),
                     reinterpret_cast<const unsigned char*>(bytes.data() + off),
                     len) != 0) {
      return {};
    }
  }
  char result[FUZZY_MAX_RESULT];
  if (fuzzy_digest(state.get(), result,
                   FUZZY_FLAG_ELIMSEQ | FUZZY_FLAG_NOTRUNC) != 0)
    return {};
  return Parse(result);
}

// spamsum as libfuzzy 2.14 computes it, for a buffer whose length is known.
//
// libfuzzy runs a piece hash for every block size 3·2^k at once (it cannot
// know the input's length in advance), then picks one: the smallest k with
// 3·2^k·64 >= length, lowered while its signature has fewer than 32 symbols,
// and never above one past the largest k whose cut condition ever held (it
// only starts the hash for 2B when B first cuts). Every piece hash runs from
// the start of the input in effect (a new one is cloned from its parent's
// running state), so the signature at each k depends only on the bytes, and
// the choice only on the symbol counts. Knowing the length, we run the three
// block sizes around the first guess, which covers the guess and one step down
// (the usual cases), and run again lower in the rare case that is not enough,
// as the original spamsum did.
constexpr std::uint32_t kMinBlockSize = 3;
constexpr std::uint32_t kSpamSumLength = 64;
constexpr int kWindow = 7;
constexpr std::uint8_t kHashInit = 0x27;  // FNV offset 0x28021967 mod 64
constexpr char kB64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// Block sizes up to 3·2^kMaxLevel; larger inputs (past 50 GB) go to libfuzzy,
// which also handles its 31st block size there.
constexpr unsigned kMaxLevel = 28;

constexpr std::uint64_t BlockSize(unsigned level) {
  return std::uint64_t{kMinBlockSize} << level;
}

// spamsum's rolling hash over the last kWindow bytes: a sum, a
// position-weighted sum and a shift/xor.
struct RollingHash {
  std::uint8_t window[kWindow] = {};
  std::uint32_t h1 = 0, h2 = 0, h3 = 0;
  int n = 0;

  // Takes the next byte; returns the hash of the window ending with it.
  std::uint32_t Update(std::uint8_t c) {
    h2 = h2 - h1 + kWindow * std::uint32_t{c};
    h1 = h1 + c - window[n];
    window[n] = c;
    if (++n == kWindow) n = 0;
    h3 = (h3 << 5) ^ c;
    return h1 + h2 + h3;
  }
};

// The piece hash and signature at one block size.
struct Level {
  std::uint8_t h = kHashInit;  // piece hash of the piece being read
  std::uint32_t length = 0;    // symbols, at most 63: the 64th is `last`
  bool last_set = false;       // a 64th cut happened: `digest[63]` is set
  char digest[kSpamSumLength] = {};
};

struct Pass {
  static constexpr unsigned kLevels = 3;
  unsigned lo = 0;  // levels lo .. lo + 2
  Level levels[kLevels];
  int max_cut_level = -1;  // largest level that cut, if it is >= lo
  std::uint32_t roll = 0;  // rolling hash after the last byte
};

// Appends the symbol of piece hash `h` to `l` at a cut; returns the piece
// hash to go on with: the initial one, or `h` once the signature is full (its
// last symbol then hashes everything after the 63rd cut).
std::uint32_t Emit(Level& l, std::uint32_t h) {
  l.digest[l.length] = kB64[h & 63];
  if (l.length < kSpamSumLength - 1) {
    ++l.length;
    return kHashInit;
  }
  l.last_set = true;
  return h;
}

// One pass over `bytes` with the piece hashes of levels lo .. lo + 2.
//
// The loop is RollingHash::Update written out for speed: the byte leaving the
// window is read from `bytes` itself rather than from a ring. The FNV piece
// hashes are kept as 32-bit products of which only the low 6 bits (one base64
// symbol) are ever read: multiplication and xor carry nothing downwards, so
// those bits are libfuzzy's whatever the bits above hold. (A 64x64 table of
// the hash mod 64, as before, made each byte a chain of dependent loads; a
// multiplication is shorter.)
void RunPass(std::string_view bytes, unsigned lo, Pass& pass) {
  pass = Pass{};
  pass.lo = lo;
  constexpr std::uint32_t kFnvPrime = 0x01000193;
  // A cut at level k needs roll + 1 == 0 mod 3·2^k, so levels >= lo need it
  // divisible by 3·2^lo.
  static_assert(kMinBlockSize == 3);
  constexpr std::uint32_t kInverse3 = 0xaaaaaaab;  // 3 · kInverse3 = 1 mod 2^32
  // (2^32 - 1) / (3·2^lo), written so that the compiler keeps a comparison
  // with it rather than turning it into an overflowing multiplication.
  const std::uint32_t cut_limit = (0xffffffffu >> lo) / kMinBlockSize;
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const std::size_t n = bytes.size();
  std::uint32_t h1 = 0, h2 = 0, h3 = 0;
  std::uint32_t p0 = kHashInit, p1 = kHashInit, p2 = kHashInit;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t c = p[i];
    // The byte leaving the window (none for the first kWindow bytes).
    const std::uint32_t gone = i >= kWindow ? p[i - kWindow] : 0;
    h2 = h2 - h1 + kWindow * c;
    h1 = h1 + c - gone;
    h3 = (h3 << 5) ^ c;
    const std::uint32_t horg = h1 + h2 + h3 + 1;
    p0 = (p0 * kFnvPrime) ^ c;
    p1 = (p1 * kFnvPrime) ^ c;
    p2 = (p2 * kFnvPrime) ^ c;
    // One test for "divisible by 3·2^lo" (Granlund and Montgomery: times the
    // inverse of 3 mod 2^32, rotated by lo, at most (2^32 - 1) / (3·2^lo)),
    // false for all but one byte in 3·2^lo or so, hence well predicted.
    if (std::rotr(horg * kInverse3, static_cast<int>(lo)) > cut_limit ||
        horg == 0) {
      continue;
    }
    // horg = 3·2^k·odd: levels 0 .. k cut here.
    const int top = std::countr_zero(horg / kMinBlockSize);
    pass.max_cut_level = std::max(pass.max_cut_level, top);
    if (static_cast<int>(lo) <= top) p0 = Emit(pass.levels[0], p0);
    if (static_cast<int>(lo) + 1 <= top) p1 = Emit(pass.levels[1], p1);
    if (static_cast<int>(lo) + 2 <= top) p2 = Emit(pass.levels[2], p2);
  }
  pass.levels[0].h = static_cast<std::uint8_t>(p0 & 63);
  pass.levels[1].h = static_cast<std::uint8_t>(p1 & 63);
  pass.levels[2].h = static_cast<std::uint8_t>(p2 & 63);
  pass.roll = h1 + h2 + h3;
}

// The largest level whose cut condition holds somewhere in `bytes`, or -1.
int MaxCutLevel(std::string_view bytes) {
  RollingHash roll;
  int max_level = -1;
  for (const char ch : bytes) {
    const std::uint32_t horg = roll.Update(static_cast<std::uint8_t>(ch)) + 1;
    if (horg != 0 && horg % kMinBlockSize == 0) {
      max_level = std::max(max_level, std::countr_zero(horg / kMinBlockSize));
    }
  }
  return max_level;
}

// Appends `c` to `out` (which holds this signature only) unless
// FUZZY_FLAG_ELIMSEQ drops it: the three symbols before it are all `c`.
void AppendSymbol(char c, std::string& out) {
  const std::size_t k = out.size();
  if (k >= 3 && out[k - 1] == c && out[k - 2] == c && out[k - 3] == c) return;
  out.push_back(c);
}

// One signature as fuzzy_digest writes it: the symbols with runs cut to 3,
// then the piece being read (when the rolling hash is not 0) or the 64th
// symbol.
std::string Signature(const Level& l, std::uint32_t roll) {
  std::string out;
  out.reserve(kSpamSumLength);
  for (std::uint32_t i = 0; i < l.length; ++i) AppendSymbol(l.digest[i], out);
  if (roll != 0) {
    AppendSymbol(kB64[l.h], out);
  } else if (l.last_set) {
    AppendSymbol(l.digest[kSpamSumLength - 1], out);
  }
  return out;
}

Ctph SpamSum(std::string_view bytes) {
  unsigned guess = 0;
  while (BlockSize(guess) * kSpamSumLength < bytes.size()) ++guess;
  // `top` is the level to try first; `max_cut` (the largest level that cut,
  // -1 for none) is known once a pass has seen a cut at or above its lowest
  // level, else by a scan of its own.
  unsigned top = guess;
  std::optional<int> max_cut;
  Pass pass;
  for (;;) {
    const unsigned lo = top > 0 ? top - 1 : 0;
    RunPass(bytes, lo, pass);
    if (!max_cut) {
      if (pass.max_cut_level >= 0) {
        max_cut = pass.max_cut_level;
      } else {
        max_cut = MaxCutLevel(bytes);
      }
    }
    // libfuzzy has no piece hash above one past the largest level that cut.
    const unsigned limit = static_cast<unsigned>(*max_cut + 1);
    if (top > limit) {
      top = limit;
      if (top < lo) continue;
    }
    unsigned bi = top;
    while (bi > lo && pass.levels[bi - lo].length < kSpamSumLength / 2) --bi;
    if (bi == lo && lo > 0 && pass.levels[0].length < kSpamSumLength / 2) {
      top = lo - 1;  // still too short: on down, as spamsum retries
      continue;
    }
    Ctph out;
    out.block_size = static_cast<std::uint32_t>(BlockSize(bi));
    out.sig = Signature(pass.levels[bi - lo], pass.roll);
    if (static_cast<int>(bi) <= *max_cut) {
      out.sig2 = Signature(pass.levels[bi + 1 - lo], pass.roll);
    } else if (pass.roll != 0) {
      // bi == 0 and nothing ever cut: the 2B signature is the one piece.
      out.sig2.assign(1, kB64[pass.levels[bi - lo].h]);
    }
    return out;
  }
}

}  // namespace

Ctph ComputeCtph(std::string_view bytes) {
  if (bytes.empty()) return {};
  if (bytes.size() > BlockSize(kMaxLevel) * kSpamSumLength)
    return LibfuzzyCtph(bytes);
  return SpamSum(bytes);
}

Ctph TEST_ComputeCtphLibfuzzy(std::string_view bytes) {
  return LibfuzzyCtph(bytes);
}
std::string ToString(const Ctph& ctph) {
  return std::to_string(ctph.block_size) + ":" + ctph.sig + ":" + ctph.sig2;
}

std::optional<double> CtphEditRate(const Ctph& a, const Ctph& b) {
  if (a.block_size == 0 || b.block_size == 0) return std::nullopt;
  const auto rate = [](const std::string& x,
                       const std::string& y) -> std::optional<double> {
    if (x.empty() || y.empty() || x.size() > kCtphMaxLength ||
        y.size() > kCtphMaxLength) {
      return std::nullopt;
    }
    return EditRate(x, y);
  };
  if (a.block_size == b.block_size) {
    const std::optional<double> r1 = rate(a.sig, b.sig);
    const std::optional<double> r2 = rate(a.sig2, b.sig2);
    if (r1 && r2) return std::min(*r1, *r2);
    return r1 ? r1 : r2;
  }
  if (static_cast<std::uint64_t>(a.block_size) * 2 == b.block_size)
    return rate(a.sig2, b.sig);
  if (static_cast<std::uint64_t>(b.block_size) * 2 == a.block_size)
    return rate(a.sig, b.sig2);
  return std::nullopt;
}

}  // namespace mw::fingerprint
