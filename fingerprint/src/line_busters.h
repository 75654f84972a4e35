// The letters-only hash buster: a random token of letters appended to every
// line, which the token fold (IsHashBuster: letters and digits mixed, or 20
// characters and more) cannot tell from a word.
//
// One such token looks like any word; what gives it away is the pattern: the
// last token of (nearly) every line is a run of 4-19 ASCII letters that
// occurs nowhere else in the message. Normal prose ends lines on whatever
// word the wrap left there: shorter words, words used again elsewhere,
// punctuation. When the pattern holds, those tokens are removed; otherwise
// the text is returned as it is. Both copies of a mail go through the same
// rule, so a message without busters is never changed against its copy with
// them unless its own lines already show the pattern. nullopt: the pattern
// does not hold, the text stays as it is (most mail; no copy is made).
//
// Thread-safety: pure function.
#ifndef MW_FINGERPRINT_LINE_BUSTERS_H_
#define MW_FINGERPRINT_LINE_BUSTERS_H_

#include <optional>
#include <string>
#include <string_view>

namespace mw::fingerprint::internal {

// Input: normalised (case-folded) text, lines '\n'. Lines with fewer than two
// tokens do not count either way; at least `kMinLines` lines must have two.
inline constexpr std::size_t kLineBusterMinLines = 4;
std::optional<std::string> FoldLineBusters(std::string_view text);

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_LINE_BUSTERS_H_
