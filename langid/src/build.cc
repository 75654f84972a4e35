#include "langid/build.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

#include "format.h"
#include "text.h"

namespace mw::langid {
namespace {

using internal::Entry;
using internal::FileHeader;
using internal::LanguageRecord;

struct Counter {
  std::unordered_map<std::string, std::uint64_t>* counts;
  std::uint64_t add;
};

void CountPiece(void* context, std::string_view word, int /*script*/) {
  auto* c = static_cast<Counter*>(context);
  (*c->counts)[std::string(word)] += c->add;
}

// "word count" with a single space and a decimal count.
bool ParseFrequencyLine(std::string_view line, std::string_view& word,
                        std::uint64_t& count) {
  const std::size_t sp = line.rfind(' ');
  if (sp == std::string_view::npos || sp == 0 || sp + 1 >= line.size())
    return false;
  word = line.substr(0, sp);
  if (word.find(' ') != std::string_view::npos) return false;
  const std::string_view num = line.substr(sp + 1);
  const auto r = std::from_chars(num.data(), num.data() + num.size(), count);
  return r.ec == std::errc() && r.ptr == num.data() + num.size();
}

// The next non-empty line of `text` (without its "\r\n"), which loses it and
// the empty lines before it; `number` counts every line taken, so it becomes
// the line's 1-based number. False at the end of the text.
bool NextLine(std::string_view& text, std::string_view& line,
              std::size_t& number) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) return true;
  }
  return false;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::string_view line;
  std::size_t number = 0;
  while (NextLine(text, line, number)) lines.push_back(line);
  return lines;
}

