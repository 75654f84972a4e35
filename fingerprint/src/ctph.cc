#include "fingerprint/ctph.h"

#include <fuzzy.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common_level.h"
#include "cpu.h"
#include "ctph_symbols.h"
#include "fingerprint/core.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define MW_CTPH_X86 1
#endif

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
// the choice only on the symbol counts.
//
// Knowing the length, we work in two phases. Phase 1 (FindCuts) finds the
// cuts: the rolling hash at a position depends only on the 7 bytes ending
// there, so eight positions are computed at once with AVX2, and the positions
// that cut at the levels around the guess are packed into a buffer and then
// counted per level (Cuts), which is all the choice of level needs: no second
// pass. Phase 2 (HashSegments) runs the piece hash only for the two levels the
// signature keeps, piece by piece between the known cuts, four pieces at a
// time. What each phase costs is mostly per cut, not per byte: a cut every few
// dozen bytes, each ending a piece (a mispredicted branch and bookkeeping).
//
// The cap "never above one past the largest level that cut" needs no scan of
// its own: every level above that one has no cuts, so the descent from the
// first guess passes through them anyway; and at the level above the one
// chosen, the signature is the one piece whenever nothing cut there, which is
// what libfuzzy writes for 2B when it has no hash for 2B.
constexpr std::uint32_t kMinBlockSize = 3;
constexpr std::uint32_t kSpamSumLength = 64;
constexpr int kWindow = 7;
constexpr std::uint8_t kHashInit = 0x27;  // FNV offset 0x28021967 mod 64
// Block sizes up to 3·2^kMaxLevel; larger inputs (past 50 GB) go to libfuzzy,
// which also handles its 31st block size there.
constexpr unsigned kMaxLevel = 28;

constexpr std::uint64_t BlockSize(unsigned level) {
  return std::uint64_t{kMinBlockSize} << level;
}

// The rolling hash of the window ending at p[i], plus one ("horg" in
// libfuzzy), in closed form: with c_k = p[i - k] (0 before the start),
//   h1 = sum c_k, h2 = sum (7 - k)·c_k, h3 = xor (c_k << 5k) mod 2^32,
// for k = 0..6, as the recurrence h2 += 7c - h1, h1 += c - c_7,
// h3 = (h3 << 5) ^ c leaves them (a byte's shifts past 32 bits vanish from
// h3 after 7 steps).
std::uint32_t WindowHashPlusOne(const std::uint8_t* p, std::size_t i) {
  std::uint32_t h1 = 0, h2 = 0, h3 = 0;
  for (std::size_t k = 0; k < kWindow && k <= i; ++k) {
    const std::uint32_t c = p[i - k];
    h1 += c;
    h2 += static_cast<std::uint32_t>(kWindow - k) * c;
    h3 ^= k * 5 < 32 ? c << (k * 5) : 0;
  }
  return h1 + h2 + h3 + 1;
}

// A cut at level k needs horg == 0 mod 3·2^k (horg != 0), so levels >=
// `level` need it divisible by 3·2^level. One test (Granlund and Montgomery):
// horg times the inverse of 3 mod 2^32, rotated right by `level`, is at most
// (2^32 - 1) / (3·2^level).
static_assert(kMinBlockSize == 3);
constexpr std::uint32_t kInverse3 = 0xaaaaaaab;  // 3 · kInverse3 = 1 mod 2^32

std::uint32_t CutLimit(unsigned level) {
  return (0xffffffffu >> level) / kMinBlockSize;
}

// Whether `horg` cuts at `level` or above; limit = CutLimit(level).
bool CutsAt(std::uint32_t horg, unsigned level, std::uint32_t limit) {
  return std::rotr(horg * kInverse3, static_cast<int>(level)) <= limit &&
         horg != 0;
}

