// fingerprint_eval: precision, recall and F1 of each fingerprint method on
// labelled near-duplicates generated from the dev corpus, and false positives
// on distinct messages.
//
// Usage: fingerprint_eval [--corpus DIR] [--bases N] [--seed S] [--folds LIST]
// [--fold-study]
//                         [--show-fp N]
//   DIR defaults to MW_SOURCE_DIR/../shared/data/mail; without it the program
//   says so and exits 0 (nothing to evaluate). --folds is a comma list of
//   hash_busters, numbers, urls, emails, greetings, or "all" / "none" (default:
//   the Options defaults). --fold-study runs the evaluation once per fold
//   setting and prints one summary line each.
//
// Protocol (docs/fingerprint.md has the reasons):
//   * Every message of the corpus is parsed and normalised by the real path
//   (mime::Parse,
//     mime::Normalise). Messages with the same normalised body count once.
//   * Bases: N messages (seeded shuffle) with 200 B to 256 KiB of normalised
//   body, kept only if
//     no method (ours or ssdeep) calls any two of them duplicates, so that a
//     match between a variant and another base is an error of the method and
//     not a natural duplicate.
//   * For each base and class, one labelled pair (left, right). Text classes
//   edit the decoded
//     body and normalise it; the MIME classes build a complete RFC 822 message
//     and run it through mime::Parse. Positives: (left_i, right_i). Negatives:
//     (left_j, right_i), j != i.
//   * Distinct pairs: every pair of distinct ham bodies (and the short ones
//   separately); a
//     method's false-positive rate is the fraction it calls duplicates.
//   * ssdeep: libfuzzy on the decoded (not normalised) text, duplicate when
//   fuzzy_compare >= 50.
#include <fuzzy.h>
#include <unicode/ucnv.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fingerprint/fingerprint.h"
#include "fingerprint/verify.h"
#include "mime/message.h"

namespace fs = std::filesystem;
namespace fp = mw::fingerprint;

namespace {

struct Doc {
  std::string name;     // corpus folder/file
  std::string decoded;  // mime::Message::body
  std::string body;     // normalised
  bool ham = false;
};

struct Item {
  std::string decoded;
  std::string body;  // normalised
  fp::Fingerprint print;
  std::string ssdeep;
};

constexpr double kTruthEditRate = 0.1;

enum MethodIndex { kBlocks, kCtph, kSimHash, kCombined, kSsdeep, kMethods };
constexpr const char* kMethodNames[kMethods] = {"blocks", "ctph", "simhash",
                                                "mailwave", "ssdeep"};

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

std::string Ssdeep(std::string_view text) {
  char out[FUZZY_MAX_RESULT];
  if (fuzzy_hash_buf(reinterpret_cast<const unsigned char*>(text.data()),
                     static_cast<std::uint32_t>(text.size()), out) != 0) {
    return {};
  }
  return out;
}

// Each method's own verdict.
std::array<bool, kMethods> Verdicts(const Item& a, const Item& b,
                                    const fp::Options& o) {
  const fp::Comparison c = fp::Compare(a.print, b.print, o);
  std::array<bool, kMethods> v{};
  const bool exact = c.method == fp::Method::kExact;
  v[kBlocks] = exact || c.method == fp::Method::kBlocks ||
               c.method == fp::Method::kContainment ||
               c.method == fp::Method::kTrailer ||
               c.method == fp::Method::kReordered;
  v[kCtph] = exact || (c.edit_rate && *c.edit_rate < o.ctph_edit_rate &&
                       std::min(a.print.body_bytes, b.print.body_bytes) >=
                           o.ctph_min_bytes);
  v[kSimHash] =
      exact || (a.print.simhash != 0 && c.hamming <= o.simhash_max_distance);
  v[kCombined] = c.duplicate;
  v[kSsdeep] = !a.ssdeep.empty() && !b.ssdeep.empty() &&
               fuzzy_compare(a.ssdeep.c_str(), b.ssdeep.c_str()) >= 50;
  return v;
}

Item MakeItem(std::string decoded, const fp::Options& o) {
  Item it;
  it.decoded = std::move(decoded);
  it.body = mw::mime::NormaliseText(it.decoded);
  it.print = fp::Compute(it.body, o);
  it.ssdeep = Ssdeep(it.decoded);
  return it;
}

// ---- Variant generators
// -------------------------------------------------------------------

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t e = text.find('\n', i);
    if (e == std::string_view::npos) e = text.size();
    out.emplace_back(text.substr(i, e - i));
    i = e + 1;
  }
  return out;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

