// store_eval: recall of near-duplicate detection through the wave store
// (Store::Find + pipeline::Decide) against pairwise fingerprint::Compare, per
// mutation class of fingerprint_eval, and the ham false positives through the
// store. docs/store.md ("Recall through the store") has the protocol and the
// table.
//
// Usage: store_eval [--corpus DIR] [--bases N] [--seed S]
//                   [--max-candidates N] [--max-per-key N] [--show-lost N]
//                   [--redis ADDR | --redis-cluster SEED,SEED...]
//                   [--redis-user U] [--redis-password-file F]
//   DIR defaults to MW_SOURCE_DIR/../shared/data/mail; without it the program
//   says so and exits 0 (nothing to evaluate).
//   --redis / --redis-cluster: the same protocol through the Redis store (a
//   single server, or a Cluster through its seeds) instead of SQLite, each
//   store under its own prefix "store_eval-<pid>-<name>", left on the server
//   (no TTL): run it against a private server, as `bench/store/redis_bench.sh
//   --eval [--cluster]` does. Recall through Redis must equal SQLite's
//   (issue 28: and the Cluster's the single server's).
//
// Protocol:
//   * fingerprint_eval's bases (seed, N, no two natural near-duplicates:
//     variants/truth.h) and classes (mw::variants), fingerprints under the
//     default Options of the decoded text normalised as `mailwave check
//     --text` does.
//   * Every LEFT text of every class goes into one fresh SQLite store, in
//     class order, each joining the cluster Decide picks (as Check does).
//   * Each RIGHT text is looked up (Find + Decide; never recorded). Pairwise:
//     Compare(left_i, right_i).duplicate. Store: Decide's match lies in
//     left_i's cluster.
//   * A pair found pairwise but not through the store is "lost"; its reason:
//     "decided elsewhere" (left_i's cluster was among the candidates), "past
//     the caps" (a member of left_i's cluster shares an index key with it:
//     ranked past max_candidates or max_per_key) or "no shared key" (no
//     index key in common), with the key kinds that a
//     wider key would share (all blocks rather than the bottom-k sample).
//   * Ham: every distinct ham body, in corpus order, is looked up in a second
//     fresh store and then recorded; a ham that matches is "tagged". The truth
//     is the natural near-duplicate rule (variants/truth.h) on every pair of
//     ham, not only on the tagged ones: a ham with a natural near-duplicate
//     earlier in the order is a duplicate, and tagging it is right; a tagged
//     ham with none is a false positive.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench/fingerprint/methods.h"
#include "bench/store/seed_list.h"
#include "fingerprint/core.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/simhash.h"
#include "fingerprint/verify.h"
#include "keys.h"  // store/src: which kinds of index key a pair shares
#include "mime/message.h"
#include "pipeline/verdict.h"
#include "pipeline/window.h"
#include "store/redis.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "variants/truth.h"
#include "variants/variants.h"

namespace fs = std::filesystem;
namespace fp = mw::fingerprint;
namespace mv = mw::variants;
namespace st = mw::store;

namespace {

constexpr st::UnixMillis kStart = 1795320000000;  // 2026-11-22T04:00:00Z

// Where the stores live: SQLite files (the default) or a Redis server or
// Cluster.
struct Backend {
  std::string redis;                 // "unix:/path" or "tcp://host:port"
  std::vector<std::string> cluster;  // seed nodes
  std::string user, password_file;
  bool IsRedis() const { return !redis.empty() || !cluster.empty(); }
};

void Log(std::string_view line) {
  std::fprintf(stderr, "store: %.*s\n", static_cast<int>(line.size()),
               line.data());
}

st::RedisOptions RedisOptionsFor(const Backend& backend, const fs::path& path,
                                 const fp::Options& o,
                                 std::size_t max_candidates,
                                 std::size_t max_per_key) {
  st::RedisOptions ro;
  if (!backend.redis.empty()) ro.address = backend.redis;
  ro.cluster = backend.cluster;
  ro.user = backend.user;
  ro.password_file = backend.password_file;
  // One site per store file name: the variants' and the hams' stores.
  ro.prefix =
      "store_eval-" + std::to_string(::getpid()) + "-" + path.stem().string();
  ro.secret_path = (path.parent_path() / "secret").string();
  ro.fingerprint = o;
  ro.max_candidates = max_candidates;
  ro.max_per_key = max_per_key;
  ro.prune_on_record = false;
  ro.connect_timeout = std::chrono::seconds(2);
  ro.command_timeout = std::chrono::seconds(10);
  ro.log = Log;
  return ro;
}

std::unique_ptr<st::Store> Open(const Backend& backend, const fs::path& path,
                                const fp::Options& o,
                                std::size_t max_candidates,
                                std::size_t max_per_key) {
  st::SqliteOptions so;
  so.path = path.string();
  so.fingerprint = o;
  so.max_candidates = max_candidates;
  so.max_per_key = max_per_key;
  so.log = Log;
  auto s = backend.IsRedis()
               ? st::OpenRedis(RedisOptionsFor(backend, path, o, max_candidates,
                                               max_per_key))
               : st::OpenSqlite(so);
  if (!s) {
    std::fprintf(stderr, "store_eval: %s: %s\n", path.string().c_str(),
                 s.error().ToString().c_str());
    std::exit(1);
  }
  return std::move(*s);
}

st::Message ToMessage(const fp::Fingerprint& print, st::UnixMillis arrival,
                      const std::string& id) {
  st::Message m;
  m.fingerprint = print;
  m.arrival = arrival;
  m.message_id = id;
  m.language = "und";
  return m;
}

template <typename T>
T Must(mw::Result<T> r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "store_eval: %s: %s\n", what,
                 r.error().ToString().c_str());
    std::exit(1);
  }
  return std::move(*r);
}

