#include "bench/store/synth.h"

#include <algorithm>
#include <string>

#include "bench/corpus_files.h"
#include "pipeline/analysis.h"

namespace mw::bench {

namespace fp = mw::fingerprint;

namespace {

constexpr char kB64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void SetKey(fp::BlockList& list, std::size_t i, std::uint64_t key) {
  list.keys[i].key = key;
  const std::uint32_t pos = list.keys[i].pos;
  if (pos < list.hashes.size()) {
    for (int b = 0; b < 8; ++b)
      list.hashes[pos][b] = static_cast<std::uint8_t>(key >> (56 - 8 * b));
  }
}

// Replaces about `share` of the list's blocks by new ones.
void Mutate(fp::BlockList& list, double share, std::mt19937_64& rng) {
  if (list.keys.empty()) return;
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t i = 0; i < list.keys.size(); ++i) {
    if (u(rng) < share) SetKey(list, i, rng());
  }
  std::sort(list.keys.begin(), list.keys.end());
}

}  // namespace

std::vector<fp::Fingerprint> CorpusFingerprints(const fp::Options& options) {
  std::vector<fp::Fingerprint> out;
  for (const std::string& bytes : CorpusFiles()) {
    auto text = mw::pipeline::ToText(bytes, false, mw::mime::Limits{});
    if (!text || text->body.empty()) continue;
    out.push_back(fp::Compute(text->body, options));
  }
  return out;
}

fp::Fingerprint Variant(const fp::Fingerprint& base, std::mt19937_64& rng) {
  fp::Fingerprint v = base;
  for (auto& b : v.body_sha1) b = static_cast<std::uint8_t>(rng());
  Mutate(v.blocks, 0.1, rng);
  if (v.other_blocks) Mutate(*v.other_blocks, 0.1, rng);
  v.simhash ^= std::uint64_t{1} << (rng() % 64);
  if (!v.ctph.sig.empty())
    v.ctph.sig[rng() % v.ctph.sig.size()] = kB64[rng() % 64];
  if (!v.ctph.sig2.empty())
    v.ctph.sig2[rng() % v.ctph.sig2.size()] = kB64[rng() % 64];
  v.word_bag.hash = rng();
  return v;
}

fp::Fingerprint Unrelated(const fp::Fingerprint& shape, std::mt19937_64& rng) {
  fp::Fingerprint v = Variant(shape, rng);
  Mutate(v.blocks, 1.0, rng);
  if (v.other_blocks) Mutate(*v.other_blocks, 1.0, rng);
  v.simhash = rng();
  for (char& c : v.ctph.sig) c = kB64[rng() % 64];
  for (char& c : v.ctph.sig2) c = kB64[rng() % 64];
  return v;
}

store::Message BenchMessage(const fp::Fingerprint& f, store::UnixMillis arrival,
                            std::uint64_t serial, bool own_sender) {
  if (own_sender) {
    store::Message m = BenchMessage(f, arrival, serial);
    m.sender = "bot" + std::to_string(serial) + "@bench";
    m.identity = "u:bot" + std::to_string(serial) + ".example";
    m.authenticated = false;
    m.network = std::to_string(10 + (serial >> 16) % 200) + "." +
                std::to_string((serial >> 8) % 256) + "." +
                std::to_string(serial % 256) + ".0/24";
    return m;
  }
  return {.fingerprint = f,
          .arrival = arrival,
          .queue_id = "Q" + std::to_string(serial),
          .message_id = std::to_string(serial) + "@bench",
          .sender = "s" + std::to_string(serial % 997) + "@bench",
          // What a site's mix looks like to the store: a few hundred
          // identities (a third authenticated), a few hundred networks.
          .identity = (serial % 3 == 0 ? "a:d" : "u:d") +
                      std::to_string(serial % 997) + ".example",
          .authenticated = serial % 3 == 0,
          .network = "198.51." + std::to_string(serial % 251) + ".0/24",
          .recipients = static_cast<std::uint32_t>(1 + serial % 3),
          .language = "en",
          .size = f.body_bytes + 800};
}

}  // namespace mw::bench