// `bytes` of unrelated text (at least one word): lines of other corpus
// messages, the last one cut at a space.
std::string Unrelated(const std::vector<Doc>& corpus, std::size_t bytes,
                      std::mt19937_64& rng) {
  std::string out;
  while (out.size() < bytes) {
    const Doc& d = corpus[rng() % corpus.size()];
    const std::vector<std::string> lines = Lines(d.decoded);
    if (lines.empty()) continue;
    std::size_t start = rng() % lines.size();
    for (std::size_t k = start; k < lines.size() && out.size() < bytes; ++k) {
      if (lines[k].find_first_not_of(" \t\r") == std::string::npos) continue;
      out += lines[k];
      out += '\n';
    }
  }
  std::size_t cut = out.rfind(' ', bytes);
  if (cut == std::string::npos || cut == 0) cut = out.find(' ');
  if (cut != std::string::npos) out.resize(cut);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
    out.pop_back();
  return out + "\n";
}

// Inserts `fraction` of the body's size of unrelated text, in one place or
// scattered over several line boundaries.
std::string Insert(const std::string& decoded, double fraction, bool scattered,
                   const std::vector<Doc>& corpus, std::mt19937_64& rng) {
  std::vector<std::string> lines = Lines(decoded);
  const std::size_t bytes = std::max<std::size_t>(
      1,
      static_cast<std::size_t>(fraction * static_cast<double>(decoded.size())));
  const std::size_t pieces =
      scattered ? std::clamp<std::size_t>(lines.size() / 5, 2, 10) : 1;
  for (std::size_t p = 0; p < pieces; ++p) {
    const std::string text = Unrelated(corpus, bytes / pieces + 1, rng);
    const std::size_t at = rng() % (lines.size() + 1);
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at),
                 text.substr(0, text.size() - 1));
  }
  return Join(lines);
}

std::string RandomToken(std::mt19937_64& rng) {
  static constexpr char kAlnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string t;
  const std::size_t len = 6 + rng() % 7;
  for (std::size_t k = 0; k < len; ++k) t.push_back(kAlnum[rng() % 36]);
  return t;
}

std::string TokenPerLine(const std::string& decoded, std::mt19937_64& rng) {
  std::vector<std::string> lines = Lines(decoded);
  for (auto& l : lines) {
    if (!l.empty()) l += " " + RandomToken(rng);
  }
  return Join(lines);
}

constexpr const char* kFirst[] = {"John",  "Maria",  "Wei",     "Fatima",
                                  "Olga",  "Pierre", "Anna",    "Rahul",
                                  "Kenji", "Laura",  "Mohamed", "Sarah"};
constexpr const char* kLast[] = {"Smith",   "Garcia", "Chen",  "Khan",
                                 "Ivanova", "Dubois", "Rossi", "Patel",
                                 "Tanaka",  "Miller"};

// A greeting with the recipient's name, the recipient's id and address in every
// URL's query string, and a tracking line at the end.
std::string Personalise(const std::string& decoded, std::mt19937_64& rng) {
  const std::string first = kFirst[rng() % std::size(kFirst)];
  const std::string last = kLast[rng() % std::size(kLast)];
  std::string email = first + "." + last + "@example.net";
  for (char& c : email)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string id = std::to_string(rng() % 1000000);
  std::string query = "?uid=" + id + "&email=" + email;
  std::string out =
      "Dear " + first + (rng() % 2 ? " " + last : std::string()) + ",\n\n";
  std::size_t i = 0;
  while (i < decoded.size()) {
    const std::size_t h = decoded.find("http", i);
    if (h == std::string::npos) break;
    std::size_t e = h;
    while (e < decoded.size() &&
           !std::isspace(static_cast<unsigned char>(decoded[e])) &&
           decoded[e] != '"' && decoded[e] != '>' && decoded[e] != ')') {
      ++e;
    }
    out.append(decoded, i, e - i);
    if (decoded.compare(h, 7, "http://") == 0 ||
        decoded.compare(h, 8, "https://") == 0) {
      out += query;
    }
    i = e;
  }
  out.append(decoded, i);
  out += "\nYour subscriber id: " + id +
         ". Manage: http://lists.example.com/prefs" + query + "\n";
  return out;
}