// Phase 1 without SIMD: the recurrence, with the byte leaving the window read
// from `p` itself. Calls sink.Add(i, horg) for every position i, in order,
// that cuts at `level` or above.
template <class Sink>
void FindCutsPortable(const std::uint8_t* p, std::size_t n, unsigned level,
                      Sink& sink) {
  const std::uint32_t limit = CutLimit(level);
  std::uint32_t h1 = 0, h2 = 0, h3 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t c = p[i];
    const std::uint32_t gone = i >= kWindow ? p[i - kWindow] : 0;
    h2 = h2 - h1 + kWindow * c;
    h1 = h1 + c - gone;
    h3 = (h3 << 5) ^ c;
    const std::uint32_t horg = h1 + h2 + h3 + 1;
    if (CutsAt(horg, level, limit)) sink.Add(i, horg);
  }
}

#ifdef MW_CTPH_X86
// Eight bytes from q on, one per 32-bit lane.
__attribute__((target("avx2"), always_inline)) inline __m256i Bytes(
    const std::uint8_t* q) {
  return _mm256_cvtepu8_epi32(
      _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q)));
}

// For each 8-bit mask, the indices of its set bits in order, one per byte:
// the lane permutation that packs the selected lanes first.
constexpr std::array<std::uint64_t, 256> kPackLanes = [] {
  std::array<std::uint64_t, 256> t{};
  for (unsigned m = 0; m < 256; ++m) {
    unsigned n = 0;
    for (unsigned j = 0; j < 8; ++j) {
      if (m & (1u << j)) t[m] |= std::uint64_t{j} << (8 * n++);
    }
  }
  return t;
}();

// Phase 1 with AVX2: the closed form for positions i .. i + 7 in 32-bit
// lanes, from seven loads of eight bytes (p[i - k ..], k = 0..6), then the cut
// test in every lane. The lanes that pass are packed into a buffer without a
// branch (one in 3·2^level positions passes, every other step or so at the
// usual level: a branch there would be mispredicted half the time), and the
// buffer goes to the sink every kBlock positions. The first positions, whose
// window starts before the input, and the last few take the closed form one
// at a time. Same calls as FindCutsPortable.
template <class Sink>
__attribute__((target("avx2"))) void FindCutsAvx2(const std::uint8_t* p,
                                                  std::size_t n, unsigned level,
                                                  Sink& sink) {
  const std::uint32_t limit = CutLimit(level);
  const auto scalar = [&](std::size_t i) {
    const std::uint32_t horg = WindowHashPlusOne(p, i);
    if (CutsAt(horg, level, limit)) sink.Add(i, horg);
  };
  std::size_t i = 0;
  for (; i < n && i < kWindow - 1; ++i) scalar(i);
  const __m256i inverse3 = _mm256_set1_epi32(static_cast<int>(kInverse3));
  const __m256i limit_v = _mm256_set1_epi32(static_cast<int>(limit));
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m128i right = _mm_cvtsi32_si128(static_cast<int>(level));
  // A shift by 32 (level 0) gives 0, which is what the rotation needs.
  const __m128i left = _mm_cvtsi32_si128(32 - static_cast<int>(level));
  constexpr std::size_t kBlock = 1024;
  // Packed hits of one block: horg and the offset from the block's start.
  // Each step stores eight lanes, of which the first popcount(mask) count.
  alignas(32) std::uint32_t hit_horg[kBlock + 8];
  alignas(32) std::uint32_t hit_off[kBlock + 8];
  while (i + 8 <= n) {
    const std::size_t base = i;
    const std::size_t stop =
        base + std::min(kBlock, (n - base) & ~std::size_t{7});
    std::size_t hits = 0;
    for (; i < stop; i += 8) {
      const std::uint8_t* q = p + i;
      const __m256i c0 = Bytes(q), c1 = Bytes(q - 1), c2 = Bytes(q - 2),
                    c3 = Bytes(q - 3), c4 = Bytes(q - 4), c5 = Bytes(q - 5),
                    c6 = Bytes(q - 6);
      // h2 = sum over k of the prefix sums c0 + .. + ck; h1 is the last one.
      __m256i s = c0;
      __m256i h12 = s;
      s = _mm256_add_epi32(s, c1);
      h12 = _mm256_add_epi32(h12, s);
      s = _mm256_add_epi32(s, c2);
      h12 = _mm256_add_epi32(h12, s);
      s = _mm256_add_epi32(s, c3);
      h12 = _mm256_add_epi32(h12, s);
      s = _mm256_add_epi32(s, c4);
      h12 = _mm256_add_epi32(h12, s);
      s = _mm256_add_epi32(s, c5);
      h12 = _mm256_add_epi32(h12, s);
      s = _mm256_add_epi32(s, c6);
      h12 = _mm256_add_epi32(h12, _mm256_add_epi32(s, s));
      const __m256i h3 = _mm256_xor_si256(
          _mm256_xor_si256(_mm256_xor_si256(c0, _mm256_slli_epi32(c1, 5)),
                           _mm256_xor_si256(_mm256_slli_epi32(c2, 10),
                                            _mm256_slli_epi32(c3, 15))),
          _mm256_xor_si256(_mm256_xor_si256(_mm256_slli_epi32(c4, 20),
                                            _mm256_slli_epi32(c5, 25)),
                           _mm256_slli_epi32(c6, 30)));
      const __m256i horg = _mm256_add_epi32(_mm256_add_epi32(h12, h3), one);
      const __m256i m = _mm256_mullo_epi32(horg, inverse3);
      const __m256i rot = _mm256_or_si256(_mm256_srl_epi32(m, right),
                                          _mm256_sll_epi32(m, left));
      const __m256i hit =
          _mm256_cmpeq_epi32(_mm256_min_epu32(rot, limit_v), rot);
      const unsigned mask =
          static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(hit)));
      const __m256i pack = _mm256_cvtepu8_epi32(
          _mm_cvtsi64_si128(static_cast<long long>(kPackLanes[mask])));
      const __m256i off =
          _mm256_add_epi32(iota, _mm256_set1_epi32(static_cast<int>(i - base)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(hit_horg + hits),
                          _mm256_permutevar8x32_epi32(horg, pack));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(hit_off + hits),
                          _mm256_permutevar8x32_epi32(off, pack));
      hits += static_cast<std::size_t>(std::popcount(mask));
    }
    sink.AddBlock(base, hit_horg, hit_off, hits);
  }
  for (; i < n; ++i) scalar(i);
}

