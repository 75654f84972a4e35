// Each default is declared once in effect: a default Settings gives every
// module exactly its own default options, field by field, so a default changed
// on one side only fails here, naming the field.
#include "pipeline/options.h"

#include <gtest/gtest.h>

namespace mw::pipeline {
namespace {

TEST(Options, MimeDefaultsAgree) {
  const mime::Limits a = MimeLimits(config::MimeSettings{});
  const mime::Limits b;
  EXPECT_EQ(a.max_bytes, b.max_bytes);
  EXPECT_EQ(a.max_text_bytes, b.max_text_bytes);
  EXPECT_EQ(a.header_size_limit, b.header_size_limit);
  EXPECT_EQ(a.nesting_limit, b.nesting_limit);
  EXPECT_EQ(a.max_parts, b.max_parts);
  EXPECT_EQ(a.html_nesting_limit, b.html_nesting_limit);
  EXPECT_EQ(a.parser_warnings, b.parser_warnings);
}

TEST(Options, FingerprintDefaultsAgree) {
  const fingerprint::Options a =
      FingerprintOptions(config::FingerprintSettings{});
  const fingerprint::Options b;
  EXPECT_EQ(a.paragraph_threshold, b.paragraph_threshold);
  EXPECT_EQ(a.paragraph_band, b.paragraph_band);
  EXPECT_EQ(a.block_count_ratio, b.block_count_ratio);
  EXPECT_EQ(a.min_paragraph_blocks, b.min_paragraph_blocks);
  EXPECT_EQ(a.weigh_blocks, b.weigh_blocks);
  EXPECT_EQ(a.duplicate_threshold, b.duplicate_threshold);
  EXPECT_EQ(a.ctph_edit_rate, b.ctph_edit_rate);
  EXPECT_EQ(a.ctph_min_bytes, b.ctph_min_bytes);
  EXPECT_EQ(a.confirm_similarity, b.confirm_similarity);
  EXPECT_EQ(a.confirm_hamming, b.confirm_hamming);
  EXPECT_EQ(a.containment_threshold, b.containment_threshold);
  EXPECT_EQ(a.containment_length_ratio, b.containment_length_ratio);
  EXPECT_EQ(a.containment_hamming, b.containment_hamming);
  EXPECT_EQ(a.containment_min_lines, b.containment_min_lines);
  EXPECT_EQ(a.reorder_min_words, b.reorder_min_words);
  EXPECT_EQ(a.reorder_hamming, b.reorder_hamming);
  EXPECT_EQ(a.trailer_min_blocks, b.trailer_min_blocks);
  EXPECT_EQ(a.trailer_max_bytes, b.trailer_max_bytes);
  EXPECT_EQ(a.simhash_max_distance, b.simhash_max_distance);
  EXPECT_EQ(a.words_jaccard, b.words_jaccard);
  EXPECT_EQ(a.words_edit_rate, b.words_edit_rate);
  EXPECT_EQ(a.words_min_words, b.words_min_words);
  EXPECT_EQ(a.folds.hash_busters, b.folds.hash_busters);
  EXPECT_EQ(a.folds.numbers, b.folds.numbers);
  EXPECT_EQ(a.folds.urls, b.folds.urls);
  EXPECT_EQ(a.folds.emails, b.folds.emails);
  EXPECT_EQ(a.folds.greetings, b.folds.greetings);
}

TEST(Options, LangidDefaultsAgree) {
  const langid::Options a = LangidOptions(config::LangidSettings{});
  const langid::Options b;
  EXPECT_EQ(a.k1, b.k1);
  EXPECT_EQ(a.k2, b.k2);
  EXPECT_EQ(a.k_unknown, b.k_unknown);
  EXPECT_EQ(a.min_words, b.min_words);
  EXPECT_EQ(a.min_score, b.min_score);
  EXPECT_EQ(a.bilingual_min_score, b.bilingual_min_score);
  EXPECT_EQ(a.bilingual_min_lines, b.bilingual_min_lines);
  EXPECT_EQ(a.bilingual_min_paragraphs, b.bilingual_min_paragraphs);
  EXPECT_EQ(a.ngram_weight, b.ngram_weight);
  EXPECT_EQ(a.close_ratio, b.close_ratio);
}

TEST(Options, StoreDefaultsAgree) {
  const store::SqliteOptions a = SqliteOptions(config::Settings{});
  const store::SqliteOptions b;
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.busy_timeout, b.busy_timeout);
  EXPECT_EQ(a.max_candidates, b.max_candidates);
  EXPECT_EQ(a.max_per_key, b.max_per_key);
  EXPECT_EQ(a.prune_batch, b.prune_batch);
  // Two differ on purpose: the library neither prunes (retention 0) nor
  // batches commits (commit_delay 0) unless asked, so that a program using it
  // sees each Record in its next Find; the daemon and the CLI ask, through
  // the configuration.
  EXPECT_EQ(b.retention.count(), 0);
  EXPECT_GT(a.retention.count(), 0);
  EXPECT_EQ(b.commit_delay.count(), 0);
  EXPECT_GT(a.commit_delay.count(), 0);
  const store::RedisOptions ra = RedisOptions(config::Settings{});
  const store::RedisOptions rb;
  EXPECT_EQ(ra.address, rb.address);
  EXPECT_EQ(ra.database, rb.database);
  EXPECT_EQ(ra.user, rb.user);
  EXPECT_EQ(ra.password_file, rb.password_file);
  EXPECT_EQ(ra.prefix, rb.prefix);
  EXPECT_EQ(ra.connect_timeout, rb.connect_timeout);
  EXPECT_EQ(ra.command_timeout, rb.command_timeout);
  EXPECT_EQ(ra.max_candidates, rb.max_candidates);
  EXPECT_EQ(ra.max_per_key, rb.max_per_key);
  // The secret beside the SQLite file, for both backends.
  EXPECT_EQ(ra.secret_path, "/var/lib/mailwave/secret");
  const store::WaveRule r = WaveRule(config::WaveSettings{});
  const store::WaveRule d;
  EXPECT_EQ(r.min_size, d.min_size);
  EXPECT_EQ(r.window, d.window);
}

// A changed setting reaches the module (the copy is not of defaults alone).
TEST(Options, ChangedSettingsReachModules) {
  config::FingerprintSettings f;
  f.weigh_blocks = false;
  f.fold_greetings = true;
  f.duplicate_threshold = 0.75;
  const fingerprint::Options o = FingerprintOptions(f);
  EXPECT_FALSE(o.weigh_blocks);
  EXPECT_TRUE(o.folds.greetings);
  EXPECT_EQ(o.duplicate_threshold, 0.75);
}

}  // namespace
}  // namespace mw::pipeline
