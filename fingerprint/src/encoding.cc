#include "fingerprint/encoding.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "byte_order.h"
#include "ctph_symbols.h"

namespace mw::fingerprint {
namespace {

// The first byte of every stored fingerprint: tells one apart from other
// blobs a store may hold, and from an empty or zeroed record.
constexpr std::uint8_t kMagic = 0xF9;

// In place of the second word sequence's length (version 3): it is stored as
// a bitmap over the first (Encode). Above any length (at most
// kCtphMaxLength).
constexpr std::uint8_t kSubsequence = 0xFF;

// Bits of the flags byte; the others must be zero.
constexpr std::uint8_t kFlagDegraded = 1;
constexpr std::uint8_t kFlagOtherBlocks = 2;
constexpr std::uint8_t kKnownFlags = kFlagDegraded | kFlagOtherBlocks;

// The 6-bit code of each byte (its index in kCtphSymbols), or -1 for a byte
// that is not a symbol.
constexpr std::array<std::int8_t, 256> kCtphSymbolCode = [] {
  std::array<std::int8_t, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 64; ++i)
    t[static_cast<unsigned char>(internal::kCtphSymbols[i])] = i;
  return t;
}();

void PutVarint(std::uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void PutLe64(std::uint64_t v, std::string& out) {
  char b[8];
  internal::StoreLe64(v, b);
  out.append(b, sizeof b);
}

void PutLe32(std::uint32_t v, std::string& out) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> 8 * i));
}

// A block as stored: its key and length, in message order.
struct Block {
  std::uint64_t key;
  std::uint32_t len;
};

// Each block is a varint len + 1 followed by the key's 32 bits (4 bytes LE),
// or a 0 and the varint index of the block stored before it (both lists
// counted, the primary list first) with the same key and length. Lines and
// sentences of a short body are often the same blocks, and a list repeats
// its own ("thanks", a rule of dashes), which costs 5 or 6 bytes once and 2
// or 3 after. A length below 127, most lines, takes one byte. (Versions 1
// and 2: one varint tag, len << 1 followed by an 8-byte key, or
// (index << 1) | 1.)
class BlockWriter {
 public:
  explicit BlockWriter(std::string& out) : out_(out) {}

  // REQUIRES: the positions in list.keys are 0..n-1 (as ComputeBlocks and
  // Decode make them).
  void Write(const BlockList& list) {
    std::vector<Block> ordered(list.keys.size());
    for (const BlockKey& k : list.keys) {
      if (k.pos < ordered.size()) ordered[k.pos] = {k.key, k.len};
    }
    out_.push_back(static_cast<char>(list.kind));
    PutVarint(ordered.size(), out_);
    for (const Block& b : ordered) {
      const auto [it, inserted] = first_.try_emplace(b.key, stored_);
      if (!inserted && lens_[it->second] == b.len) {
        out_.push_back(0);
        PutVarint(it->second, out_);
      } else {
        PutVarint(std::uint64_t{b.len} + 1, out_);
        PutLe32(static_cast<std::uint32_t>(b.key >> 32), out_);
      }
      lens_.push_back(b.len);
      ++stored_;
    }
  }

 private:
  std::string& out_;
  std::unordered_map<std::uint64_t, std::uint64_t> first_;  // key -> index
  std::vector<std::uint32_t> lens_;                         // by index
  std::uint64_t stored_ = 0;
};

