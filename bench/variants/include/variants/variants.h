// mw::variants: labelled near-duplicates of real mail for the evaluations and
// tests. Each mutation class turns one base message into a pair of decoded
// texts (left, right) that a reader would call the same message; the builders
// turn a decoded text back into a whole RFC 822 message.
//
// fingerprint_eval (docs/fingerprint.md) defined the classes; store_eval and
// the end-to-end check test use the same ones, so a change here changes all
// three. The generators are deterministic given the rng: a class's pair for a
// base depends only on the base, the corpus and the rng's state.
#ifndef MW_VARIANTS_VARIANTS_H_
#define MW_VARIANTS_VARIANTS_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mw::variants {

// ---- Corpus

// One distinct message of the corpus.
struct Doc {
  std::string name;  // corpus folder/file, e.g. "sa_easy_ham/0001.ea7e79d3..."
  std::string decoded;  // mime::Message::body
  std::string body;     // normalised (mime::Normalise)
  bool ham = false;     // the folder's name says ham
  std::string subject;  // mime::Message::subject (decoded, one line)
};

struct Corpus {
  std::size_t files = 0;                   // regular files read
  std::vector<Doc> docs;                   // parsed, one per normalised body
  std::map<std::string, std::string> raw;  // Doc::name -> the file's bytes
};

// The dev corpus beside the repository: MW_SOURCE_DIR/../shared/data/mail,
// given the repository root.
std::filesystem::path DefaultCorpusDir(const std::filesystem::path& source_dir);

// Reads every regular file one folder below `dir`, in name order, through
// mime::Parse and mime::Normalise; a file whose normalised body an earlier
// file had counts once, and one that does not parse not at all.
// REQUIRES: mime::Init() was called.
Corpus ReadCorpus(const std::filesystem::path& dir);

// The base candidates of the evaluation: indexes into corpus.docs of the
// messages with 200 B to 256 KiB of normalised body, in an order shuffled
// with `seed`.
std::vector<std::size_t> BaseCandidates(const Corpus& corpus,
                                        std::uint64_t seed);

// ---- Text mutations (of a decoded text)

// Inserts `fraction` of the text's size of unrelated text (lines of other
// corpus messages), in one place or scattered over several line boundaries.
std::string Insert(const std::string& decoded, double fraction, bool scattered,
                   const std::vector<Doc>& corpus, std::mt19937_64& rng);
// Appends a random 6-12 character token to every non-empty line.
std::string TokenPerLine(const std::string& decoded, std::mt19937_64& rng);
// Appends a random token of 6-10 letters (no digits) to every non-empty line.
std::string LettersPerLine(const std::string& decoded, std::mt19937_64& rng);
// Letters-only hash busters of any shape, for both sides of a pair (each copy
// of a spam run carries its own). Written before the fold that must survive
// them, and with shapes that fold did not assume: a token goes into `share`
// of the non-empty lines (each line drawn on its own), at the start, the end,
// between two words (middle) or at any of those (anywhere); min_len..max_len
// letters; drawn uniformly from a-z or as consonant-vowel syllables (a
// pronounceable token, "Kobavelu"); in lower, upper, capitalised or mixed
// case.
struct BusterShape {
  enum class Where { kStart, kMiddle, kEnd, kAnywhere } where = Where::kEnd;
  double share = 1.0;
  std::size_t min_len = 5, max_len = 12;
  bool syllables = false;
  enum class Case {
    kLower,
    kUpper,
    kCapitalised,
    kMixed
  } letter_case = Case::kLower;
};
std::string Busters(const std::string& decoded, const BusterShape& shape,
                    std::mt19937_64& rng);
// A spun copy: `share` of the text's words lie in spintax slots of one to
// three words, and the copy fills every slot with another phrase of one to
// three words drawn from the corpus's words (never the base's own), as a
// spinner does with its synonyms.
std::string Spin(const std::string& decoded, double share,
                 const std::vector<Doc>& corpus, std::mt19937_64& rng);
// "Dear First Last," and a blank line before the text.
std::string Greet(const std::string& decoded, std::mt19937_64& rng);
// A greeting with the recipient's name, the recipient's id and address in
// every URL's query string, and a tracking line at the end.
// With name_mentions > 0, the first name also opens that many paragraphs
// ("Maria, ..."), drawn at random.
std::string Personalise(const std::string& decoded, std::mt19937_64& rng,
                        int name_mentions = 0);
// Shuffles the sentences of each paragraph and wraps it again at 72 columns.
std::string ShuffleSentences(const std::string& decoded, std::mt19937_64& rng);
// Appends one of a few mailing-list, disclaimer or mobile footers.
std::string AddFooter(const std::string& decoded, std::mt19937_64& rng);

// ---- MIME builders

// The headers of a built message. The defaults are fingerprint_eval's.
struct Headers {
  std::string return_path;  // "<a@b>"; no Return-Path header when empty
  std::string from = "Sender <sender@example.com>";
  std::string to = "rcpt@example.org";
  std::string subject = "evaluation";
  std::string date = "Sun, 22 Nov 2026 04:00:00 +0000";
  std::string message_id = "<eval@example.com>";
};

// A whole single-part RFC 822 message: `headers`, MIME-Version, the given
// Content-Type and Content-Transfer-Encoding, a blank line and `body`, which
// must already be in that encoding. Lines end in LF.
std::string Message(std::string_view content_type, std::string_view cte,
                    std::string_view body, const Headers& headers = {});
// A whole message whose decoded body (what mime::Parse gives back) is the
// UTF-8 text `decoded`: text/plain; charset=utf-8, quoted-printable.
std::string BuildMessage(std::string_view decoded, const Headers& headers = {});

// Base64 in 76-column lines, ending in a newline.
std::string Base64(std::string_view in);
// Quoted-printable with soft breaks at 76 columns, ending in a newline.
std::string QuotedPrintable(std::string_view in);
// The text as a small HTML document: paragraphs, <br> for single newlines.
std::string Html(const std::string& decoded);
// The UTF-8 text in the first legacy charset that represents all of it, as a
// sender's mailer would pick (windows-1252 for most of the corpus): the
// charset's name and the bytes.
std::pair<std::string, std::string> ToLegacy(const std::string& utf8);
// The decoded body of a whole message through mime::Parse; empty when it does
// not parse.
std::string Extract(const std::string& message);

// ---- Classes

struct Pair {
  std::string left;   // decoded text
  std::string right;  // decoded text
};

struct Class {
  std::string name;
  // Builds the pair for base `d`; `corpus` supplies unrelated text.
  std::function<Pair(const Doc&, const std::vector<Doc>&, std::mt19937_64&)>
      make;
};

// The mutation classes, in the evaluation's order. `raw` (Corpus::raw) gives
// the re-encoding classes the base's original bytes; it must outlive the
// classes.
std::vector<Class> Classes(const std::map<std::string, std::string>& raw);

// The generator of one class: seeded with `seed` and the class's name, so
// that adding or changing a class leaves the variants of the others as they
// were.
std::mt19937_64 ClassRng(std::uint64_t seed, const std::string& class_name);

}  // namespace mw::variants

#endif  // MW_VARIANTS_VARIANTS_H_
