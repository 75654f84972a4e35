// Folds: the optional normalisation of the fingerprint path that removes what
// bulk mailers vary per recipient, so that the variants of one spam wave
// fingerprint alike.
//
// Input is normalised text (mime::Text::body: case-folded UTF-8, lines '\n').
// Each fold is independent; docs/fingerprint.md records what each one gains and
// costs on the evaluation and why the defaults are what they are. The language
// path never sees folded text.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_FOLD_H_
#define MW_FINGERPRINT_FOLD_H_

#include <string>
#include <string_view>

namespace mw::fingerprint {

struct FoldOptions {
  // Deletes "hash busters": tokens of 6 or more ASCII letters and digits that
  // mix both, and any alphanumeric token of 20 or more characters (random
  // strings appended to defeat hashing).
  bool hash_busters = true;
  // Replaces every run of digits (with inner '.', ',', ':' or '-' separators)
  // by "0".
  bool numbers = false;
  // Cuts URL query strings and fragments: "http://x.com/a?id=42#t" ->
  // "http://x.com/a".
  bool urls = true;
  // Replaces e-mail addresses by "@".
  bool emails = false;
  // "dear john smith," at the start of a line -> "dear,"; also hi, hello, hey,
  // greetings, good morning/afternoon/evening, attention, attn. Up to three
  // name words are removed.
  bool greetings = false;
};

// Applies the enabled folds to `text` and returns the result. Line structure
// ('\n') is kept; removed tokens leave no double spaces. With every fold
// disabled, returns `text` unchanged.
std::string Fold(std::string_view text, const FoldOptions& options);

// Test hook: Fold by its general path, a line at a time, which the fast path
// for the hash-buster and URL folds alone (the defaults) is checked against.
std::string TEST_FoldLines(std::string_view text, const FoldOptions& options);

// Test hook: the fast path for the hash-buster and URL folds (whichever of the
// two `options` enables; the others are ignored) token by token, without the
// 64-byte chunks it takes with AVX-512.
std::string TEST_FoldTokens(std::string_view text, const FoldOptions& options);

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_FOLD_H_
