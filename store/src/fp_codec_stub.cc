// A stand-in for fingerprint/src/encoding.cc (fingerprint::Encode, Decode,
// OptionsDigest), compiled only while that file is absent
// (store/CMakeLists.txt) so that the store builds and its tests run before the
// branches merge.
//
// It is a plain, correct serialisation of every Fingerprint field, not the
// compact form encoding.h describes: block hashes are kept whole (20 bytes),
// so a stored fingerprint is larger here than with the real encoding. Nothing
// may depend on its bytes; the real one replaces it at merge.
#include <cstring>
#include <string>
#include <string_view>

#include "fingerprint/encoding.h"

namespace mw::fingerprint {
namespace {

constexpr std::uint8_t kMagic =
    0xF5;  // differs from the real form's on purpose

void PutU64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

void PutVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void PutBytes(std::string& out, std::string_view bytes) {
  PutVarint(out, bytes.size());
  out.append(bytes);
}

void PutList(std::string& out, const BlockList& list) {
  out.push_back(static_cast<char>(list.kind));
  PutVarint(out, list.hashes.size());
  for (const Sha1& h : list.hashes) {
    out.append(reinterpret_cast<const char*>(h.data()), h.size());
  }
  PutVarint(out, list.keys.size());
  for (const BlockKey& k : list.keys) {
    PutU64(out, k.key);
    PutVarint(out, k.pos);
    PutVarint(out, k.len);
  }
}

// Reads from `in_`, failing (once, sticky) on anything past its end.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool done() const { return in_.empty(); }
  std::size_t left() const { return in_.size(); }

  std::uint8_t Byte() {
    if (!Need(1)) return 0;
    const auto b = static_cast<std::uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return b;
  }
  std::uint64_t U64() {
    if (!Need(8)) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
      v |= std::uint64_t{static_cast<std::uint8_t>(in_[i])} << (8 * i);
    }
    in_.remove_prefix(8);
    return v;
  }
  std::uint64_t Varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const std::uint8_t b = Byte();
      if (!ok_) return 0;
      v |= std::uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return v;
    }
    ok_ = false;
    return 0;
  }
  std::string_view Bytes(std::size_t n) {
    if (!Need(n)) return {};
    const std::string_view b = in_.substr(0, n);
    in_.remove_prefix(n);
    return b;
  }

 private:
  bool Need(std::size_t n) {
    if (ok_ && in_.size() >= n) return true;
    ok_ = false;
    return false;
  }
  std::string_view in_;
  bool ok_ = true;
};

bool GetList(Reader& in, BlockList* list) {
  const std::uint8_t kind = in.Byte();
  if (kind > 1) return false;
  list->kind = static_cast<BlockKind>(kind);
  const std::uint64_t hashes = in.Varint();
  // Each element takes at least one byte: a count past what is left is a lie.
  if (!in.ok() || hashes > in.left()) return false;
  list->hashes.resize(hashes);
  for (Sha1& h : list->hashes) {
    const std::string_view b = in.Bytes(h.size());
    if (!in.ok()) return false;
    std::memcpy(h.data(), b.data(), h.size());
  }
  const std::uint64_t keys = in.Varint();
  if (!in.ok() || keys > in.left()) return false;
  list->keys.resize(keys);
  for (BlockKey& k : list->keys) {
    k.key = in.U64();
    k.pos = static_cast<std::uint32_t>(in.Varint());
    k.len = static_cast<std::uint32_t>(in.Varint());
  }
  return in.ok();
}

}  // namespace

std::uint32_t OptionsDigest(const Options& options) {
  // FNV-1a over the options that shape a fingerprint (encoding.h).
  std::uint32_t h = 2166136261u;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<std::uint8_t>(v >> (8 * i));
      h *= 16777619u;
    }
  };
  mix(options.paragraph_threshold);
  std::uint64_t band = 0;
  static_assert(sizeof(band) == sizeof(options.paragraph_band));
  std::memcpy(&band, &options.paragraph_band, sizeof(band));
  mix(band);
  const FoldOptions& f = options.folds;
  mix((f.hash_busters ? 1u : 0u) | (f.numbers ? 2u : 0u) | (f.urls ? 4u : 0u) |
      (f.emails ? 8u : 0u) | (f.greetings ? 16u : 0u));
  return h;
}

std::string Encode(const Fingerprint& fp, const Options& options) {
  std::string out;
  out.push_back(static_cast<char>(kMagic));
  out.push_back(static_cast<char>(kEncodingVersion));
  PutU64(out, OptionsDigest(options));
  out.append(reinterpret_cast<const char*>(fp.body_sha1.data()),
             fp.body_sha1.size());
  PutVarint(out, fp.body_bytes);
  PutList(out, fp.blocks);
  out.push_back(fp.other_blocks ? 1 : 0);
  if (fp.other_blocks) PutList(out, *fp.other_blocks);
  PutVarint(out, fp.ctph.block_size);
  PutBytes(out, fp.ctph.sig);
  PutBytes(out, fp.ctph.sig2);
  PutU64(out, fp.simhash);
  PutU64(out, fp.word_bag.hash);
  PutVarint(out, fp.word_bag.words);
  return out;
}

Result<Fingerprint> Decode(std::string_view bytes, const Options& options) {
  Reader in(bytes);
  if (in.Byte() != kMagic || in.Byte() != kEncodingVersion) {
    return Fail(Error::Corrupt("fingerprint: not a stored fingerprint"));
  }
  if (in.U64() != OptionsDigest(options)) {
    return Fail(Error::InvalidArgument(
        "fingerprint: made under other fingerprint options"));
  }
  Fingerprint fp;
  const std::string_view sha1 = in.Bytes(fp.body_sha1.size());
  if (in.ok()) std::memcpy(fp.body_sha1.data(), sha1.data(), sha1.size());
  fp.body_bytes = in.Varint();
  bool ok = in.ok() && GetList(in, &fp.blocks);
  if (ok && in.Byte() == 1) {
    fp.other_blocks.emplace();
    ok = GetList(in, &*fp.other_blocks);
  }
  if (ok) {
    fp.ctph.block_size = static_cast<std::uint32_t>(in.Varint());
    const std::uint64_t n = in.Varint();
    if (n <= kCtphMaxLength) fp.ctph.sig = std::string(in.Bytes(n));
    const std::uint64_t n2 = in.Varint();
    if (n2 <= kCtphMaxLength) fp.ctph.sig2 = std::string(in.Bytes(n2));
    ok = n <= kCtphMaxLength && n2 <= kCtphMaxLength;
    fp.simhash = in.U64();
    fp.word_bag.hash = in.U64();
    fp.word_bag.words = static_cast<std::uint32_t>(in.Varint());
  }
  if (!ok || !in.ok() || !in.done()) {
    return Fail(Error::Corrupt("fingerprint: malformed stored fingerprint"));
  }
  return fp;
}

}  // namespace mw::fingerprint