bool ValidCode(std::string_view code) {
  if (code.empty() || code.size() > 7) return false;
  return std::all_of(code.begin(), code.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

int PieceScript(std::string_view word) {
  struct Probe {
    int script = USCRIPT_COMMON;
  } probe;
  internal::SplitPieces(
      word,
      [](void* context, std::string_view, int script) {
        auto* p = static_cast<Probe*>(context);
        if (p->script == USCRIPT_COMMON) p->script = script;
      },
      &probe);
  return probe.script;
}

// exp(entropy) of the shares frequency/sum of rows [i, j).
template <typename Rows>
double Perplexity(const Rows& rows, std::size_t i, std::size_t j, double sum) {
  double h = 0;
  for (std::size_t k = i; k < j; ++k) {
    const double p = rows[k].frequency / sum;
    if (p > 0) h -= p * std::log(p);
  }
  return std::exp(h);
}

void Append(std::string& out, const void* data, std::size_t size) {
  out.append(static_cast<const char*>(data), size);
}

void PadTo8(std::string& out) {
  while (out.size() % 8 != 0) out.push_back('\0');
}

// Log-probability floor of the n-gram tier: what a trigram a language does not
// have costs.
constexpr double kNgramFloor = -12.0;

// The least number of trigram occurrences a profile's probabilities are taken
// over. A list of a few hundred words (a language known from one short text,
// langid/data/prepare_extra.py) gives each trigram it saw, even once, a
// probability far above what a rare trigram gets from a list of 20,000 words,
// whose top `ngram_top` leave the rare ones at the floor; the unknown words of
// every language of its script would then go to the small list (hi to mr, fa to
// ur). Below this total the missing occurrences are left to the trigrams the
// sample did not see. The FrequencyWords lists (wordlists.tar.xz) all have
// more and build to the same bytes as without this floor. 12,000 was chosen on
// the tune half of the evaluation (docs/langid.md, Tuning).
constexpr double kMinTrigramTotal = 12000.0;

// Letter markers (Model::LetterLanguage): a letter marks a language when it is
// at least kLetterMinShare of the letters of its list (each word weighted by
// its count) and every other list that writes the letter's script shows it
// at most 1/kLetterRatio as often, and is large enough to show it: at that
// rate, its letters in that script would hold kLetterAbsence or more of it.
// A small list (a declaration text) proves nothing by lacking a letter: ß is
// 2e-3 of German letters, and the Zulu declaration's 10,000 letters would
// show 0.2 of it at 1/100 of that rate, so ß marks nothing. What passes with
// the shipped lists: Azerbaijani ə, Marathi ळ, Albanian ë, Urdu ں ھ ہ ے, and
// since kLetterAbsence went from 3 to 1 Serbian ћ and Macedonian ќ (the
// Kazakh list's ~32,000 Cyrillic letters would show 1.2 of ћ; docs/langid.md,
// "Marker letters"; the constants were checked on the tune half).
constexpr double kLetterMinShare = 1e-3;
constexpr double kLetterRatio = 100.0;
constexpr double kLetterAbsence = 1.0;

// One list's letters: the share of each (words weighted by count), and the
// letters of its distinct words per script of the word (unweighted: how much
// text the absence of a letter rests on; a stray Latin letter inside an
// Arabic word does not make a list one that writes Latin).
struct LetterStats {
  std::map<UChar32, double> share;
  std::map<int, std::uint64_t> per_script;
};

LetterStats CountLetters(
    const std::vector<std::pair<std::string, std::uint64_t>>& words,
    const std::vector<std::size_t>& keep, const std::vector<int>& scripts) {
  LetterStats s;
  double total = 0;
  for (std::size_t i : keep) {
    const std::string& w = words[i].first;
    const double count = static_cast<double>(words[i].second);
    const auto* p = reinterpret_cast<const std::uint8_t*>(w.data());
    const std::int32_t n = static_cast<std::int32_t>(w.size());
    for (std::int32_t k = 0; k < n;) {
      UChar32 c;
      U8_NEXT(p, k, n, c);
      if (c < 0 || (U_GET_GC_MASK(c) & (U_GC_L_MASK | U_GC_M_MASK)) == 0) {
        continue;
      }
      s.share[c] += count;
      total += count;
      ++s.per_script[scripts[i]];
    }
  }
  if (total > 0) {
    for (auto& [c, v] : s.share) v /= total;
  }
  return s;
}

// The marker letters of the lists (index = language; script-decided
// languages have empty stats), as encoded postings, by code point: letters
// of a script that at least one other list writes, at most kMaxPostings (the
// most frequent).
std::vector<std::uint32_t> LetterMarkers(const std::vector<LetterStats>& all) {
  struct Marker {
    UChar32 letter;
    std::uint32_t language;
    double share;
  };
  std::vector<Marker> found;
  for (std::uint32_t li = 0; li < all.size(); ++li) {
    for (const auto& [c, share] : all[li].share) {
      // ASCII letters are every Latin list's; the format holds the BMP only.
      if (c < 0x80 || c > 0xffff || share < kLetterMinShare) continue;
      UErrorCode err = U_ZERO_ERROR;
      const int script = uscript_getScript(c, &err);
      // Marks shared by scripts (Arabic harakat, combining accents) belong to
      // no script's lists alone.
      if (script == USCRIPT_COMMON || script == USCRIPT_INHERITED) continue;
      // A letter of a script no other list writes tells no two lists apart.
      bool alone = true, shared_script = false;
      for (std::uint32_t lj = 0; lj < all.size() && alone; ++lj) {
        if (lj == li) continue;
        const auto written = all[lj].per_script.find(script);
        if (written == all[lj].per_script.end()) continue;
        shared_script = true;
        const auto other = all[lj].share.find(c);
        const double rate = other == all[lj].share.end() ? 0 : other->second;
        alone = rate * kLetterRatio <= share &&
                static_cast<double>(written->second) * share / kLetterRatio >=
                    kLetterAbsence;
      }
      if (alone && shared_script) found.push_back({c, li, share});
    }
  }
  // The format holds kMaxPostings of them: the most frequent.
  std::sort(found.begin(), found.end(), [](const Marker& a, const Marker& b) {
    return a.share != b.share ? a.share > b.share : a.letter < b.letter;
  });
  if (found.size() > internal::kMaxPostings) {
    found.resize(internal::kMaxPostings);
  }
  std::sort(found.begin(), found.end(), [](const Marker& a, const Marker& b) {
    return a.letter < b.letter;
  });
  std::vector<std::uint32_t> postings;
  for (const Marker& m : found) {
    postings.push_back(internal::EncodePosting(
        m.language, true, static_cast<std::uint32_t>(m.letter)));
  }
  return postings;
}

struct TrigramRow {
  std::string trigram;
  std::uint32_t language;
  double log_p;
  bool operator<(const TrigramRow& o) const {
    return trigram != o.trigram ? trigram < o.trigram : language < o.language;
  }
};

// Counts the character trigrams of " word " over the kept words (each word
// once: the tier is for rare words, whose spelling matters more than the
// frequency of "the"), keeps the `top` most probable and appends their
// log-probabilities. With `inner` (frequencies per billion of the trigrams
// inside words, from running text) the words keep deciding the trigrams at a
// word boundary, and `inner` those inside words of its scripts: a trigram
// inside words gets the share the words' own trigrams inside words of its
// script have among all their trigrams, times its frequency in `inner`. A list
// of a few thousand words sees only the commonest trigrams inside words; a
// model of millions of words of running text has the rest, while it knows
// nothing of where words begin and end.
void AddTrigrams(
    const std::vector<std::pair<std::string, std::uint64_t>>& words,
    const std::vector<std::size_t>& keep,
    const std::vector<std::pair<std::string, std::uint64_t>>& inner,
    std::uint32_t language, std::uint32_t top, std::vector<TrigramRow>& out) {
  std::map<std::string, std::uint64_t> counts;
  std::uint64_t total = 0;
  std::vector<std::size_t> starts;
  for (std::size_t i : keep) {
    const std::string padded = " " + words[i].first + " ";
    starts.clear();
    const auto* s = reinterpret_cast<const std::uint8_t*>(padded.data());
    const std::int32_t n = static_cast<std::int32_t>(padded.size());
    for (std::int32_t k = 0; k < n;) {
      starts.push_back(static_cast<std::size_t>(k));
      U8_FWD_1(s, k, n);
    }
    starts.push_back(padded.size());
    for (std::size_t k = 0; k + 3 < starts.size(); ++k) {
      ++counts[padded.substr(starts[k], starts[k + 3] - starts[k])];
      ++total;
    }
  }
  const double denominator =
      std::max(static_cast<double>(total), kMinTrigramTotal);
  // The scripts `inner` covers (Lingua's Serbian is Cyrillic only; the
  // Serbian list is Latin and Cyrillic): the list keeps its own trigrams
  // inside words of the other scripts.
  std::map<int, std::uint64_t> inside_by_script;
  for (const auto& [t, per_billion] : inner) inside_by_script[PieceScript(t)];
  std::vector<std::pair<double, std::string>> ranked;
  for (auto& [t, c] : counts) {
    if (t.find(' ') == std::string::npos) {
      const auto it = inside_by_script.find(PieceScript(t));
      if (it != inside_by_script.end()) {
        it->second += c;
        continue;
      }
    }
    ranked.emplace_back(static_cast<double>(c) / denominator, t);
  }
  if (total > 0) {
    for (const auto& [t, per_billion] : inner) {
      const double inside_share =
          static_cast<double>(inside_by_script[PieceScript(t)]) /
          static_cast<double>(total);
      if (inside_share > 0 && per_billion > 0) {
        ranked.emplace_back(
            inside_share * static_cast<double>(per_billion) * 1e-9, t);
      }
    }
  }
  // Ties by trigram, so that the order of `inner` does not matter.
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (ranked.size() > top) ranked.resize(top);
  for (auto& [p, t] : ranked) {
    out.push_back({std::move(t), language, std::log(p)});
  }
}

// Whether `code` is one of `variants` that is a written variant (not a pair).
bool IsVariant(const std::vector<VariantList>& variants,
               const std::string& code) {
  return std::any_of(
      variants.begin(), variants.end(),
      [&](const VariantList& v) { return !v.pair && v.code == code; });
}

}  // namespace

Result<WordList> ParseWordList(std::string code, std::string_view text) {
  if (!internal::IsValidUtf8(text)) {
    return Fail(Error::InvalidArgument(code + ": not valid UTF-8"));
  }
  const std::vector<std::string_view> lines = Lines(text);
  bool frequency = !lines.empty();
  for (std::size_t i = 0; i < lines.size() && i < 100 && frequency; ++i) {
    std::string_view w;
    std::uint64_t c;
    frequency = ParseFrequencyLine(lines[i], w, c);
  }
  std::unordered_map<std::string, std::uint64_t> counts;
  Counter counter{&counts, 1};
  if (frequency) {
    for (std::string_view line : lines) {
      std::string_view w;
      std::uint64_t c;
      if (!ParseFrequencyLine(line, w, c))
        continue;  // a stray line in a long list
      counter.add = c;
      internal::SplitPieces(internal::FoldCase(w), CountPiece, &counter);
    }
  } else {
    const std::string folded = internal::FoldCase(text);
    internal::SegmentWords(folded, CountPiece, &counter);
  }
  if (counts.empty()) return Fail(Error::InvalidArgument(code + ": no words"));
  WordList list;
  list.code = std::move(code);
  list.words.assign(counts.begin(), counts.end());
  std::sort(list.words.begin(), list.words.end());
  return list;
}

Result<std::vector<std::pair<std::string, std::uint64_t>>> ParseTrigramList(
    std::string_view text) {
  if (!internal::IsValidUtf8(text))
    return Fail(Error::InvalidArgument("not valid UTF-8"));
  std::map<std::string, std::uint64_t> trigrams;
  std::uint64_t total = 0;
  std::size_t number = 0;
  std::string_view line;
  while (NextLine(text, line, number)) {
    std::string_view t;
    std::uint64_t count = 0;
    if (!ParseFrequencyLine(line, t, count)) {
      return Fail(Error::InvalidArgument("line " + std::to_string(number) +
                                         ": not \"trigram count\""));
    }
    total += count;
    if (total > 1'000'000'000) {
      return Fail(Error::InvalidArgument(
          "line " + std::to_string(number) +
          ": the counts add up to more than one billion"));
    }
    std::string folded = internal::FoldCase(t);
    std::int32_t letters = 0;
    const auto* s = reinterpret_cast<const std::uint8_t*>(folded.data());
    const std::int32_t n = static_cast<std::int32_t>(folded.size());
    for (std::int32_t k = 0; k < n; ++letters) U8_FWD_1(s, k, n);
    if (letters == 3) trigrams[std::move(folded)] += count;
  }
  return std::vector<std::pair<std::string, std::uint64_t>>(trigrams.begin(),
                                                            trigrams.end());
}

Result<VariantList> ParseVariantList(std::string code, std::string_view text) {
  if (!internal::IsValidUtf8(text))
    return Fail(Error::InvalidArgument("not valid UTF-8"));
  VariantList out;
  out.code = std::move(code);
  std::size_t number = 0;
  std::string_view line;
  while (NextLine(text, line, number)) {
    const std::size_t space = line.find(' ');
    const std::string_view key = line.substr(0, space);
    const std::string_view rest = space == std::string_view::npos
                                      ? std::string_view()
                                      : line.substr(space + 1);
    auto bad = [&](const std::string& why) {
      return Fail(Error::InvalidArgument("line " + std::to_string(number) +
                                         ": " + why));
    };
    if (out.base.empty()) {
      out.pair = key == "pair-with";
      std::string_view base = rest;
      if (const std::size_t space2 = rest.find(' ');
          out.pair && space2 != rest.npos) {
        base = rest.substr(0, space2);
        const std::string_view min = rest.substr(space2 + 1);
        const auto [end, ec] =
            std::from_chars(min.data(), min.data() + min.size(), out.pair_min);
        if (ec != std::errc() || end != min.data() + min.size() ||
            out.pair_min > 255)
          return bad("not \"pair-with OTHER [MIN]\" with MIN in 0..255");
      }
      if ((key != "variant-of" && !out.pair) || base.empty() ||
          base.find(' ') != base.npos)
        return bad("not \"variant-of BASE\" or \"pair-with OTHER [MIN]\"");
      out.base = std::string(base);
      continue;
    }
    std::int32_t value = 0;
    const auto [end, ec] =
        std::from_chars(rest.data(), rest.data() + rest.size(), value);
    if (key.empty() || rest.empty() || ec != std::errc() ||
        end != rest.data() + rest.size() || value < -32768 || value > 32767) {
      return bad("not \"n-gram value\" with a value in -32768..32767");
    }
    std::string folded = internal::FoldCase(key);
    std::int32_t letters = 0;
    const auto* b = reinterpret_cast<const std::uint8_t*>(folded.data());
    const std::int32_t n = static_cast<std::int32_t>(folded.size());
    for (std::int32_t k = 0; k < n; ++letters) {
      UChar32 c;
      U8_NEXT(b, k, n, c);
      if (c < 0 || !u_isalpha(c)) return bad("the n-gram is not letters");
    }
    if (letters < 1 || letters > 5) return bad("not an n-gram of 1-5 letters");
    out.ngrams.emplace_back(std::move(folded), value);
  }
  if (out.base.empty())
    return Fail(
        Error::InvalidArgument("no \"variant-of\" or \"pair-with\" line"));
  if (out.ngrams.empty()) return Fail(Error::InvalidArgument("no n-grams"));
  return out;
}

void AddSerbianCyrillic(WordList& list) {
  // Gaj's Latin alphabet to Vuk's Cyrillic; digraphs first.
  static const std::pair<std::string_view, std::string_view> kMap[] = {
      {"lj", "љ"}, {"nj", "њ"}, {"dž", "џ"}, {"a", "а"}, {"b", "б"},
      {"c", "ц"},  {"č", "ч"},  {"ć", "ћ"},  {"d", "д"}, {"đ", "ђ"},
      {"e", "е"},  {"f", "ф"},  {"g", "г"},  {"h", "х"}, {"i", "и"},
      {"j", "ј"},  {"k", "к"},  {"l", "л"},  {"m", "м"}, {"n", "н"},
      {"o", "о"},  {"p", "п"},  {"r", "р"},  {"s", "с"}, {"š", "ш"},
      {"t", "т"},  {"u", "у"},  {"v", "в"},  {"z", "з"}, {"ž", "ж"}};
  std::vector<std::pair<std::string, std::uint64_t>> added;
  for (const auto& [word, count] : list.words) {
    if (PieceScript(word) != USCRIPT_LATIN) continue;
    std::string out;
    std::string_view rest = word;
    bool ok = true;
    while (!rest.empty() && ok) {
      ok = false;
      for (const auto& [latin, cyrillic] : kMap) {
        if (rest.substr(0, latin.size()) == latin) {
          out += cyrillic;
          rest.remove_prefix(latin.size());
          ok = true;
          break;
        }
      }
    }
    // Words with letters Serbian does not have (q, w, x, y: foreign names) stay
    // Latin only.
    if (ok) added.emplace_back(std::move(out), count);
  }
  list.words.insert(list.words.end(), added.begin(), added.end());
}

Result<std::string> Build(std::vector<WordList> lists,
                          const BuildParams& params, const Progress& progress) {
  return Build(std::move(lists), {}, params, progress);
}

Result<std::string> Build(std::vector<WordList> lists,
                          std::vector<VariantList> variants,
                          const BuildParams& params, const Progress& progress) {
  auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  if (lists.empty()) return Fail(Error::InvalidArgument("no word lists"));
  // A variant is a language of the file without words: an empty list here,
  // marked as a variant below.
  // A close pair's first language keeps its list and gets the values too.
  std::map<std::string, const VariantList*> variant_of_code, pair_of_code;
  const auto has_list = [&](const std::string& code) {
    return std::any_of(lists.begin(), lists.end(),
                       [&](const WordList& l) { return l.code == code; });
  };
  for (const VariantList& v : variants) {
    if (!ValidCode(v.code))
      return Fail(Error::InvalidArgument("bad language code '" + v.code + "'"));
    const char* what = v.pair ? "pair" : "variant";
    if (variant_of_code.count(v.code) != 0 || pair_of_code.count(v.code) != 0)
      return Fail(Error::InvalidArgument(std::string(what) + " '" + v.code +
                                         "' given twice"));
    (v.pair ? pair_of_code : variant_of_code).emplace(v.code, &v);
    if (!has_list(v.base) && !(v.pair && IsVariant(variants, v.base))) {
      return Fail(Error::InvalidArgument(std::string(what) + " '" + v.code +
                                         "': no list for '" + v.base + "'"));
    }
    if (v.pair) {
      if (!has_list(v.code) || v.code == v.base) {
        return Fail(Error::InvalidArgument("pair '" + v.code + "' with '" +
                                           v.base + "': no list for '" +
                                           v.code + "'"));
      }
      continue;
    }
    lists.push_back(WordList{v.code, {}});
  }
  for (const auto& [code, v] : pair_of_code) {
    if (pair_of_code.count(v->base) != 0) {
      return Fail(Error::InvalidArgument("pair '" + code + "': '" + v->base +
                                         "' is in another pair"));
    }
  }
  if (lists.size() > 255)
    return Fail(Error::InvalidArgument("more than 255 languages"));
  if (!(params.pure_share > 0.5 && params.pure_share <= 1.0) ||
      !(params.min_share >= 0 && params.min_share < 0.5) ||
      params.max_languages == 0) {
    return Fail(
        Error::InvalidArgument("bad parameters: need 0.5 < pure-share <= 1, 0 "
                               "<= min-share < 0.5, max-languages > 0"));
  }
  std::sort(
      lists.begin(), lists.end(),
      [](const WordList& a, const WordList& b) { return a.code < b.code; });
  for (std::size_t i = 0; i < lists.size(); ++i) {
    if (!ValidCode(lists[i].code)) {
      return Fail(
          Error::InvalidArgument("bad language code '" + lists[i].code + "'"));
    }
    if (i > 0 && lists[i].code == lists[i - 1].code) {
      return Fail(Error::InvalidArgument("language '" + lists[i].code +
                                         "' given twice"));
    }
  }

  // Rows (word, language, relative frequency), gathered over all lists.
  struct Row {
    std::string word;
    std::uint32_t language;
    double frequency;
  };
  std::vector<Row> rows;
  std::vector<TrigramRow> trigram_rows;
  std::vector<LetterStats> letters(lists.size());
  std::vector<LanguageRecord> records(lists.size());
  std::vector<std::pair<std::string, std::uint32_t>>
      variant_words;  // key, posting
  // A variant's or a pair's record flag, the other language's index, and its
  // n-grams as the variant tier's postings under language `li`.
  const auto TellApart = [&](std::uint32_t li, const VariantList& v,
                             std::uint32_t flag, LanguageRecord& rec) {
    rec.flags = flag | v.pair_min << internal::kPairMinShift;
    for (std::uint32_t b = 0; b < lists.size(); ++b) {
      if (lists[b].code == v.base) rec.variant_of = b;
    }
    for (const auto& [ngram, value] : v.ngrams) {
      variant_words.emplace_back(
          std::string(1, internal::kVariantPrefix) + ngram,
          internal::EncodePosting(
              li, false,
              static_cast<std::uint32_t>(
                  static_cast<std::int32_t>(internal::kVariantZero) + value)));
    }
  };
  for (std::uint32_t li = 0; li < lists.size(); ++li) {
    WordList& list = lists[li];
    if (const auto v = variant_of_code.find(list.code);
        v != variant_of_code.end()) {
      LanguageRecord& rec = records[li];
      std::memset(&rec, 0, sizeof rec);
      std::memcpy(rec.code, list.code.data(), list.code.size());
      std::memcpy(rec.script, "Latin", 5);
      TellApart(li, *v->second, internal::kLanguageVariant, rec);
      say(list.code + ": a variant of " + v->second->base + ", " +
          std::to_string(v->second->ngrams.size()) + " n-grams");
      continue;
    }
    // Duplicates summed, so that the order of the input does not matter.
    std::sort(list.words.begin(), list.words.end());
    std::vector<std::pair<std::string, std::uint64_t>> merged;
    for (auto& w : list.words) {
      if (!merged.empty() && merged.back().first == w.first) {
        merged.back().second += w.second;
      } else {
        merged.push_back(std::move(w));
      }
    }
    // The list's scripts, weighted by count. Its main script names it; other
    // scripts holding at least 20% (Serbian Cyrillic next to Latin) are kept
    // too, rarer ones (English words in a Russian subtitle list) are noise and
    // dropped.
    std::map<int, std::uint64_t> by_script;
    std::vector<int> scripts(merged.size());
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < merged.size(); ++i) {
      scripts[i] = PieceScript(merged[i].first);
      by_script[scripts[i]] += merged[i].second;
      total += merged[i].second;
    }
    int main_script = USCRIPT_COMMON;
    std::uint64_t main_count = 0;
    for (const auto& [s, c] : by_script) {
      if (c > main_count) main_script = s, main_count = c;
    }
    LanguageRecord& rec = records[li];
    std::memset(&rec, 0, sizeof rec);
    std::memcpy(rec.code, list.code.data(), list.code.size());
    const std::string_view script_name = internal::ScriptName(main_script);
    std::memcpy(rec.script, script_name.data(),
                std::min(script_name.size(), sizeof rec.script - 1));
    if (!internal::DirectLanguage(main_script).empty()) {
      rec.flags = internal::kLanguageScriptDecided;
      say(list.code + ": " + std::string(script_name) +
          " script decides, no words kept");
      continue;
    }
    if (const auto p = pair_of_code.find(list.code); p != pair_of_code.end()) {
      TellApart(li, *p->second, internal::kLanguagePair, rec);
      say(list.code + ": told from " + p->second->base + " by " +
          std::to_string(p->second->ngrams.size()) + " n-grams" +
          (p->second->pair_min == 0
               ? std::string()
               : ", sums of " + std::to_string(p->second->pair_min) +
                     " or more"));
    }
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < merged.size(); ++i) {
      const int s = scripts[i];
      if (s == USCRIPT_COMMON || !internal::DirectLanguage(s).empty()) continue;
      if (s != main_script && by_script[s] * 5 < total) continue;
      if (merged[i].second < params.min_count) continue;
      keep.push_back(i);
    }
    std::stable_sort(keep.begin(), keep.end(),
                     [&](std::size_t a, std::size_t b) {
                       return merged[a].second > merged[b].second;
                     });
    if (params.max_words != 0 && keep.size() > params.max_words)
      keep.resize(params.max_words);
    if (params.ngram_top > 0)
      AddTrigrams(merged, keep, list.inner_trigrams, li, params.ngram_top,
                  trigram_rows);
    letters[li] = CountLetters(merged, keep, scripts);
    for (std::size_t i : keep) {
      rows.push_back(
          {merged[i].first, li,
           static_cast<double>(merged[i].second) / static_cast<double>(total)});
    }
    say(list.code + ": " + std::to_string(keep.size()) + " words (" +
        std::string(script_name) + ")");
  }

  // The n-gram tier: one word per trigram key, with (language, quantised
  // log-probability).
  std::vector<std::pair<std::string, std::uint32_t>>
      ngram_words;  // key, posting
  std::sort(trigram_rows.begin(), trigram_rows.end());
  for (const TrigramRow& r : trigram_rows) {
    const double q = (r.log_p - kNgramFloor) / -kNgramFloor;
    const auto w = static_cast<std::uint32_t>(
        std::lround(std::clamp(q, 0.0, 1.0) * 65535.0));
    ngram_words.emplace_back(
        std::string(1, internal::kNgramPrefix) + r.trigram,
        internal::EncodePosting(r.language, false, std::max(1u, w)));
  }

  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.word != b.word ? a.word < b.word : a.language < b.language;
  });

  // One record per word: its hash and its postings.
  struct Word {
    std::uint64_t hash;
    std::string_view word;
    std::vector<std::uint32_t> postings;
    bool not_a_word = false;  // a trigram, or the letter markers
  };
  std::vector<Word> words;
  std::uint32_t dropped_common = 0;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    double sum = 0;
    while (j < rows.size() && rows[j].word == rows[i].word)
      sum += rows[j].frequency, ++j;
    const std::size_t n = j - i;  // lists that carry the word
    Word w{internal::Hash64(rows[i].word), rows[i].word, {}, false};
    std::size_t best = i;
    for (std::size_t k = i; k < j; ++k) {
      if (rows[k].frequency > rows[best].frequency) best = k;
    }
    // A word one language dominates is its tier-1 word however many lists carry
    // it (the
    // subtitle lists of most languages contain some English). A word spread
    // evenly over more than max_languages languages (the perplexity of its
    // shares, exp(-sum p ln p), is the effective number of languages) is common
    // and evidence for none: "a", "in", names.
    if (n == 1 || rows[best].frequency / sum >= params.pure_share) {
      w.postings.push_back(
          internal::EncodePosting(rows[best].language, true, 0xffff));
    } else if (Perplexity(rows, i, j, sum) > params.max_languages) {
      ++dropped_common;  // kept as a common word: no postings
    } else {
      for (std::size_t k = i; k < j; ++k) {
        const double share = rows[k].frequency / sum;
        if (share < params.min_share) continue;
        const auto q = static_cast<std::uint32_t>(std::lround(share * 65535.0));
        w.postings.push_back(
            internal::EncodePosting(rows[k].language, false, std::max(1u, q)));
      }
    }
    words.push_back(std::move(w));
    i = j;
  }
  // The variant tier joins the n-gram tier's keys (its own key byte): one key
  // per n-gram, one posting per variant.
  std::sort(variant_words.begin(), variant_words.end());
  const std::size_t trigram_words = ngram_words.size();
  ngram_words.insert(ngram_words.end(), variant_words.begin(),
                     variant_words.end());
  std::uint32_t ngram_keys = 0, variant_keys = 0;
  for (std::size_t i = 0; i < ngram_words.size();) {
    Word w{
        internal::Hash64(ngram_words[i].first), ngram_words[i].first, {}, true};
    std::size_t j = i;
    for (;
         j < ngram_words.size() && ngram_words[j].first == ngram_words[i].first;
         ++j) {
      w.postings.push_back(ngram_words[j].second);
    }
    words.push_back(std::move(w));
    ++(i < trigram_words ? ngram_keys : variant_keys);
    i = j;
  }
  const std::string letter_key(1, internal::kLetterKey);
  std::vector<std::uint32_t> letter_postings = LetterMarkers(letters);
  const std::size_t letter_markers = letter_postings.size();
  if (letter_markers > 0) {
    words.push_back({internal::Hash64(letter_key), letter_key,
                     std::move(letter_postings), true});
  }
  std::sort(words.begin(), words.end(), [](const Word& a, const Word& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.word < b.word;
  });

  std::uint32_t bucket_bits = 1;
  while (bucket_bits < 28 &&
         (std::uint64_t{1} << bucket_bits) * 2 < words.size())
    ++bucket_bits;
  const std::uint64_t bucket_count = std::uint64_t{1} << bucket_bits;
  std::vector<Entry> entries;
  std::vector<std::uint32_t> postings;
  std::vector<std::uint32_t> buckets(bucket_count + 1, 0);
  std::uint32_t pure = 0, shared = 0, collisions = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const Word& w = words[i];
    // Two words whose bucket and fingerprint agree cannot be told apart; keep
    // the first.
    if (i > 0 &&
        (words[i - 1].hash >> (64 - bucket_bits)) ==
            (w.hash >> (64 - bucket_bits)) &&
        static_cast<std::uint32_t>(words[i - 1].hash) ==
            static_cast<std::uint32_t>(w.hash)) {
      ++collisions;
      continue;
    }
    Entry e{static_cast<std::uint32_t>(w.hash), 0};
    const bool is_pure =
        w.postings.size() == 1 && (w.postings[0] & internal::kPureBit);
    if (w.postings.empty()) {
      e.payload = internal::kCommonWord;
    } else if (w.postings.size() == 1) {
      e.payload = w.postings[0];
    } else {
      if (postings.size() + w.postings.size() > internal::kMaxPostingIndex ||
          w.postings.size() > internal::kMaxPostings) {
        return Fail(
            Error::InvalidArgument("too many postings for the file format"));
      }
      e.payload = internal::kOutOfLine |
                  static_cast<std::uint32_t>(postings.size()) |
                  (static_cast<std::uint32_t>(w.postings.size()) << 24);
      postings.insert(postings.end(), w.postings.begin(), w.postings.end());
    }
    if (!w.postings.empty() && !w.not_a_word) (is_pure ? pure : shared)++;
    for (std::uint32_t p : w.postings) {
      if (w.not_a_word) break;
      LanguageRecord& rec = records[(p >> 16) & 0xffu];
      ++rec.words;
      if (is_pure) ++rec.pure_words;
    }
    ++buckets[(w.hash >> (64 - bucket_bits)) + 1];
    entries.push_back(e);
  }
  for (std::uint64_t b = 1; b <= bucket_count; ++b)
    buckets[b] += buckets[b - 1];
  say(std::to_string(entries.size()) + " words: " + std::to_string(pure) +
      " tier 1, " + std::to_string(shared) + " tier 2, " +
      std::to_string(dropped_common) + " common words (no language), " +
      std::to_string(collisions) + " hash collisions dropped, " +
      std::to_string(ngram_keys) + " trigrams, " +
      std::to_string(variant_keys) + " variant n-grams, " +
      std::to_string(letter_markers) + " marker letters");

  FileHeader h;
  std::memset(&h, 0, sizeof h);
  std::memcpy(h.magic, internal::kMagic, sizeof h.magic);
  h.version = internal::kVersion;
  h.header_size = sizeof(FileHeader);
  h.language_count = static_cast<std::uint32_t>(records.size());
  h.bucket_bits = bucket_bits;
  h.entry_count = static_cast<std::uint32_t>(entries.size());
  h.posting_count = static_cast<std::uint32_t>(postings.size());
  h.pure_count = pure;
  h.shared_count = shared;
  h.common_count = dropped_common;
  h.ngram_top = params.ngram_top;
  h.ngram_floor_milli = static_cast<std::uint32_t>(-kNgramFloor * 1000);
  h.max_words = params.max_words;
  h.min_count = params.min_count;
  h.max_languages = params.max_languages;
  h.pure_share = params.pure_share;
  h.min_share = params.min_share;
  std::string out(sizeof h, '\0');
  h.languages_offset = out.size();
  Append(out, records.data(), records.size() * sizeof(LanguageRecord));
  PadTo8(out);
  h.buckets_offset = out.size();
  Append(out, buckets.data(), buckets.size() * 4);
  PadTo8(out);
  h.entries_offset = out.size();
  Append(out, entries.data(), entries.size() * sizeof(Entry));
  PadTo8(out);
  h.postings_offset = out.size();
  Append(out, postings.data(), postings.size() * 4);
  PadTo8(out);
  h.file_size = out.size();
  std::memcpy(out.data(), &h, sizeof h);
  h.checksum = internal::FileChecksum(
      reinterpret_cast<const unsigned char*>(out.data()), out.size());
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

}  // namespace mw::langid