// The window (pipeline/window.h) on the CPU engine, loaded from `store`,
// with a budget no evaluation query misses.
std::unique_ptr<mw::pipeline::Window> OpenWindow(st::Store& store,
                                                 st::UnixMillis now) {
  mw::config::Settings s;
  s.gpu.backend = "cpu";
  s.gpu.batch_deadline = std::chrono::milliseconds(0);
  s.gpu.budget = std::chrono::milliseconds(60000);
  s.store.retention = std::chrono::hours(24 * 365);
  return Must(mw::pipeline::Window::Open(store, s, now, {}), "window");
}

// What Check decides for `m`: the index's candidates, then, when none is a
// duplicate and `window` is given, the messages the window names.
std::optional<mw::pipeline::Match> Decide(st::Store& store,
                                          mw::pipeline::Window* window,
                                          const st::Message& m,
                                          const fp::Options& o) {
  const st::Lookup lookup = Must(store.Find(m), "find");
  auto match = mw::pipeline::Decide(m.fingerprint, lookup, o);
  if (match || window == nullptr) return match;
  const auto near = window->Near(m.fingerprint, o);
  if (near.missed) {
    std::fprintf(stderr, "store_eval: window: %s\n", near.reason.c_str());
    std::exit(1);
  }
  if (near.ids.empty()) return match;
  return mw::pipeline::Decide(m.fingerprint,
                              Must(store.Fetch(near.ids), "fetch"), o);
}

// Looks `m` up, decides, records it in the chosen cluster (and the window).
st::Recorded FindAndRecord(st::Store& store, mw::pipeline::Window* window,
                           const st::Message& m, const fp::Options& o,
                           std::optional<mw::pipeline::Match>* match) {
  *match = Decide(store, window, m, o);
  st::Join join;
  if (*match) join.cluster = (*match)->cluster;
  st::Recorded r = Must(store.Record(m, join, st::WaveRule{}), "record");
  if (window != nullptr) window->Add(r.id, m.arrival, m.fingerprint);
  return r;
}