// A signature as its length (one byte) and its symbols' 6-bit codes packed
// least significant bit first. REQUIRES: sig.size() <= kCtphMaxLength, every
// byte a symbol of kCtphSymbols.
void PutSignature(const std::string& sig, std::string& out) {
  out.push_back(static_cast<char>(sig.size()));
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : sig) {
    const std::int8_t code = kCtphSymbolCode[static_cast<unsigned char>(c)];
    acc |= static_cast<std::uint32_t>(code < 0 ? 0 : code) << bits;
    bits += 6;
    while (bits >= 8) {
      out.push_back(static_cast<char>(acc & 0xff));
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out.push_back(static_cast<char>(acc & 0xff));
}

// Reads Encode's form front to back; every read checks the bytes left, and
// the first failure sticks (error_), so Decode checks once per section.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  std::size_t left() const { return bytes_.size() - at_; }

  void Fail(const char* reason) {
    if (error_.empty()) error_ = reason;
  }

  std::uint8_t Byte(const char* what) {
    if (failed()) return 0;
    if (left() < 1) {
      Fail(what);
      return 0;
    }
    return static_cast<std::uint8_t>(bytes_[at_++]);
  }

  std::uint64_t Le64(const char* what) {
    if (failed()) return 0;
    if (left() < 8) {
      Fail(what);
      return 0;
    }
    const std::uint64_t v = internal::LoadLe64(bytes_.data() + at_);
    at_ += 8;
    return v;
  }

  std::uint32_t Le32(const char* what) {
    std::uint8_t b[4] = {};
    Copy(b, sizeof b, what);
    return std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 |
           std::uint32_t{b[2]} << 16 | std::uint32_t{b[3]} << 24;
  }

  void Copy(void* out, std::size_t n, const char* what) {
    if (failed()) return;
    if (left() < n) {
      Fail(what);
      return;
    }
    std::memcpy(out, bytes_.data() + at_, n);
    at_ += n;
  }

  // A LEB128 varint of at most `max`: at most 10 bytes, no bits past 64, no
  // needless trailing zero byte (one value, one form).
  std::uint64_t Varint(std::uint64_t max, const char* what) {
    if (failed()) return 0;
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (left() < 1) {
        Fail(what);
        return 0;
      }
      const auto b = static_cast<std::uint8_t>(bytes_[at_++]);
      const std::uint64_t part = b & 0x7f;
      if (shift == 63 && part > 1) break;  // past 64 bits
      v |= part << shift;
      if ((b & 0x80) == 0) {
        if (b == 0 && shift > 0) break;  // overlong
        if (v > max) break;
        return v;
      }
    }
    Fail(what);
    return 0;
  }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
  std::string error_;
};

// The block list Encode wrote (BlockWriter::Write): keys sorted by (key, pos)
// as ComputeBlocks sorts them, hashes holding each key. `stored` is every
// block read so far, for back-references. Counts are bounded by the bytes
// left (each block takes one at least), so a hostile count allocates nothing
// it cannot back with input. Versions 1 and 2 stored 64-bit keys: they are
// cut to the 32 bits every key has now (BlockKeyOf), so an older stored
// fingerprint compares as a fresh one does.
BlockList ReadBlocks(Reader& in, std::uint8_t version,
                     std::vector<Block>& stored) {
  BlockList list;
  const std::uint8_t kind = in.Byte("truncated block list");
  if (kind != static_cast<std::uint8_t>(BlockKind::kParagraphs) &&
      kind != static_cast<std::uint8_t>(BlockKind::kSentences)) {
    in.Fail("unknown block kind");
    return list;
  }
  list.kind = static_cast<BlockKind>(kind);
  const std::uint64_t count = in.Varint(in.left(), "bad block count");
  if (in.failed()) return list;
  list.keys.reserve(count);
  list.hashes.reserve(count);
  for (std::uint64_t pos = 0; pos < count; ++pos) {
    const std::uint64_t tag =
        in.Varint(std::numeric_limits<std::uint64_t>::max(), "bad block");
    if (in.failed()) return list;
    // A back-reference's index, or the block's length.
    bool back = false;
    std::uint64_t value = 0;
    if (version >= 3) {
      back = tag == 0;
      value = back ? in.Varint(std::numeric_limits<std::uint64_t>::max(),
                               "bad block back-reference")
                   : tag - 1;
    } else {
      back = (tag & 1) != 0;
      value = tag >> 1;
    }
    Block b{};
    if (back) {
      if (!in.failed() && value >= stored.size()) {
        in.Fail("bad block back-reference");
      }
      if (in.failed()) return list;
      b = stored[value];
    } else {
      if (value > std::numeric_limits<std::uint32_t>::max()) {
        in.Fail("bad block length");
      }
      b.len = static_cast<std::uint32_t>(value);
      b.key = version >= 3 ? std::uint64_t{in.Le32("truncated block key")} << 32
                           : BlockKeyOf(in.Le64("truncated block key"));
      if (in.failed()) return list;
    }
    stored.push_back(b);
    list.keys.push_back({b.key, static_cast<std::uint32_t>(pos), b.len});
    Sha1& h = list.hashes.emplace_back();
    internal::StoreBe64(b.key, h.data());
  }
  std::sort(list.keys.begin(), list.keys.end());
  return list;
}

