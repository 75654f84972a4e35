// Synthetic store traffic for the store benchmarks: the dev corpus's
// fingerprints, and variants of them as the copies of a spam wave differ
// (some block keys replaced, a SimHash bit and a CTPH symbol changed, a body
// SHA-1 of their own), and fingerprints of text unrelated to anything stored.
//
// Thread-safety: pure functions; each caller passes its own generator.
#ifndef MW_BENCH_STORE_SYNTH_H_
#define MW_BENCH_STORE_SYNTH_H_

#include <cstdint>
#include <random>
#include <vector>

#include "fingerprint/fingerprint.h"
#include "store/store.h"

namespace mw::bench {

// The fingerprints of the dev corpus's mails that have a body, in corpus
// order (bench/corpus_files.h); empty when the corpus is absent.
std::vector<fingerprint::Fingerprint> CorpusFingerprints(
    const fingerprint::Options& options);

// A copy of `base` as another message of its wave: about a tenth of its block
// keys replaced, one SimHash bit and one symbol of each CTPH signature
// changed, a new body SHA-1 and word-bag hash.
fingerprint::Fingerprint Variant(const fingerprint::Fingerprint& base,
                                 std::mt19937_64& rng);

// A fingerprint of the size and shape of `shape` that shares no index key
// with anything stored (random block keys, SimHash and CTPH symbols).
fingerprint::Fingerprint Unrelated(const fingerprint::Fingerprint& shape,
                                   std::mt19937_64& rng);

// The message the benchmarks store for `f`: serial number `serial` names its
// queue id and Message-ID, and one of 997 senders (identities) and 251
// networks; with `own_sender`, a sender and a network of its own, as each
// copy of a wave a botnet sends.
store::Message BenchMessage(const fingerprint::Fingerprint& f,
                            store::UnixMillis arrival, std::uint64_t serial,
                            bool own_sender = false);

}  // namespace mw::bench

#endif  // MW_BENCH_STORE_SYNTH_H_
