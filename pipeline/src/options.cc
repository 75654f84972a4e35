#include "pipeline/options.h"

namespace mw::pipeline {

mime::Limits MimeLimits(const config::MimeSettings& s) {
  mime::Limits l;
  l.max_bytes = s.max_bytes;
  l.max_text_bytes = s.max_text_bytes;
  l.header_size_limit = s.header_size_limit;
  l.nesting_limit = s.nesting_limit;
  l.max_parts = s.max_parts;
  l.html_nesting_limit = s.html_nesting_limit;
  l.parser_warnings = s.parser_warnings;
  return l;
}

fingerprint::Options FingerprintOptions(const config::FingerprintSettings& s) {
  fingerprint::Options o;
  o.paragraph_threshold = static_cast<std::size_t>(s.paragraph_threshold);
  o.paragraph_band = s.paragraph_band;
  o.block_count_ratio = s.block_count_ratio;
  o.min_paragraph_blocks = s.min_paragraph_blocks;
  o.weigh_blocks = s.weigh_blocks;
  o.duplicate_threshold = s.duplicate_threshold;
  o.ctph_edit_rate = s.ctph_edit_rate;
  o.ctph_min_bytes = static_cast<std::size_t>(s.ctph_min_bytes);
  o.confirm_similarity = s.confirm_similarity;
  o.confirm_hamming = s.confirm_hamming;
  o.containment_threshold = s.containment_threshold;
  o.containment_length_ratio = s.containment_length_ratio;
  o.containment_hamming = s.containment_hamming;
  o.containment_min_lines = s.containment_min_lines;
  o.reorder_min_words = s.reorder_min_words;
  o.reorder_hamming = s.reorder_hamming;
  o.trailer_min_blocks = s.trailer_min_blocks;
  o.trailer_max_bytes = s.trailer_max_bytes;
  o.simhash_max_distance = s.simhash_max_distance;
  o.words_jaccard = s.words_jaccard;
  o.words_edit_rate = s.words_edit_rate;
  o.words_min_words = s.words_min_words;
  o.folds.hash_busters = s.fold_hash_busters;
  o.folds.numbers = s.fold_numbers;
  o.folds.urls = s.fold_urls;
  o.folds.emails = s.fold_emails;
  o.folds.greetings = s.fold_greetings;
  return o;
}

langid::Options LangidOptions(const config::LangidSettings& s) {
  langid::Options o;
  o.k1 = s.k1;
  o.k2 = s.k2;
  o.k_unknown = s.k_unknown;
  o.min_words = s.min_words;
  o.min_score = s.min_score;
  o.bilingual_min_score = s.bilingual_min_score;
  o.bilingual_min_lines = s.bilingual_min_lines;
  o.bilingual_min_paragraphs = s.bilingual_min_paragraphs;
  o.ngram_weight = s.ngram_weight;
  o.close_ratio = s.close_ratio;
  return o;
}

store::SqliteOptions SqliteOptions(const config::Settings& s) {
  store::SqliteOptions o;
  o.path = s.store.path;
  o.fingerprint = FingerprintOptions(s.fingerprint);
  o.busy_timeout = s.store.busy_timeout;
  o.max_candidates = s.store.max_candidates;
  o.max_per_key = s.store.max_per_key;
  o.retention = s.store.retention;
  o.prune_batch = s.store.prune_batch;
  o.commit_delay = s.store.commit_delay;
  return o;
}

store::RedisOptions RedisOptions(const config::Settings& s) {
  store::RedisOptions o;
  o.address = s.store.redis;
  o.cluster = s.store.redis_cluster;
  o.database = static_cast<int>(s.store.redis_db);
  o.user = s.store.redis_user;
  o.password_file = s.store.redis_password_file;
  o.tls_ca_file = s.store.redis_tls_ca;
  o.tls_cert_file = s.store.redis_tls_cert;
  o.tls_key_file = s.store.redis_tls_key;
  o.tls_server_name = s.store.redis_tls_server_name;
  o.prefix = s.store.redis_prefix;
  o.connect_timeout = s.store.redis_timeout;
  o.command_timeout = s.store.redis_timeout;
  o.fingerprint = FingerprintOptions(s.fingerprint);
  o.max_candidates = s.store.max_candidates;
  o.max_per_key = s.store.max_per_key;
  o.retention = s.store.retention;
  const std::string& path = s.store.path;
  const std::size_t slash = path.rfind('/');
  o.secret_path = (slash == std::string::npos ? std::string(".")
                   : slash == 0               ? std::string("")
                                              : path.substr(0, slash)) +
                  "/secret";
  return o;
}

store::WaveRule WaveRule(const config::WaveSettings& s) {
  return {.min_size = s.min_size, .window = s.window};
}

}  // namespace mw::pipeline