#endif

// The cuts at levels lo .. hi (at most kSpanLevels of them) as a Sink for
// FindCuts: per level the count, the first 64 positions and the last.
struct Cuts {
  static constexpr unsigned kSpanLevels = 4;
  struct Level {
    std::uint64_t count = 0;
    std::size_t last = 0;
    std::size_t first[kSpamSumLength + 1];
  };
  unsigned lo = 0, hi = 0;
  Level levels[kSpanLevels];

  Cuts(unsigned lo_level, unsigned hi_level) : lo(lo_level), hi(hi_level) {}
  Level& at(unsigned level) { return levels[level - lo]; }
  // horg = 3·2^k·odd with k >= lo: levels lo .. k cut at `pos`.
  void Add(std::size_t pos, std::uint32_t horg) {
    const std::uint32_t off = 0;
    AddBlock(pos, &horg, &off, 1);
  }
  // Add(base + off[j], horg[j]) for j < hits, skipping horg == 0.
  //
  // Without branches: at the usual levels a cut comes every few dozen bytes,
  // and how many levels each one reaches is random. The counts and last
  // positions stay in registers (in memory, each cut would wait for the
  // previous one's store). Slot `count` of `first` is written even when its
  // level does not cut: the next cut there overwrites it, and slot 64 takes
  // the writes past the 64th.
  void AddBlock(std::size_t base, const std::uint32_t* horg,
                const std::uint32_t* off, std::size_t hits) {
    // One level, written out four times below: GCC keeps an array of counts
    // in memory even when the loop over it is unrolled.
    const auto add = [](Level& l, std::uint64_t& count, std::size_t& last,
                        unsigned level, unsigned top, std::size_t pos) {
      const std::size_t cut = level <= top ? ~std::size_t{0} : 0;
      l.first[std::min<std::uint64_t>(count, kSpamSumLength)] = pos;
      count -= cut;                        // + 1 where it cuts
      last = (pos & cut) | (last & ~cut);  // no branch (GCC makes one of ?:)
    };
    static_assert(kSpanLevels == 4);
    std::uint64_t count0 = levels[0].count, count1 = levels[1].count,
                  count2 = levels[2].count, count3 = levels[3].count;
    std::size_t last0 = levels[0].last, last1 = levels[1].last,
                last2 = levels[2].last, last3 = levels[3].last;
    for (std::size_t j = 0; j < hits; ++j) {
      if (horg[j] == 0) continue;  // not a cut (and rare)
      const std::size_t pos = base + off[j];
      const unsigned top =
          std::min(static_cast<unsigned>(std::countr_zero(horg[j])), hi);
      add(levels[0], count0, last0, lo, top, pos);
      add(levels[1], count1, last1, lo + 1, top, pos);
      add(levels[2], count2, last2, lo + 2, top, pos);
      add(levels[3], count3, last3, lo + 3, top, pos);
    }
    levels[0].count = count0;
    levels[1].count = count1;
    levels[2].count = count2;
    levels[3].count = count3;
    levels[0].last = last0;
    levels[1].last = last1;
    levels[2].last = last2;
    levels[3].last = last3;
  }
};