std::string Wrap(const std::string& paragraph) {
  std::string out;
  std::size_t col = 0;
  std::size_t i = 0;
  while (i < paragraph.size()) {
    std::size_t e = paragraph.find(' ', i);
    if (e == std::string::npos) e = paragraph.size();
    const std::size_t len = e - i;
    if (col > 0 && col + 1 + len > 72) {
      out += '\n';
      col = 0;
    } else if (col > 0) {
      out += ' ';
      ++col;
    }
    out.append(paragraph, i, len);
    col += len;
    i = e + 1;
  }
  return out;
}

// Shuffles the sentences of each paragraph and wraps it again at 72 columns.
std::string ShuffleSentences(const std::string& decoded, std::mt19937_64& rng) {
  std::string out;
  std::vector<std::string> paragraph;
  const auto flush = [&] {
    if (paragraph.empty()) return;
    std::string joined;
    for (const auto& l : paragraph) {
      if (!joined.empty()) joined += ' ';
      joined += l;
    }
    std::vector<std::string> sentences;
    std::size_t s = 0;
    for (std::size_t k = 0; k < joined.size(); ++k) {
      const char c = joined[k];
      if ((c == '.' || c == '!' || c == '?') && k + 1 < joined.size() &&
          joined[k + 1] == ' ') {
        sentences.push_back(joined.substr(s, k + 1 - s));
        s = k + 2;
      }
    }
    if (s < joined.size()) sentences.push_back(joined.substr(s));
    std::shuffle(sentences.begin(), sentences.end(), rng);
    std::string p;
    for (const auto& x : sentences) {
      if (!p.empty()) p += ' ';
      p += x;
    }
    out += Wrap(p);
    out += '\n';
    paragraph.clear();
  };
  for (const auto& l : Lines(decoded)) {
    if (l.find_first_not_of(" \t\r") == std::string::npos) {
      flush();
      out += '\n';
    } else {
      paragraph.push_back(l);
    }
  }
  flush();
  return out;
}

constexpr const char* kFooters[] = {
    "\n_______________________________________________\nDiscussion mailing "
    "list\n"
    "Discussion@lists.example.org\nhttp://lists.example.org/mailman/listinfo/"
    "discussion\n",
    "\n--\nThis message and any attachments are confidential and intended "
    "solely for the "
    "addressee.\nIf you have received it in error, please notify the sender "
    "and delete it.\n"
    "Any unauthorised use or disclosure is prohibited.\n",
    "\n------------------------ Yahoo! Groups Sponsor "
    "---------------------~-->\n"
    "Get 128 Bit SSL "
    "Encryption!\nhttp://us.click.yahoo.com/xaxhjB/hdqFAA/VygGAA/7gSolB/TM\n"
    "---------------------------------------------------------------------~->"
    "\n",
    "\nTo unsubscribe from this list, reply with REMOVE in the subject line.\n"
    "We respect your privacy. This is not spam: you signed up at our web "
    "site.\n",
    "\nSent from my mobile device. Please excuse brevity and typos.\n",
};

std::string AddFooter(const std::string& decoded, std::mt19937_64& rng) {
  return decoded + kFooters[rng() % std::size(kFooters)];
}

// ---- MIME builders
// ------------------------------------------------------------------------

std::string Base64(std::string_view in) {
  static constexpr char kB64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t col = 0;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    std::uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) v |= static_cast<unsigned char>(in[i + 2]);
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kB64[v & 63] : '=';
    if ((col += 4) >= 76) {
      out += '\n';
      col = 0;
    }
  }
  return out + "\n";
}

std::string QuotedPrintable(std::string_view in) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  std::size_t col = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c == '\n') {
      out += '\n';
      col = 0;
      continue;
    }
    std::string enc;
    const bool trailing_space =
        (c == ' ' || c == '\t') && (i + 1 == in.size() || in[i + 1] == '\n');
    if (c == '=' || c > 126 || (c < 32 && c != '\t') || trailing_space) {
      enc = {'=', kHex[c >> 4], kHex[c & 15]};
    } else {
      enc = std::string(1, static_cast<char>(c));
    }
    if (col + enc.size() > 75) {
      out += "=\n";
      col = 0;
    }
    out += enc;
    col += enc.size();
  }
  return out + "\n";
}