// A signature PutSignature wrote: at most kCtphMaxLength symbols, the unused
// bits of the last byte zero (one signature, one form).
std::string ReadSignature(Reader& in) {
  std::string sig;
  const std::uint8_t n = in.Byte("truncated CTPH signature");
  if (n > kCtphMaxLength) in.Fail("CTPH signature too long");
  if (in.failed()) return sig;
  std::uint8_t packed[(kCtphMaxLength * 6 + 7) / 8];
  const std::size_t bytes = (std::size_t{n} * 6 + 7) / 8;
  in.Copy(packed, bytes, "truncated CTPH signature");
  if (in.failed()) return sig;
  sig.reserve(n);
  std::uint32_t acc = 0;
  int bits = 0;
  std::size_t next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (bits < 6) {
      acc |= std::uint32_t{packed[next++]} << bits;
      bits += 8;
    }
    sig.push_back(internal::kCtphSymbols[acc & 63]);
    acc >>= 6;
    bits -= 6;
  }
  if (acc != 0) in.Fail("bad CTPH signature padding");
  return sig;
}

// libfuzzy's block sizes: 3·2^k, k < 31 (and 0 for an empty text).
bool ValidCtphBlockSize(std::uint64_t b) {
  if (b == 0) return true;
  if (b % 3 != 0) return false;
  const std::uint64_t p = b / 3;
  return std::has_single_bit(p) && p <= (std::uint64_t{1} << 30);
}

}  // namespace

std::uint32_t OptionsDigest(const Options& options) {
  // A new fold changes what Compute makes: it must be added below, and
  // kEncodingVersion raised.
  static_assert(sizeof(FoldOptions) == 5, "a fold is missing from the digest");
  // The options as explicit little-endian bytes (the double as its IEEE-754
  // bits), then FNV-1a 32: the same digest on every host and compiler.
  std::string bytes;
  PutLe64(options.paragraph_threshold, bytes);
  PutLe64(std::bit_cast<std::uint64_t>(options.paragraph_band), bytes);
  const FoldOptions& f = options.folds;
  for (const bool b :
       {f.hash_busters, f.numbers, f.urls, f.emails, f.greetings}) {
    bytes.push_back(b ? 1 : 0);
  }
  std::uint32_t h = 2166136261u;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h;
}