void FindCuts(std::string_view bytes, Cuts& cuts) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
#ifdef MW_CTPH_X86
  if (internal::Cpu().avx2) return FindCutsAvx2(p, bytes.size(), cuts.lo, cuts);
#endif
  FindCutsPortable(p, bytes.size(), cuts.lo, cuts);
}

// A piece to hash: bytes [begin, end), from kHashInit; its symbol goes to
// *out.
struct Segment {
  std::size_t begin, end;
  char* out;
};

// The symbols of one level's signature, before FUZZY_FLAG_ELIMSEQ.
struct Symbols {
  char sym[kSpamSumLength];
  std::uint32_t length = 0;
};

// Appends the pieces of `level` to `segs` and sizes `out`: one piece per cut
// up to the 63rd (the piece hash restarts after each), then, as
// fuzzy_digest writes it, the piece being read when the rolling hash is not 0
// (everything after the last restart), else, when there was a 64th cut, the
// 64th symbol (after the 63rd cut up to the last cut, as libfuzzy keeps
// overwriting it).
// At most kSpamSumLength segments per level.
struct Segments {
  Segment seg[2 * kSpamSumLength];
  std::size_t size = 0;
  void push_back(const Segment& s) { seg[size++] = s; }
};

void AddPieces(const Cuts::Level& level, std::size_t n, std::uint32_t roll,
               Symbols& out, Segments& segs) {
  const std::uint32_t pieces = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(level.count, kSpamSumLength - 1));
  std::size_t begin = 0;
  for (std::uint32_t j = 0; j < pieces; ++j) {
    segs.push_back({begin, level.first[j] + 1, &out.sym[j]});
    begin = level.first[j] + 1;
  }
  out.length = pieces;
  if (roll != 0) {
    segs.push_back({begin, n, &out.sym[out.length++]});
  } else if (level.count >= kSpamSumLength) {
    segs.push_back({begin, level.last + 1, &out.sym[out.length++]});
  }
}

// FNV-1 (32 bits) of a piece, of which only the low 6 bits are read: the
// prime 0x01000193 is 19 mod 64, and neither the multiplication nor the xor
// carries anything downwards, so h·19 ^ c keeps libfuzzy's low 6 bits (and
// compiles to two LEAs instead of a multiplication).
inline std::uint32_t FnvStep(std::uint32_t h, std::uint8_t c) {
  return h * 19 ^ c;
}