std::string Message(std::string_view content_type, std::string_view cte,
                    std::string_view body) {
  std::string m =
      "From: Sender <sender@example.com>\nTo: rcpt@example.org\nSubject: "
      "evaluation\n"
      "Date: Sun, 22 Nov 2026 04:00:00 +0000\nMessage-ID: <eval@example.com>\n"
      "MIME-Version: 1.0\nContent-Type: ";
  m += content_type;
  m += "\nContent-Transfer-Encoding: ";
  m += cte;
  m += "\n\n";
  m += body;
  return m;
}

// Converts UTF-8 to `charset` with ICU; false when a character has no mapping
// there.
bool Convert(const std::string& utf8, const char* charset, std::string& out) {
  UErrorCode status = U_ZERO_ERROR;
  out.assign(utf8.size() * 4 + 16, '\0');
  const int32_t n = ucnv_convert(charset, "UTF-8", out.data(),
                                 static_cast<int32_t>(out.size()), utf8.data(),
                                 static_cast<int32_t>(utf8.size()), &status);
  if (U_FAILURE(status)) return false;
  out.resize(static_cast<std::size_t>(n));
  std::string back(out.size() * 4 + 16, '\0');
  const int32_t m =
      ucnv_convert("UTF-8", charset, back.data(),
                   static_cast<int32_t>(back.size()), out.data(), n, &status);
  return U_SUCCESS(status) &&
         back.compare(0, static_cast<std::size_t>(m), utf8) == 0 &&
         static_cast<std::size_t>(m) == utf8.size();
}

// The body in the first legacy charset that represents all of it, as a senders'
// mailer would pick (windows-1252 for most of the corpus).
std::pair<std::string, std::string> ToLegacy(const std::string& utf8) {
  static constexpr const char* kCharsets[] = {
      "windows-1252", "iso-8859-2", "windows-1251", "koi8-r", "iso-8859-7",
      "shift_jis",    "euc-kr",     "gb2312",       "big5"};
  std::string out;
  for (const char* c : kCharsets) {
    if (Convert(utf8, c, out)) return {c, out};
  }
  Convert(utf8, "gb18030", out);
  return {"gb18030", out};
}

std::string Html(const std::string& decoded) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta "
      "charset=\"utf-8\"><style>p{margin:0}</style></head>\n"
      "<body><div style=\"font-family:Arial\">\n<p>";
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    const char c = decoded[i];
    if (c == '\n') {
      if (i + 1 < decoded.size() && decoded[i + 1] == '\n') {
        out += "</p>\n<p>";
        while (i + 1 < decoded.size() && decoded[i + 1] == '\n') ++i;
      } else {
        out += "<br>\n";
      }
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  out += "</p>\n</div></body></html>\n";
  return out;
}

// Decoded body of a generated message, through the real extraction path.
std::string Extract(const std::string& message) {
  auto m = mw::mime::Parse(std::string_view(message), mw::mime::Limits{});
  return m ? m->body : std::string();
}

// ---- Classes
// ------------------------------------------------------------------------------

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

