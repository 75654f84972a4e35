#include "pipeline/verdict.h"

#include <time.h>

#include <cmath>
#include <cstdio>
#include <unordered_set>

namespace mw::pipeline {

std::optional<Match> Decide(const fingerprint::Fingerprint& fp,
                            const store::Lookup& lookup,
                            const fingerprint::Options& options) {
  if (fp.body_bytes == 0) return std::nullopt;
  // Clusters in the order their best member ranks among the candidates.
  std::vector<store::ClusterId> order;
  std::unordered_set<store::ClusterId> seen;
  for (const store::Candidate& c : lookup.candidates) {
    if (seen.insert(c.cluster).second) order.push_back(c.cluster);
  }
  std::unordered_set<std::int64_t> compared;
  for (store::ClusterId id : order) {
    for (const auto& [cluster, canonical] : lookup.clusters) {
      if (cluster.id != id || !canonical) continue;
      compared.insert(cluster.canonical);
      fingerprint::Comparison c = fingerprint::Compare(fp, *canonical, options);
      if (c.duplicate) {
        return Match{.cluster = id,
                     .message = cluster.canonical,
                     .canonical = true,
                     .comparison = c};
      }
    }
  }
  for (const store::Candidate& cand : lookup.candidates) {
    if (compared.contains(cand.id)) continue;
    fingerprint::Comparison c =
        fingerprint::Compare(fp, cand.fingerprint, options);
    if (c.duplicate) {
      return Match{.cluster = cand.cluster,
                   .message = cand.id,
                   .canonical = false,
                   .comparison = c};
    }
  }
  return std::nullopt;
}

double Similarity(const fingerprint::Comparison& c) {
  using fingerprint::Method;
  const double by_hamming = 1.0 - static_cast<double>(c.hamming) / 64.0;
  switch (c.method) {
    case Method::kExact:
      return 1.0;
    case Method::kBlocks:
      return c.similarity.value_or(0);
    case Method::kContainment:
      return c.containment.value_or(0);
    case Method::kTrailer:
      return c.similarity ? *c.similarity : c.containment.value_or(0);
    case Method::kCtph:
      return c.edit_rate ? 1.0 - *c.edit_rate : 0;
    case Method::kReordered:
    case Method::kSimHash:
      return by_hamming;
    case Method::kWords:
      return c.sketch;
    case Method::kNone:
      break;
  }
  return 0;
}

std::string_view WaveKindName(WaveKind kind) {
  return kind == WaveKind::kBulk ? "bulk" : "spread";
}

std::string_view WaveReasonName(WaveReason reason) {
  switch (reason) {
    case WaveReason::kAllowed:
      return "allow";
    case WaveReason::kHam:
      return "ham";
    case WaveReason::kSpam:
      return "spam";
    case WaveReason::kAuthenticated:
      return "auth";
    case WaveReason::kUnauthenticated:
      return "unauth";
    case WaveReason::kSenders:
      return "senders";
    case WaveReason::kNetworks:
      return "networks";
  }
  return "unauth";
}

std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kNone:
      return "none";
    case Action::kQuarantine:
      return "quarantine";
    case Action::kReject:
      return "reject";
    case Action::kTempfail:
      return "tempfail";
  }
  return "none";
}

std::pair<WaveKind, WaveReason> DecideKind(const KindFacts& f) {
  // The site's word first: its allow list, then what it learned about this
  // cluster. Only then the counts, which a sender cannot forge: an identity
  // counts as authenticated only through the site's own results.
  if (f.allowed) return {WaveKind::kBulk, WaveReason::kAllowed};
  if (f.mark == store::Mark::kHam) return {WaveKind::kBulk, WaveReason::kHam};
  if (f.mark == store::Mark::kSpam)
    return {WaveKind::kSpread, WaveReason::kSpam};
  if (!f.authenticated)
    return {WaveKind::kSpread, WaveReason::kUnauthenticated};
  // Identities carry whether they were authenticated, so one identity in a
  // cluster that holds this authenticated message is this one, and no
  // forged copy of it has joined.
  if (f.senders > 1) return {WaveKind::kSpread, WaveReason::kSenders};
  if (f.networks > f.bulk_networks)
    return {WaveKind::kSpread, WaveReason::kNetworks};
  return {WaveKind::kBulk, WaveReason::kAuthenticated};
}

std::string FormatTime(store::UnixMillis t) {
  const time_t secs = static_cast<time_t>(t / 1000 - (t % 1000 < 0 ? 1 : 0));
  tm utc{};
  gmtime_r(&secs, &utc);
  // Room for any int fields, so GCC's -Wformat-truncation has nothing to say.
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ",
                utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour,
                utc.tm_min, utc.tm_sec);
  return buf;
}

std::string WaveHeaderValue(const WaveVerdict& v) {
  char sim[16];
  // Two decimals, rounded down so that 0.999 never shows as a perfect 1.00.
  std::snprintf(sim, sizeof sim, "%.2f",
                std::floor(std::clamp(v.similarity, 0.0, 1.0) * 100) / 100);
  std::string out = "dup=";
  out += v.method == fingerprint::Method::kExact ? "exact" : "near";
  out += "; method=";
  out += fingerprint::MethodName(v.method);
  out += "; sim=";
  out += sim;
  out += "; cluster=" + store::ClusterIdString(v.cluster);
  out += "; size=" + std::to_string(v.size);
  out += "; senders=" + std::to_string(v.senders);
  out += "; first=" + FormatTime(v.first_seen);
  out += "; rcpts=" + std::to_string(v.recipients);
  out += "; networks=" + std::to_string(v.networks);
  out += "; kind=";
  out += WaveKindName(v.kind);
  out += "; why=";
  out += WaveReasonName(v.reason);
  out += v.wave ? "; wave=yes" : "; wave=no";
  return out;
}

std::string LanguageHeaderValue(const langid::Language& l) {
  std::string out = l.code.empty() ? "und" : l.code;
  out += "; score=" + std::to_string(static_cast<long long>(
                          std::lround(std::max(0.0, l.score))));
  out += l.bilingual ? "; bilingual=yes" : "; bilingual=no";
  return out;
}

}  // namespace mw::pipeline