void HashSerial(const std::uint8_t* p, const Segment* s, const Segment* e) {
  for (; s != e; ++s) {
    std::uint32_t h = kHashInit;
    for (std::size_t i = s->begin; i < s->end; ++i) h = FnvStep(h, p[i]);
    *s->out = internal::kCtphSymbols[h & 63];
  }
}

// Phase 2: the symbol of every segment. One piece hash is a chain of
// dependent steps (about 3 cycles a byte), but the pieces are independent,
// so four runs of consecutive segments advance together, each run a chain of
// its own: the inner loop steps all four up to the nearest piece end.
void HashSegments(const std::uint8_t* p, std::span<const Segment> segs) {
  constexpr int kLanes = 4;
  struct Lane {
    const Segment* seg;   // segment being hashed
    const Segment* last;  // end of this lane's run
    std::size_t i;        // next byte
    std::uint32_t h;
  };
  // Runs of about equal bytes, cut at segment boundaries.
  std::size_t total = 0;
  for (const Segment& s : segs) total += s.end - s.begin;
  Lane lanes[kLanes];
  const Segment* s = segs.data();
  const Segment* const end = segs.data() + segs.size();
  std::size_t done = 0;
  for (int k = 0; k < kLanes; ++k) {
    const std::size_t goal = total / kLanes * (k + 1);
    const Segment* first = s;
    while (s != end && (k == kLanes - 1 || done < goal)) {
      done += s->end - s->begin;
      ++s;
    }
    lanes[k] = {first, s, first != s ? first->begin : 0, kHashInit};
  }
  // Each lane is inside a segment (seg != last) while all four run.
  const auto active = [&] {
    for (const Lane& l : lanes) {
      if (l.seg == l.last) return false;
    }
    return true;
  };
  while (active()) {
    std::size_t m = lanes[0].seg->end - lanes[0].i;
    for (int k = 1; k < kLanes; ++k)
      m = std::min(m, lanes[k].seg->end - lanes[k].i);
    const std::uint8_t* p0 = p + lanes[0].i;
    const std::uint8_t* p1 = p + lanes[1].i;
    const std::uint8_t* p2 = p + lanes[2].i;
    const std::uint8_t* p3 = p + lanes[3].i;
    std::uint32_t h0 = lanes[0].h, h1 = lanes[1].h, h2 = lanes[2].h,
                  h3 = lanes[3].h;
    for (std::size_t j = 0; j < m; ++j) {
      h0 = FnvStep(h0, p0[j]);
      h1 = FnvStep(h1, p1[j]);
      h2 = FnvStep(h2, p2[j]);
      h3 = FnvStep(h3, p3[j]);
    }
    lanes[0].h = h0;
    lanes[1].h = h1;
    lanes[2].h = h2;
    lanes[3].h = h3;
    for (Lane& l : lanes) {
      l.i += m;
      if (l.i != l.seg->end) continue;
      *l.seg->out = internal::kCtphSymbols[l.h & 63];
      ++l.seg;
      l.h = kHashInit;
      if (l.seg != l.last) l.i = l.seg->begin;
    }
  }
  // The rest of each run, one at a time (little: the runs have equal bytes).
  for (Lane& l : lanes) {
    if (l.seg == l.last) continue;
    for (; l.i < l.seg->end; ++l.i) l.h = FnvStep(l.h, p[l.i]);
    *l.seg->out = internal::kCtphSymbols[l.h & 63];
    HashSerial(p, l.seg + 1, l.last);
  }
}

// Appends `c` to `out` (which holds this signature only) unless
// FUZZY_FLAG_ELIMSEQ drops it: the three symbols before it are all `c`.
void AppendSymbol(char c, std::string& out) {
  const std::size_t k = out.size();
  if (k >= 3 && out[k - 1] == c && out[k - 2] == c && out[k - 3] == c) return;
  out.push_back(c);
}