std::vector<Class> Classes(const std::map<std::string, std::string>& raw) {
  std::vector<Class> cs;
  for (const double f : {0.01, 0.05, 0.20}) {
    for (const bool scattered : {false, true}) {
      char name[64];
      std::snprintf(name, sizeof name, "insert %2.0f%% %s", f * 100,
                    scattered ? "scattered" : "one place");
      cs.push_back(
          {name, [f, scattered](const Doc& d, const std::vector<Doc>& c,
                                std::mt19937_64& rng) {
             return Pair{d.decoded, Insert(d.decoded, f, scattered, c, rng)};
           }});
    }
  }
  cs.push_back(
      {"random token per line",
       [](const Doc& d, const std::vector<Doc>&, std::mt19937_64& rng) {
         return Pair{d.decoded, TokenPerLine(d.decoded, rng)};
       }});
  cs.push_back(
      {"personal greeting only",
       [](const Doc& d, const std::vector<Doc>&, std::mt19937_64& rng) {
         const auto greet = [&rng](const std::string& text) {
           return std::string("Dear ") + kFirst[rng() % std::size(kFirst)] +
                  " " + kLast[rng() % std::size(kLast)] + ",\n\n" + text;
         };
         std::string a = greet(d.decoded);
         return Pair{a, greet(d.decoded)};
       }});
  cs.push_back(
      {"greeting + URL query",
       [](const Doc& d, const std::vector<Doc>&, std::mt19937_64& rng) {
         std::string a = Personalise(d.decoded, rng);
         return Pair{a, Personalise(d.decoded, rng)};
       }});
  cs.push_back({"shuffled sentences", [](const Doc& d, const std::vector<Doc>&,
                                         std::mt19937_64& rng) {
                  return Pair{d.decoded, ShuffleSentences(d.decoded, rng)};
                }});
  cs.push_back(
      {"re-encoded base64",
       [&raw](const Doc& d, const std::vector<Doc>&, std::mt19937_64&) {
         return Pair{Extract(raw.at(d.name)),
                     Extract(Message("text/plain; charset=utf-8", "base64",
                                     Base64(d.decoded)))};
       }});
  cs.push_back({"re-encoded QP", [&raw](const Doc& d, const std::vector<Doc>&,
                                        std::mt19937_64&) {
                  return Pair{Extract(raw.at(d.name)),
                              Extract(Message("text/plain; charset=utf-8",
                                              "quoted-printable",
                                              QuotedPrintable(d.decoded)))};
                }});
  cs.push_back(
      {"utf-8 vs legacy charset",
       [](const Doc& d, const std::vector<Doc>&, std::mt19937_64&) {
         const auto [charset, bytes] = ToLegacy(d.decoded);
         return Pair{
             Extract(Message("text/plain; charset=utf-8", "8bit", d.decoded)),
             Extract(Message(std::string("text/plain; charset=") + charset,
                             "quoted-printable", QuotedPrintable(bytes)))};
       }});
  cs.push_back(
      {"plain vs html",
       [](const Doc& d, const std::vector<Doc>&, std::mt19937_64&) {
         return Pair{
             Extract(Message("text/plain; charset=utf-8", "8bit", d.decoded)),
             Extract(Message("text/html; charset=utf-8", "base64",
                             Base64(Html(d.decoded))))};
       }});
  cs.push_back({"footer added", [](const Doc& d, const std::vector<Doc>&,
                                   std::mt19937_64& rng) {
                  return Pair{d.decoded, AddFooter(d.decoded, rng)};
                }});
  return cs;
}

// ---- Evaluation
// ---------------------------------------------------------------------------

struct Counts {
  std::uint64_t tp = 0, fp = 0, fn = 0;
  double Recall() const {
    return tp + fn ? static_cast<double>(tp) / static_cast<double>(tp + fn) : 0;
  }
  double Precision() const {
    return tp + fp ? static_cast<double>(tp) / static_cast<double>(tp + fp) : 1;
  }
  double F1() const {
    const double p = Precision(), r = Recall();
    return p + r > 0 ? 2 * p * r / (p + r) : 0;
  }
};

struct Summary {
  Counts overall[kMethods];
  double min_recall[kMethods];
  std::uint64_t distinct_pairs = 0, short_pairs = 0;
  std::uint64_t distinct_fp[kMethods] = {}, short_fp[kMethods] = {};
  std::uint64_t natural =
      0;  // flagged pairs whose texts are near-identical: not counted
};

// --dump: one line per pair that any plausible rule could call a duplicate, for
// threshold studies: label (1 positive, 0 negative within a class, 2 distinct
// ham), class, similarity, CTPH edit rate, Hamming distance, the two block
// counts and body sizes, containment.
std::FILE* g_dump = nullptr;

void Dump(int label, const std::string& cls, const Item& a, const Item& b,
          const fp::Options& o) {
  if (g_dump == nullptr) return;
  const fp::Comparison c = fp::Compare(a.print, b.print, o);
  const double sim = c.similarity.value_or(-1);
  const double edit = c.edit_rate.value_or(-1);
  if (label != 1 && sim < 0.3 && (edit < 0 || edit > 0.3) && c.hamming > 16 &&
      c.containment.value_or(0) < 0.5)
    return;
  std::fprintf(g_dump, "%d\t%s\t%.4f\t%.4f\t%u\t%zu\t%zu\t%zu\t%zu\t%.4f\n",
               label, cls.c_str(), sim, edit, c.hamming,
               a.print.blocks.hashes.size(), b.print.blocks.hashes.size(),
               a.print.body_bytes, b.print.body_bytes,
               c.containment.value_or(-1));
}

struct Setup {
  std::vector<Doc> corpus;
  std::map<std::string, std::string> raw;
  std::vector<std::size_t> base_candidates;
  std::uint64_t seed = 20261122;
  std::size_t bases = 300;
  int show_fp = 0;
};