std::string Encode(const Fingerprint& fp, const Options& options) {
  std::string out;
  out.reserve(64 + 6 * (fp.blocks.keys.size() +
                        (fp.other_blocks ? fp.other_blocks->keys.size() : 0)));
  out.push_back(static_cast<char>(kMagic));
  out.push_back(static_cast<char>(kEncodingVersion));
  const std::uint32_t digest = OptionsDigest(options);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(digest >> 8 * i));
  out.push_back(static_cast<char>((fp.degraded ? kFlagDegraded : 0) |
                                  (fp.other_blocks ? kFlagOtherBlocks : 0)));
  out.append(reinterpret_cast<const char*>(fp.body_sha1.data()),
             fp.body_sha1.size());
  PutVarint(fp.body_bytes, out);
  BlockWriter blocks(out);
  blocks.Write(fp.blocks);
  if (fp.other_blocks) blocks.Write(*fp.other_blocks);
  PutVarint(fp.ctph.block_size, out);
  PutSignature(fp.ctph.sig, out);
  PutSignature(fp.ctph.sig2, out);
  PutLe64(fp.simhash, out);
  PutLe64(fp.word_bag.hash, out);
  PutVarint(fp.word_bag.words, out);
  // Version 2: the word sketch (which bins are filled, then their values,
  // one byte each from version 3) and the sampled word sequences.
  PutVarint(fp.sketch.words, out);
  std::uint8_t filled[kSketchSlots / 8] = {};
  for (std::size_t b = 0; b < kSketchSlots; ++b) {
    if (fp.sketch.slots[b] != 0) filled[b / 8] |= std::uint8_t(1u << (b % 8));
  }
  out.append(reinterpret_cast<const char*>(filled), sizeof filled);
  for (const std::uint16_t v : fp.sketch.slots) {
    if (v != 0) out.push_back(static_cast<char>(v));
  }
  PutVarint(fp.word_sequence.block_size, out);
  const std::string& seq = fp.word_sequence.sig;
  const std::string& seq2 = fp.word_sequence.sig2;
  out.push_back(static_cast<char>(seq.size()));
  out.append(seq);
  // Version 3: the sequence at twice the step is a subsequence of the one at
  // the step (ComputeWordSequence samples nested sets), so it is stored as
  // which of those symbols it keeps: a bitmap of ceil(n/8) bytes instead of
  // 1 + n/2. A sequence that is not one (none Compute makes) is stored whole.
  std::string bitmap((seq.size() + 7) / 8, '\0');
  std::size_t matched = 0;
  for (std::size_t i = 0; i < seq.size() && matched < seq2.size(); ++i) {
    if (seq[i] == seq2[matched]) {
      bitmap[i / 8] = static_cast<char>(bitmap[i / 8] | (1 << (i % 8)));
      ++matched;
    }
  }
  if (matched == seq2.size()) {
    out.push_back(static_cast<char>(kSubsequence));
    out.append(bitmap);
  } else {
    out.push_back(static_cast<char>(seq2.size()));
    out.append(seq2);
  }
  return out;
}