std::string Signature(const Symbols& s) {
  std::string out;
  out.reserve(kSpamSumLength);
  for (std::uint32_t i = 0; i < s.length; ++i) AppendSymbol(s.sym[i], out);
  return out;
}

Ctph SpamSum(std::string_view bytes) {
  const std::size_t n = bytes.size();
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
  unsigned guess = 0;
  while (BlockSize(guess) * kSpamSumLength < n) ++guess;
  // Cuts are recorded for levels guess - 1 .. guess + 1 (the signature at
  // the guess or one below, usual, and the one above each). In the rare case
  // that the level one below has fewer than 32 cuts too, phase 1 runs again
  // lower, and again, until the descent stops (at level 0 at the latest).
  unsigned hi = guess + 1;
  unsigned lo = guess > 0 ? guess - 1 : 0;
  unsigned bi = guess;
  for (;;) {
    Cuts cuts(lo, hi);
    FindCuts(bytes, cuts);
    while (bi > lo && cuts.at(bi).count < kSpamSumLength / 2) --bi;
    if (bi == lo && lo > 0 && cuts.at(lo).count < kSpamSumLength / 2) {
      hi = lo;
      lo = lo >= Cuts::kSpanLevels - 1 ? lo - (Cuts::kSpanLevels - 1) : 0;
      bi = hi - 1;
      continue;
    }
    // The rolling hash after the last byte (without the + 1).
    const std::uint32_t roll = WindowHashPlusOne(p, n - 1) - 1;
    Symbols at_b, at_2b;
    Segments segs;
    AddPieces(cuts.at(bi), n, roll, at_b, segs);
    AddPieces(cuts.at(bi + 1), n, roll, at_2b, segs);
    HashSegments(p, std::span<const Segment>(segs.seg, segs.size));
    Ctph out;
    out.block_size = static_cast<std::uint32_t>(BlockSize(bi));
    out.sig = Signature(at_b);
    out.sig2 = Signature(at_2b);
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

namespace internal {
namespace {

// A Sink that keeps every cut.
struct AllCuts {
  std::vector<CtphCut> cuts;
  void Add(std::size_t pos, std::uint32_t horg) { cuts.push_back({pos, horg}); }
  void AddBlock(std::size_t base, const std::uint32_t* horg,
                const std::uint32_t* off, std::size_t hits) {
    for (std::size_t j = 0; j < hits; ++j) {
      if (horg[j] != 0) Add(base + off[j], horg[j]);
    }
  }
};

}  // namespace

std::uint32_t CtphWindowHash(std::string_view bytes, std::size_t i) {
  return WindowHashPlusOne(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                           i) -
         1;
}

std::vector<CtphCut> CtphCutsPortable(std::string_view bytes, unsigned level) {
  AllCuts sink;
  FindCutsPortable(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                   bytes.size(), level, sink);
  return std::move(sink.cuts);
}

std::optional<std::vector<CtphCut>> CtphCutsAvx2(std::string_view bytes,
                                                 unsigned level) {
#ifdef MW_CTPH_X86
  if (!internal::Cpu().avx2) return std::nullopt;
  AllCuts sink;
  FindCutsAvx2(reinterpret_cast<const std::uint8_t*>(bytes.data()),
               bytes.size(), level, sink);
  return std::move(sink.cuts);
#else
  (void)bytes;
  (void)level;
  return std::nullopt;
#endif
}

}  // namespace internal

std::string ToString(const Ctph& ctph) {
  return std::to_string(ctph.block_size) + ":" + ctph.sig + ":" + ctph.sig2;
}

std::optional<double> CtphEditRate(const Ctph& a, const Ctph& b) {
  return internal::AtCommonLevel<double>(
      a, b,
      [](const std::string& x, const std::string& y) -> std::optional<double> {
        if (x.empty() || y.empty() || x.size() > kCtphMaxLength ||
            y.size() > kCtphMaxLength) {
          return std::nullopt;
        }
        return EditRate(x, y);
      },
      [](double r, double s) { return r < s; });
}

}  // namespace mw::fingerprint