// The kinds of index key that `a` and `b` share, and those a wider key would
// share: "exact", "blocks" (the sampled ones), "blocks-all" (any block key,
// unsampled), "simhash", "ctph".
std::string SharedKinds(const fp::Fingerprint& a, const fp::Fingerprint& b,
                        const fp::Options& o) {
  const auto keys_a = st::IndexKeys(a, o);
  const auto keys_b = st::IndexKeys(b, o);
  std::vector<std::uint32_t> shared;
  std::set_intersection(keys_a.begin(), keys_a.end(), keys_b.begin(),
                        keys_b.end(), std::back_inserter(shared));
  const auto all_blocks = [](const fp::Fingerprint& f) {
    std::set<std::uint64_t> s;
    for (const auto& k : f.blocks.keys) s.insert(k.key);
    if (f.other_blocks) {
      for (const auto& k : f.other_blocks->keys) s.insert(k.key);
    }
    return s;
  };
  const auto kind_keys = [&](const fp::Fingerprint& f) {
    std::map<std::uint32_t, std::string> kinds;
    kinds[st::KeyOf(st::KeyKind::kExact,
                    static_cast<std::uint64_t>(st::Sha1Prefix(f.body_sha1)))] =
        "exact";
    for (const std::uint64_t block : all_blocks(f))
      kinds[st::KeyOf(st::KeyKind::kBlock, block)] = "blocks";
    for (const std::uint64_t band :
         fp::SimHashKeys(f.simhash, o.simhash_max_distance))
      kinds[st::KeyOf(st::KeyKind::kSimHash, band)] = "simhash";
    return kinds;
  };
  const auto kinds = kind_keys(a);
  std::set<std::string> out;
  for (const std::uint32_t k : shared) {
    const auto it = kinds.find(k);
    out.insert(it == kinds.end() ? "ctph" : it->second);
  }
  const auto ba = all_blocks(a), bb = all_blocks(b);
  std::size_t common = 0;
  for (const std::uint64_t x : ba) common += bb.count(x);
  std::string s;
  for (const auto& k : out) s += (s.empty() ? "" : ",") + k;
  if (s.empty()) s = "none";
  char tail[96];
  std::snprintf(tail, sizeof tail,
                "; blocks a=%zu b=%zu common=%zu; hamming=%u; ctph %u/%u",
                ba.size(), bb.size(), common, fp::Hamming(a.simhash, b.simhash),
                a.ctph.block_size, b.ctph.block_size);
  return s + tail;
}