Summary Run(const Setup& s, const fp::Options& o, bool print) {
  Summary sum;
  // Distinct ham bodies.
  std::vector<Item> ham;
  std::vector<std::string> ham_names;
  for (const Doc& d : s.corpus) {
    if (!d.ham || d.body.empty()) continue;
    ham.push_back(MakeItem(d.decoded, o));
    ham_names.push_back(d.name);
  }
  // Bases: mutually distinct under every method.
  std::vector<std::size_t> bases;
  std::vector<Item> base_items;
  std::size_t dropped = 0;
  for (const std::size_t idx : s.base_candidates) {
    if (bases.size() >= s.bases) break;
    Item it = MakeItem(s.corpus[idx].decoded, o);
    bool clash = false;
    for (const Item& b : base_items) {
      const auto v = Verdicts(it, b, o);
      if (std::any_of(v.begin(), v.end(), [](bool x) { return x; })) {
        clash = true;
        break;
      }
    }
    if (clash) {
      ++dropped;
      continue;
    }
    bases.push_back(idx);
    base_items.push_back(std::move(it));
  }
  if (print) {
    std::printf(
        "bases: %zu (%zu candidates dropped as natural near-duplicates of an "
        "earlier base)\n\n",
        bases.size(), dropped);
    std::printf("%-24s", "class");
    for (int m = 0; m < kMethods; ++m) std::printf(" | %-17s", kMethodNames[m]);
    std::printf("\n%-24s", "");
    for (int m = 0; m < kMethods; ++m) std::printf(" |  R     P     F1  ");
    std::printf("\n");
  }
  for (int m = 0; m < kMethods; ++m) sum.min_recall[m] = 1;
  const std::vector<Class> classes = Classes(s.raw);
  for (const Class& cls : classes) {
    // Each class draws from its own generator (seed and class name), so adding
    // or changing a class leaves the variants of the others as they were.
    std::seed_seq seq{
        s.seed, static_cast<std::uint64_t>(std::hash<std::string>{}(cls.name))};
    std::mt19937_64 rng(seq);
    std::vector<Item> left, right;
    for (const std::size_t idx : bases) {
      Pair p = cls.make(s.corpus[idx], s.corpus, rng);
      left.push_back(MakeItem(std::move(p.left), o));
      right.push_back(MakeItem(std::move(p.right), o));
    }
    Counts c[kMethods];
    for (std::size_t i = 0; i < right.size(); ++i) {
      for (std::size_t j = 0; j < left.size(); ++j) {
        const auto v = Verdicts(left[j], right[i], o);
        Dump(i == j ? 1 : 0, cls.name, left[j], right[i], o);
        for (int m = 0; m < kMethods; ++m) {
          if (i == j) {
            (v[m] ? c[m].tp : c[m].fn)++;
          } else if (v[m]) {
            c[m].fp++;
          }
        }
      }
    }
    if (print) std::printf("%-24s", cls.name.c_str());
    for (int m = 0; m < kMethods; ++m) {
      sum.overall[m].tp += c[m].tp;
      sum.overall[m].fp += c[m].fp;
      sum.overall[m].fn += c[m].fn;
      sum.min_recall[m] = std::min(sum.min_recall[m], c[m].Recall());
      if (print)
        std::printf(" | %.3f %.3f %.3f", c[m].Recall(), c[m].Precision(),
                    c[m].F1());
    }
    if (print) std::printf("\n");
    std::fflush(stdout);
  }
  // False positives among distinct ham.
  int shown = 0;
  for (std::size_t i = 0; i < ham.size(); ++i) {
    for (std::size_t j = i + 1; j < ham.size(); ++j) {
      const auto v = Verdicts(ham[i], ham[j], o);
      if (std::any_of(v.begin(), v.end(), [](bool x) { return x; })) {
        // Ground truth for flagged pairs: texts within a text edit rate of 0.1
        // (about a fifth of the text changed) are natural near-duplicates (the
        // same FAQ posted twice), not distinct messages; they are left out of
        // the counts and reported.
        if (ham[i].body.size() + ham[j].body.size() < (512u << 10) &&
            fp::TextEditRate(ham[i].body, ham[j].body) < kTruthEditRate) {
          ++sum.natural;
          continue;
        }
      }
      Dump(2, "distinct", ham[i], ham[j], o);
      const bool is_short =
          ham[i].print.body_bytes < 500 && ham[j].print.body_bytes < 500;
      ++sum.distinct_pairs;
      if (is_short) ++sum.short_pairs;
      for (int m = 0; m < kMethods; ++m) {
        if (!v[m]) continue;
        ++sum.distinct_fp[m];
        if (is_short) ++sum.short_fp[m];
      }
      if (v[kCombined] && shown < s.show_fp) {
        ++shown;
        const fp::Comparison c = fp::Compare(ham[i].print, ham[j].print, o);
        std::printf("FP %s %s method=%s sim=%.3f edit=%.3f ham=%u\n",
                    ham_names[i].c_str(), ham_names[j].c_str(),
                    std::string(fp::MethodName(c.method)).c_str(),
                    c.similarity.value_or(-1), c.edit_rate.value_or(-1),
                    c.hamming);
      }
    }
  }
  if (print) {
    std::printf("%-24s", "OVERALL");
    for (int m = 0; m < kMethods; ++m) {
      std::printf(" | %.3f %.3f %.3f", sum.overall[m].Recall(),
                  sum.overall[m].Precision(), sum.overall[m].F1());
    }
    std::printf("\n%-24s", "min class recall");
    for (int m = 0; m < kMethods; ++m)
      std::printf(" | %.3f            ", sum.min_recall[m]);
    std::printf(
        "\n\nfalse positives on distinct ham pairs (%llu pairs; %llu short, "
        "both < 500 B;"
        " %llu natural near-duplicates left out):\n",
        static_cast<unsigned long long>(sum.distinct_pairs),
        static_cast<unsigned long long>(sum.short_pairs),
        static_cast<unsigned long long>(sum.natural));
    for (int m = 0; m < kMethods; ++m) {
      std::printf("  %-9s all %6llu (%.2e)   short %5llu (%.2e)\n",
                  kMethodNames[m],
                  static_cast<unsigned long long>(sum.distinct_fp[m]),
                  static_cast<double>(sum.distinct_fp[m]) /
                      static_cast<double>(sum.distinct_pairs),
                  static_cast<unsigned long long>(sum.short_fp[m]),
                  sum.short_pairs ? static_cast<double>(sum.short_fp[m]) /
                                        static_cast<double>(sum.short_pairs)
                                  : 0.0);
    }
  }
  return sum;
}

