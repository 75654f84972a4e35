// [fingerprint]: SHA-1 block lists, CTPH and SimHash (issue 3; defaults in
// FingerprintSettings, config.h).
//
// Bounds are what the algorithms can honour, not what is sensible: the issue
// calls a duplicate threshold of 0.5-0.9 sensible, and below 0.5
// half-different messages would count as duplicates, so 0.5 is the floor; 1.0
// (identical block lists only) is allowed. A CTPH signature must fit one
// 64-bit word per edit-distance DP column, hence at most 64 characters.
#include "params.h"
#include "units.h"

namespace mw::config {

Table FingerprintTable() {
  using S = FingerprintSettings;
  static const Param kParams[] = {
      {.key = "paragraph_threshold",
       .kind = Kind::kSize,
       .min = 0,
       .max = kGiB,
       .meaning = "bodies larger than this are split into paragraphs, smaller "
                  "into sentences",
       .field = Member<&Settings::fingerprint, &S::paragraph_threshold>},
      {.key = "paragraph_band",
       .kind = Kind::kReal,
       .min = 0,
       .max = 0.9,
       .meaning = "bodies up to paragraph_threshold times (1 + this) keep "
                  "both block lists, so variants across the threshold still "
                  "match",
       .field = Member<&Settings::fingerprint, &S::paragraph_band>},
      {.key = "block_count_ratio",
       .kind = Kind::kReal,
       .min = 1,
       .max = 100,
       .meaning = "block lists are compared only when their block counts are "
                  "within this ratio",
       .field = Member<&Settings::fingerprint, &S::block_count_ratio>},
      {.key = "min_paragraph_blocks",
       .kind = Kind::kCount,
       .min = 1,
       .max = 1000,
       .meaning = "line lists are compared only when both have at least this "
                  "many lines (a shared footer must not decide)",
       .field = Member<&Settings::fingerprint, &S::min_paragraph_blocks>},
      {.key = "weigh_blocks",
       .kind = Kind::kBool,
       .meaning = "similarity is the smaller of counted and length-weighted "
                  "block similarity (keeps templates of short lines apart); "
                  "false: counted only",
       .field = Member<&Settings::fingerprint, &S::weigh_blocks>},
      {.key = "duplicate_threshold",
       .kind = Kind::kReal,
       .min = 0.5,
       .max = 1,
       .meaning = "block-list similarity at or above which a message is a "
                  "duplicate",
       .field = Member<&Settings::fingerprint, &S::duplicate_threshold>},
      {.key = "ctph_edit_rate",
       .kind = Kind::kReal,
       .min = 0,
       .max = 0.3,
       .meaning = "CTPH signature edit rate P below which messages are "
                  "near-duplicates",
       .field = Member<&Settings::fingerprint, &S::ctph_edit_rate>},
      {.key = "ctph_min_bytes",
       .kind = Kind::kSize,
       .min = 0,
       .max = kGiB,
       .meaning = "CTPH decides only when both bodies have at least this many "
                  "bytes",
       .field = Member<&Settings::fingerprint, &S::ctph_min_bytes>},
      {.key = "confirm_similarity",
       .kind = Kind::kReal,
       .min = 0,
       .max = 1,
       .meaning = "a CTPH candidate (edit rate below 3 times ctph_edit_rate) "
                  "is a duplicate when the block similarity is at least this "
                  "and the SimHashes are within confirm_hamming; 1 disables",
       .field = Member<&Settings::fingerprint, &S::confirm_similarity>},
      {.key = "confirm_hamming",
       .kind = Kind::kCount,
       .min = 0,
       .max = 64,
       .meaning = "SimHash distance that confirms a CTPH candidate (see "
                  "confirm_similarity)",
       .field = Member<&Settings::fingerprint, &S::confirm_hamming>},
      {.key = "containment_threshold",
       .kind = Kind::kReal,
       .min = 0,
       .max = 2,
       .meaning = "share of one message's blocks (counted and by bytes, any "
                  "order) found in the other at which they are duplicates, "
                  "when their lengths are within containment_length_ratio and "
                  "the SimHashes within containment_hamming; above 1 disables",
       .field = Member<&Settings::fingerprint, &S::containment_threshold>},
      {.key = "containment_length_ratio",
       .kind = Kind::kReal,
       .min = 1,
       .max = 100,
       .meaning = "the containment path compares block lists whose total "
                  "lengths are at most this factor apart",
       .field = Member<&Settings::fingerprint, &S::containment_length_ratio>},
      {.key = "containment_hamming",
       .kind = Kind::kCount,
       .min = 0,
       .max = 64,
       .meaning = "SimHash distance that confirms a containment (see "
                  "containment_threshold)",
       .field = Member<&Settings::fingerprint, &S::containment_hamming>},
      {.key = "containment_min_lines",
       .kind = Kind::kCount,
       .min = 1,
       .max = 1000000,
       .meaning = "line lists take part in the containment path when both "
                  "have at least this many lines",
       .field = Member<&Settings::fingerprint, &S::containment_min_lines>},
      {.key = "reorder_min_words",
       .kind = Kind::kCount,
       .min = 0,
       .max = 1000000,
       .meaning = "two messages with the same words the same number of times, "
                  "in any order, at least this many, are duplicates when the "
                  "SimHashes are within reorder_hamming; 0 disables",
       .field = Member<&Settings::fingerprint, &S::reorder_min_words>},
      {.key = "reorder_hamming",
       .kind = Kind::kCount,
       .min = 0,
       .max = 64,
       .meaning = "SimHash distance that confirms equal word bags (see "
                  "reorder_min_words)",
       .field = Member<&Settings::fingerprint, &S::reorder_hamming>},
      {.key = "trailer_min_blocks",
       .kind = Kind::kCount,
       .min = 0,
       .max = 1000000,
       .meaning = "two messages that begin with the same blocks, at least "
                  "this many, and go on with at most trailer_max_bytes each "
                  "(no more than the shared part) are duplicates: one text "
                  "with different footers; 0 disables",
       .field = Member<&Settings::fingerprint, &S::trailer_min_blocks>},
      {.key = "trailer_max_bytes",
       .kind = Kind::kSize,
       .min = 0,
       .max = kGiB,
       .meaning = "the most each message may add after the shared blocks on "
                  "the trailer path (see trailer_min_blocks)",
       .field = Member<&Settings::fingerprint, &S::trailer_max_bytes>},
      {.key = "words_jaccard",
       .kind = Kind::kReal,
       .min = 0.1,
       .max = 2,
       .meaning = "words path (spun text, letters-only hash busters): word "
                  "sketches (MinHash of the word sets) at least this alike; "
                  "above 1 disables the path",
       .field = Member<&Settings::fingerprint, &S::words_jaccard>},
      {.key = "words_edit_rate",
       .kind = Kind::kReal,
       .min = 0,
       .max = 1,
       .meaning = "words path: sampled word sequences at most this edit rate "
                  "apart, the edits spread over the text",
       .field = Member<&Settings::fingerprint, &S::words_edit_rate>},
      {.key = "words_min_words",
       .kind = Kind::kCount,
       .min = 1,
       .max = 1000000,
       .meaning = "words path: both texts have at least this many words",
       .field = Member<&Settings::fingerprint, &S::words_min_words>},
      {.key = "simhash_max_distance",
       .kind = Kind::kCount,
       .min = 0,
       .max = 16,
       .meaning = "SimHash Hamming distance k at or below which messages are "
                  "near-duplicates",
       .field = Member<&Settings::fingerprint, &S::simhash_max_distance>},
      {.key = "fold_hash_busters",
       .kind = Kind::kBool,
       .meaning = "fold long random tokens (hash busters) before hashing",
       .field = Member<&Settings::fingerprint, &S::fold_hash_busters>},
      {.key = "fold_numbers",
       .kind = Kind::kBool,
       .meaning = "fold numbers before hashing",
       .field = Member<&Settings::fingerprint, &S::fold_numbers>},
      {.key = "fold_urls",
       .kind = Kind::kBool,
       .meaning = "drop URL query strings and fragments before hashing",
       .field = Member<&Settings::fingerprint, &S::fold_urls>},
      {.key = "fold_emails",
       .kind = Kind::kBool,
       .meaning = "fold e-mail addresses before hashing",
       .field = Member<&Settings::fingerprint, &S::fold_emails>},
      {.key = "fold_greetings",
       .kind = Kind::kBool,
       .meaning = "fold greetings (\"Dear John,\" becomes \"dear <name>,\") "
                  "before hashing",
       .field = Member<&Settings::fingerprint, &S::fold_greetings>},
  };
  return {.name = "fingerprint",
          .meaning =
              "SHA-1 block lists, CTPH and SimHash, and when two "
              "messages are near",
          .params = kParams};
}

}  // namespace mw::config