struct ClassResult {
  std::string name;
  std::size_t pairs = 0, pairwise = 0, store = 0, store_only = 0;
  std::size_t window = 0;  // found through the store and the window
  std::size_t decided_elsewhere = 0, past_caps = 0, no_key = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string corpus_dir = mv::DefaultCorpusDir(MW_SOURCE_DIR).string();
  std::uint64_t seed = 20261122;
  // The caps the product ships (the store's defaults, which the
  // configuration's defaults test holds equal): a figure at other caps says
  // nothing about what a site runs.
  const mw::store::SqliteOptions shipped;
  std::size_t n_bases = 300, max_candidates = shipped.max_candidates,
              max_per_key = shipped.max_per_key;
  int show_lost = 10;
  Backend backend;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "store_eval: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--corpus") {
      corpus_dir = next();
    } else if (a == "--bases") {
      n_bases = std::stoul(next());
    } else if (a == "--seed") {
      seed = std::stoull(next());
    } else if (a == "--max-candidates") {
      max_candidates = std::stoul(next());
    } else if (a == "--max-per-key") {
      max_per_key = std::stoul(next());
    } else if (a == "--show-lost") {
      show_lost = std::stoi(next());
    } else if (a == "--redis") {
      backend.redis = next();
    } else if (a == "--redis-cluster") {
      backend.cluster = mw::bench::SeedList(next());
    } else if (a == "--redis-user") {
      backend.user = next();
    } else if (a == "--redis-password-file") {
      backend.password_file = next();
    } else {
      std::fprintf(stderr,
                   "usage: store_eval [--corpus DIR] [--bases N] [--seed S] "
                   "[--max-candidates N] [--max-per-key N] [--show-lost N] "
                   "[--redis ADDR | --redis-cluster SEED,SEED...] "
                   "[--redis-user U] [--redis-password-file F]\n");
      return 2;
    }
  }
  if (!backend.redis.empty() && !backend.cluster.empty()) {
    std::fprintf(
        stderr, "store_eval: --redis and --redis-cluster exclude each other\n");
    return 2;
  }
  if (!fs::is_directory(corpus_dir)) {
    std::printf(
        "store_eval: corpus %s not found; nothing to evaluate (skipped)\n",
        corpus_dir.c_str());
    return 0;
  }
  mw::mime::Init();
  const auto t0 = std::chrono::steady_clock::now();
  const fp::Options o;  // the defaults, as the store and `check` use them
  const mv::Corpus corpus = mv::ReadCorpus(corpus_dir);
  const mv::Selection sel =
      mv::SelectBases(corpus, mv::BaseCandidates(corpus, seed), n_bases);
  std::printf(
      "corpus: %zu files, %zu distinct bodies; bases: %zu (%zu "
      "dropped); max_candidates %zu, max_per_key %zu; store: %s\n",
      corpus.files, corpus.docs.size(), sel.bases.size(), sel.dropped,
      max_candidates, max_per_key,
      !backend.cluster.empty() ? "Redis Cluster"
      : backend.IsRedis()      ? "Redis"
                               : "SQLite");

  const fs::path dir =
      fs::temp_directory_path() / ("store_eval-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path db = dir / "variants.db";
  auto store = Open(backend, db, o, max_candidates, max_per_key);
  auto window = OpenWindow(*store, kStart);

  // Every class's pairs, then every left recorded.
  const std::vector<mv::Class> classes = mv::Classes(corpus.raw);
  std::vector<std::vector<mw::bench::Item>> left(classes.size()),
      right(classes.size());
  std::vector<std::vector<st::ClusterId>> left_cluster(classes.size());
  std::vector<std::vector<std::int64_t>> left_id(classes.size());
  st::UnixMillis now = kStart;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    std::mt19937_64 rng = mv::ClassRng(seed, classes[c].name);
    for (const std::size_t idx : sel.bases) {
      mv::Pair p = classes[c].make(corpus.docs[idx], corpus.docs, rng);
      left[c].push_back(mw::bench::MakeItem(std::move(p.left), o));
      right[c].push_back(mw::bench::MakeItem(std::move(p.right), o));
      std::optional<mw::pipeline::Match> match;
      const st::Recorded r = FindAndRecord(
          *store, window.get(),
          ToMessage(left[c].back().print, now += 1000,
                    classes[c].name + "/" + corpus.docs[idx].name),
          o, &match);
      left_cluster[c].push_back(r.cluster.id);
      left_id[c].push_back(r.id);
    }
  }
  // Each cluster's members' index keys, to tell "past the caps" from "no
  // key": the keys themselves, not a lookup without the caps, since both
  // stores delete a key's entries past its newest max_per_key.
  std::map<st::ClusterId, std::vector<std::vector<std::uint32_t>>> member_keys;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    for (std::size_t i = 0; i < left[c].size(); ++i) {
      std::vector<std::uint32_t> keys = st::IndexKeys(left[c][i].print, o);
      std::sort(keys.begin(), keys.end());
      member_keys[left_cluster[c][i]].push_back(std::move(keys));
    }
  }
  const auto shares_a_key = [&](st::ClusterId cluster,
                                const fp::Fingerprint& query) {
    std::vector<std::uint32_t> keys = st::IndexKeys(query, o);
    std::sort(keys.begin(), keys.end());
    for (const auto& member : member_keys[cluster]) {
      std::vector<std::uint32_t> common;
      std::set_intersection(keys.begin(), keys.end(), member.begin(),
                            member.end(), std::back_inserter(common));
      if (!common.empty()) return true;
    }
    return false;
  };

  std::vector<ClassResult> results;
  int shown = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    ClassResult r;
    r.name = classes[c].name;
    for (std::size_t i = 0; i < right[c].size(); ++i) {
      const fp::Fingerprint& lp = left[c][i].print;
      const fp::Fingerprint& rp = right[c][i].print;
      const bool pairwise = fp::Compare(lp, rp, o).duplicate;
      const st::Message q = ToMessage(rp, now + 1000, "query");
      const st::Lookup lookup = Must(store->Find(q), "find");
      const auto match = mw::pipeline::Decide(rp, lookup, o);
      const bool found = match && match->cluster == left_cluster[c][i];
      const auto with_window = Decide(*store, window.get(), q, o);
      r.window += with_window && with_window->cluster == left_cluster[c][i];
      ++r.pairs;
      r.pairwise += pairwise;
      r.store += found;
      r.store_only += found && !pairwise;
      if (!pairwise || found) continue;
      const auto in_cluster = [&](const st::Lookup& l) {
        return std::any_of(l.candidates.begin(), l.candidates.end(),
                           [&](const st::Candidate& x) {
                             return x.cluster == left_cluster[c][i];
                           });
      };
      std::string reason;
      if (in_cluster(lookup)) {
        ++r.decided_elsewhere;
        reason = "decided elsewhere";
      } else if (shares_a_key(left_cluster[c][i], rp)) {
        ++r.past_caps;
        reason = "past the caps";
      } else {
        ++r.no_key;
        reason = "no shared key";
      }
      if (shown < show_lost) {
        ++shown;
        const fp::Comparison cmp = fp::Compare(lp, rp, o);
        std::printf(
            "LOST %-24s %s: %s (pairwise method=%s; %zu candidates, "
            "match=%s; keys shared: %s)\n",
            r.name.c_str(), corpus.docs[sel.bases[i]].name.c_str(),
            reason.c_str(), std::string(fp::MethodName(cmp.method)).c_str(),
            lookup.candidates.size(),
            match ? st::ClusterIdString(match->cluster).c_str() : "none",
            SharedKinds(lp, rp, o).c_str());
      }
    }
    results.push_back(r);
  }

  std::printf("\n%-24s | %5s | %8s | %6s | %6s | %7s | %s\n", "class", "pairs",
              "pairwise", "store", "ratio", "+window",
              "lost: elsewhere/caps/no key");
  ClassResult total;
  double min_ratio = 1;
  for (const ClassResult& r : results) {
    const double ratio = r.pairwise
                             ? static_cast<double>(r.store - r.store_only) /
                                   static_cast<double>(r.pairwise)
                             : 1;
    min_ratio = std::min(min_ratio, ratio);
    std::printf(
        "%-24s | %5zu | %8.3f | %6.3f | %6.3f | %7.3f | %zu/%zu/%zu%s\n",
        r.name.c_str(), r.pairs,
        static_cast<double>(r.pairwise) / static_cast<double>(r.pairs),
        static_cast<double>(r.store) / static_cast<double>(r.pairs), ratio,
        static_cast<double>(r.window) / static_cast<double>(r.pairs),
        r.decided_elsewhere, r.past_caps, r.no_key,
        r.store_only ? " (+store only)" : "");
    total.pairs += r.pairs;
    total.pairwise += r.pairwise;
    total.store += r.store;
    total.store_only += r.store_only;
    total.window += r.window;
  }
  std::printf(
      "%-24s | %5zu | %8.3f | %6.3f | %6.3f | %7.3f | min class ratio %.3f\n",
      "OVERALL", total.pairs,
      static_cast<double>(total.pairwise) / static_cast<double>(total.pairs),
      static_cast<double>(total.store) / static_cast<double>(total.pairs),
      static_cast<double>(total.store - total.store_only) /
          static_cast<double>(total.pairwise),
      static_cast<double>(total.window) / static_cast<double>(total.pairs),
      min_ratio);
  window.reset();
  store.reset();

  // Ham through a fresh store.
  auto ham_store =
      Open(backend, dir / "ham.db", o, max_candidates, max_per_key);
  auto ham_window = OpenWindow(*ham_store, kStart);
  std::map<std::int64_t, std::size_t> doc_of;  // store id -> corpus index
  std::vector<std::size_t> ham_docs;
  for (std::size_t i = 0; i < corpus.docs.size(); ++i) {
    if (corpus.docs[i].ham && !corpus.docs[i].body.empty())
      ham_docs.push_back(i);
  }
  // Hams that have a natural near-duplicate earlier in the order: the later
  // end of every natural pair.
  const mv::NaturalPairs natural_pairs(corpus, ham_docs);
  std::set<std::size_t> has_earlier;
  for (const auto& [a, b] : natural_pairs.pairs()) has_earlier.insert(b);
  // Tagged hams with a natural near-duplicate earlier, and those of them
  // whose match is not one of their natural near-duplicates (a right tag in
  // the wrong cluster).
  std::size_t hams = 0, tagged = 0, natural_tagged = 0, natural_elsewhere = 0;
  std::vector<std::string> fps;
  for (const std::size_t i : ham_docs) {
    const mv::Doc& d = corpus.docs[i];
    ++hams;
    const mw::bench::Item it = mw::bench::MakeItem(d.decoded, o);
    std::optional<mw::pipeline::Match> match;
    const st::Recorded r =
        FindAndRecord(*ham_store, ham_window.get(),
                      ToMessage(it.print, now += 1000, d.name), o, &match);
    doc_of[r.id] = i;
    if (!match) continue;
    ++tagged;
    const mv::Doc& other = corpus.docs[doc_of.at(match->message)];
    if (has_earlier.count(i) != 0) {
      ++natural_tagged;
      natural_elsewhere +=
          !natural_pairs.Contains(i, doc_of.at(match->message));
      continue;
    }
    fps.push_back(d.name + " ~ " + other.name + " (" +
                  std::string(fp::MethodName(match->comparison.method)) + ")");
  }
  std::printf(
      "\nham through the store: %zu distinct ham, %zu with a natural "
      "near-duplicate earlier (text edit rate < %.1f); %zu tagged: %zu of "
      "those (%zu matched to another message than their near-duplicates), "
      "and %zu false positives among the other %zu\n",
      hams, has_earlier.size(), mv::kNaturalEditRate, tagged, natural_tagged,
      natural_elsewhere, fps.size(), hams - has_earlier.size());
  for (const std::string& f : fps) std::printf("  FP %s\n", f.c_str());
  ham_window.reset();
  ham_store.reset();
  fs::remove_all(dir);
  std::printf("(%.1f s)\n", std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - t0)
                                .count());
  return 0;
}