bool ParseFolds(const std::string& list, fp::FoldOptions& f) {
  f = {false, false, false, false, false};
  if (list == "none") return true;
  if (list == "all") {
    f = {true, true, true, true, true};
    return true;
  }
  std::size_t i = 0;
  while (i <= list.size()) {
    std::size_t e = list.find(',', i);
    if (e == std::string::npos) e = list.size();
    const std::string name = list.substr(i, e - i);
    if (name == "hash_busters")
      f.hash_busters = true;
    else if (name == "numbers")
      f.numbers = true;
    else if (name == "urls")
      f.urls = true;
    else if (name == "emails")
      f.emails = true;
    else if (name == "greetings")
      f.greetings = true;
    else
      return false;
    i = e + 1;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus_dir = MW_SOURCE_DIR "/../shared/data/mail";
  Setup s;
  fp::Options options;
  bool fold_study = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fingerprint_eval: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--corpus")
      corpus_dir = next();
    else if (a == "--bases")
      s.bases = std::stoul(next());
    else if (a == "--seed")
      s.seed = std::stoull(next());
    else if (a == "--show-fp")
      s.show_fp = std::stoi(next());
    else if (a == "--fold-study")
      fold_study = true;
    else if (a == "--dump")
      g_dump = std::fopen(next().c_str(), "w");
    else if (a == "--threshold")
      options.duplicate_threshold = std::stod(next());
    else if (a == "--band")
      options.paragraph_band = std::stod(next());
    else if (a == "--unweighted")
      options.weigh_blocks = false;
    else if (a == "--confirm-similarity")
      options.confirm_similarity = std::stod(next());
    else if (a == "--confirm-hamming")
      options.confirm_hamming = static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--containment")
      options.containment_threshold = std::stod(next());
    else if (a == "--containment-ratio")
      options.containment_length_ratio = std::stod(next());
    else if (a == "--containment-hamming")
      options.containment_hamming =
          static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--containment-min-lines")
      options.containment_min_lines = std::stoul(next());
    else if (a == "--reorder-min-words")
      options.reorder_min_words =
          static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--reorder-hamming")
      options.reorder_hamming = static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--ctph-min")
      options.ctph_min_bytes = std::stoul(next());
    else if (a == "--min-lines")
      options.min_paragraph_blocks = std::stoul(next());
    else if (a == "--ctph-rate")
      options.ctph_edit_rate = std::stod(next());
    else if (a == "--k")
      options.simhash_max_distance =
          static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--folds") {
      if (!ParseFolds(next(), options.folds)) {
        std::fprintf(stderr, "fingerprint_eval: bad --folds list\n");
        return 2;
      }
    } else {
      std::fprintf(
          stderr,
          "usage: fingerprint_eval [--corpus DIR] [--bases N] [--seed S] "
          "[--folds LIST|all|none] [--fold-study] [--show-fp N] [--threshold "
          "T] [--ctph-rate P] [--k K]\n");
      return 2;
    }
  }
  if (!fs::is_directory(corpus_dir)) {
    std::printf(
        "fingerprint_eval: corpus %s not found; nothing to evaluate "
        "(skipped)\n",
        corpus_dir.c_str());
    return 0;
  }
  mw::mime::Init();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<fs::path> files;
  for (const auto& dir : fs::directory_iterator(corpus_dir)) {
    if (!dir.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(dir.path())) {
      if (f.is_regular_file()) files.push_back(f.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::set<std::string> seen;
  for (const fs::path& p : files) {
    std::string raw = ReadFile(p);
    auto m = mw::mime::Parse(std::string_view(raw), mw::mime::Limits{});
    if (!m) continue;
    Doc d;
    d.name = p.parent_path().filename().string() + "/" + p.filename().string();
    d.ham = d.name.find("ham") != std::string::npos;
    d.decoded = m->body;
    d.body = mw::mime::Normalise(*m).body;
    if (!seen.insert(d.body).second)
      continue;  // same normalised body counts once
    s.raw[d.name] = std::move(raw);
    s.corpus.push_back(std::move(d));
  }
  for (std::size_t i = 0; i < s.corpus.size(); ++i) {
    const std::size_t n = s.corpus[i].body.size();
    if (n >= 200 && n <= (256u << 10)) s.base_candidates.push_back(i);
  }
  std::mt19937_64 rng(s.seed);
  std::shuffle(s.base_candidates.begin(), s.base_candidates.end(), rng);
  std::printf(
      "corpus: %zu files, %zu distinct bodies (%.1f s to parse)\n",
      files.size(), s.corpus.size(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count());

  if (!fold_study) {
    Run(s, options, true);
    return 0;
  }
  struct Variant {
    const char* name;
    const char* folds;
  };
  const Variant variants[] = {
      {"none", "none"},
      {"hash_busters", "hash_busters"},
      {"numbers", "numbers"},
      {"urls", "urls"},
      {"emails", "emails"},
      {"greetings", "greetings"},
      {"all", "all"},
      {"all - hash_busters", "numbers,urls,emails,greetings"},
      {"all - numbers", "hash_busters,urls,emails,greetings"},
      {"all - urls", "hash_busters,numbers,emails,greetings"},
      {"all - emails", "hash_busters,numbers,urls,greetings"},
      {"all - greetings", "hash_busters,numbers,urls,emails"},
  };
  std::printf(
      "%-20s | mailwave F1  min-recall  distinct-FP  short-FP | blocks F1  "
      "ctph F1  "
      "simhash F1\n",
      "folds");
  for (const Variant& v : variants) {
    fp::Options o = options;
    ParseFolds(v.folds, o.folds);
    const Summary r = Run(s, o, false);
    std::printf(
        "%-20s | %.4f       %.3f       %.2e     %.2e | %.4f     %.4f   %.4f\n",
        v.name, r.overall[kCombined].F1(), r.min_recall[kCombined],
        static_cast<double>(r.distinct_fp[kCombined]) /
            static_cast<double>(r.distinct_pairs),
        r.short_pairs ? static_cast<double>(r.short_fp[kCombined]) /
                            static_cast<double>(r.short_pairs)
                      : 0.0,
        r.overall[kBlocks].F1(), r.overall[kCtph].F1(),
        r.overall[kSimHash].F1());
    std::fflush(stdout);
  }
  return 0;
}