Result<Fingerprint> Decode(std::string_view bytes, const Options& options) {
  Reader in(bytes);
  Fingerprint fp;
  if (in.Byte("empty") != kMagic) in.Fail("not a stored fingerprint");
  const std::uint8_t version = in.Byte("truncated header");
  if (!in.failed() && (version < 1 || version > kEncodingVersion)) {
    in.Fail("unknown encoding version");
  }
  std::uint32_t digest = 0;
  for (int i = 0; i < 4; ++i) {
    digest |= std::uint32_t{in.Byte("truncated header")} << 8 * i;
  }
  if (in.failed()) return Fail(Error::Corrupt("fingerprint: " + in.error()));
  if (digest != OptionsDigest(options)) {
    return Fail(Error::InvalidArgument(
        "fingerprint: made under other fingerprint options (paragraph "
        "threshold, band or folds)"));
  }
  const std::uint8_t flags = in.Byte("truncated header");
  if ((flags & ~kKnownFlags) != 0) in.Fail("unknown flags");
  fp.degraded = (flags & kFlagDegraded) != 0;
  in.Copy(fp.body_sha1.data(), fp.body_sha1.size(), "truncated body SHA-1");
  fp.body_bytes = static_cast<std::size_t>(
      in.Varint(std::numeric_limits<std::size_t>::max(), "bad body size"));
  std::vector<Block> stored;
  fp.blocks = ReadBlocks(in, version, stored);
  if ((flags & kFlagOtherBlocks) != 0 && !in.failed()) {
    fp.other_blocks = ReadBlocks(in, version, stored);
    if (!in.failed() && fp.other_blocks->kind == fp.blocks.kind) {
      in.Fail("both block lists of one kind");
    }
  }
  const std::uint64_t block_size = in.Varint(
      std::numeric_limits<std::uint32_t>::max(), "bad CTPH block size");
  if (!in.failed() && !ValidCtphBlockSize(block_size)) {
    in.Fail("bad CTPH block size");
  }
  fp.ctph.block_size = static_cast<std::uint32_t>(block_size);
  fp.ctph.sig = ReadSignature(in);
  fp.ctph.sig2 = ReadSignature(in);
  fp.simhash = in.Le64("truncated SimHash");
  fp.word_bag.hash = in.Le64("truncated word bag");
  fp.word_bag.words = static_cast<std::uint32_t>(
      in.Varint(std::numeric_limits<std::uint32_t>::max(), "bad word count"));
  // Version 1 (before the words path) has no sketch and no word sequence:
  // such a fingerprint never matches on that path.
  if (version >= 2 && !in.failed()) {
    fp.sketch.words = static_cast<std::uint32_t>(in.Varint(
        std::numeric_limits<std::uint32_t>::max(), "bad sketch word count"));
    std::uint8_t filled[kSketchSlots / 8] = {};
    in.Copy(filled, sizeof filled, "truncated sketch");
    for (std::size_t b = 0; b < kSketchSlots && !in.failed(); ++b) {
      if ((filled[b / 8] >> (b % 8) & 1) == 0) continue;
      // Version 2 kept 16 bits of each bin's word hash; their low 8 are the
      // bin's value now (SketchValue), the same as a fresh sketch's.
      std::uint8_t v[2] = {};
      in.Copy(v, version >= 3 ? 1 : 2, "truncated sketch");
      const unsigned stored_value = v[0] | unsigned{v[1]} << 8;
      if (!in.failed() && stored_value == 0) in.Fail("bad sketch bin");
      fp.sketch.slots[b] = SketchValue(stored_value);
    }
    const std::uint64_t step = in.Varint(
        std::numeric_limits<std::uint32_t>::max(), "bad word sequence step");
    if (!in.failed() && step != 0 && !std::has_single_bit(step)) {
      in.Fail("bad word sequence step");
    }
    fp.word_sequence.block_size = static_cast<std::uint32_t>(step);
    for (std::string* seq : {&fp.word_sequence.sig, &fp.word_sequence.sig2}) {
      const std::uint8_t n = in.Byte("truncated word sequence");
      if (version >= 3 && n == kSubsequence && seq == &fp.word_sequence.sig2) {
        const std::string& first = fp.word_sequence.sig;
        std::uint8_t bitmap[(kCtphMaxLength + 7) / 8] = {};
        const std::size_t nbytes = (first.size() + 7) / 8;
        in.Copy(bitmap, nbytes, "truncated word sequence");
        if (in.failed()) break;
        // One form: no bit past the first sequence's length.
        if (first.size() % 8 != 0 && nbytes > 0 &&
            (bitmap[nbytes - 1] >> (first.size() % 8)) != 0) {
          in.Fail("bad word sequence bitmap");
          break;
        }
        for (std::size_t i = 0; i < first.size(); ++i) {
          if ((bitmap[i / 8] >> (i % 8) & 1) != 0) seq->push_back(first[i]);
        }
        continue;
      }
      if (n > kCtphMaxLength) in.Fail("word sequence too long");
      if (in.failed()) break;
      seq->resize(n);
      in.Copy(reinterpret_cast<std::uint8_t*>(seq->data()), n,
              "truncated word sequence");
    }
  }
  if (!in.failed() && in.left() != 0) in.Fail("trailing bytes");
  if (in.failed()) return Fail(Error::Corrupt("fingerprint: " + in.error()));
  return fp;
}

}  // namespace mw::fingerprint
