#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "langid/langid.h"
#include "text.h"

namespace mw::langid {
namespace {

// Languages a script decides alone, in a fixed order (slots after the model's
// languages).
constexpr std::array<std::string_view, 24> kDirect = {
    "el", "ka", "hy", "ko", "ja", "zh", "th", "he", "bn", "gu", "pa", "ta",
    "te", "kn", "ml", "or", "si", "km", "lo", "my", "am", "bo", "dv", "mn"};

int DirectSlot(std::string_view code) {
  for (std::size_t i = 0; i < kDirect.size(); ++i) {
    if (kDirect[i] == code) return static_cast<int>(i);
  }
  return -1;
}

struct Tally {
  const Model* model;
  std::size_t languages;                 // model languages; direct slots follow
  std::vector<double> pure;              // Xpure_i
  std::vector<double> shared;            // Xovp_i
  std::vector<std::uint32_t> by_script;  // words per UScriptCode
  std::uint32_t n_pure = 0;
  std::uint32_t n_shared = 0;
  std::uint32_t n_unknown = 0;
  std::uint32_t han = 0;
  std::uint32_t kana = 0;
};

void CountWord(void* context, std::string_view word, int script) {
  auto* t = static_cast<Tally*>(context);
  if (script >= 0 && static_cast<std::size_t>(script) < t->by_script.size()) {
    ++t->by_script[script];
  }
  if (script == USCRIPT_HAN) {
    ++t->han;  // zh or ja: decided once the whole text is seen
    return;
  }
  if (script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA) ++t->kana;
  const std::string_view direct = internal::DirectLanguage(script);
  if (!direct.empty()) {
    t->pure[t->languages + DirectSlot(direct)] += 1;
    ++t->n_pure;
    return;
  }
  const PostingList postings = t->model->Lookup(word);
  if (postings.empty()) {
    ++t->n_unknown;
    return;
  }
  if (postings.size() == 1 && postings[0].pure) {
    t->pure[postings[0].language] += 1;
    ++t->n_pure;
    return;
  }
  for (std::uint32_t i = 0; i < postings.size(); ++i) {
    const Posting p = postings[i];
    t->shared[p.language] += p.weight;
  }
  ++t->n_shared;
}

bool HasC1(std::string_view s) {
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    if (static_cast<unsigned char>(s[i]) == 0xC2) {
      const auto c = static_cast<unsigned char>(s[i + 1]);
      if (c >= 0x80 && c <= 0x9F) return true;
    }
  }
  return false;
}

}  // namespace

std::string MapC1Controls(std::string_view utf8) {
  // windows-1252 0x80-0x9F; empty where the code page leaves the byte
  // undefined.
  static const char* const kCp1252[32] = {
      "€", nullptr, "‚",     "ƒ", "„",     "…",     "†", "‡",     "ˆ", "‰", "Š",
      "‹", "Œ",     nullptr, "Ž", nullptr, nullptr, "‘", "’",     "“", "”", "•",
      "–", "—",     "˜",     "™", "š",     "›",     "œ", nullptr, "ž", "Ÿ"};
  std::string out;
  out.reserve(utf8.size());
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto b = static_cast<unsigned char>(utf8[i]);
    if (b == 0xC2 && i + 1 < utf8.size()) {
      const auto c = static_cast<unsigned char>(utf8[i + 1]);
      if (c >= 0x80 && c <= 0x9F) {
        const char* r = kCp1252[c - 0x80];
        out += r ? r : " ";
        ++i;
        continue;
      }
    }
    out.push_back(static_cast<char>(b));
  }
  return out;
}

std::string_view ScriptLanguage(std::string_view script) {
  const int code =
      u_getPropertyValueEnum(UCHAR_SCRIPT, std::string(script).c_str());
  if (code == UCHAR_INVALID_CODE) return {};
  return internal::DirectLanguage(code);
}

Language Detect(std::string_view text, const Model& model,
                const Options& options) {
  std::string mapped;
  if (HasC1(text)) {
    mapped = MapC1Controls(text);
    text = mapped;
  }
  Tally t;
  t.model = &model;
  t.languages = model.languages().size();
  t.pure.assign(t.languages + kDirect.size(), 0.0);
  t.shared.assign(t.languages + kDirect.size(), 0.0);
  t.by_script.assign(USCRIPT_CODE_LIMIT, 0);
  internal::SegmentWords(text, CountWord, &t);
  if (t.han > 0) {
    // Japanese writes Han with kana; Han alone is Chinese.
    t.pure[t.languages + DirectSlot(t.kana > 0 ? "ja" : "zh")] += t.han;
    t.n_pure += t.han;
  }

  Language result;
  result.words = t.n_pure + t.n_shared + t.n_unknown;
  for (std::size_t s = 0; s < t.by_script.size(); ++s) {
    if (t.by_script[s] != 0) {
      result.scripts.emplace_back(
          std::string(internal::ScriptName(static_cast<int>(s))),
          t.by_script[s]);
    }
  }
  std::stable_sort(
      result.scripts.begin(), result.scripts.end(),
      [](const auto& a, const auto& b) { return a.second > b.second; });
  if (result.words == 0) return result;

  // The decision formula of langid.h.
  const std::size_t n = t.pure.size();
  const double n_words = result.words;
  std::vector<double> raw(n, 0.0);
  double total_shared = 0;  // T
  for (std::size_t i = 0; i < n; ++i) {
    if (t.pure[i] != 0) {
      const double boost = 1.0 + options.k1 * t.pure[i] / n_words;
      raw[i] = t.pure[i] + boost * t.shared[i];
      total_shared += boost * t.shared[i];
    } else {
      raw[i] = options.k2 * t.shared[i];
      total_shared += options.k2 * t.shared[i];
    }
  }
  const double denominator =
      t.n_pure + total_shared + options.k_unknown * t.n_unknown;
  if (denominator <= 0) return result;
  std::size_t best = n, second = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (raw[i] <= 0) continue;
    if (best == n || raw[i] > raw[best]) {
      second = best;
      best = i;
    } else if (second == n || raw[i] > raw[second]) {
      second = i;
    }
  }
  auto code_of = [&](std::size_t i) {
    return std::string(i < t.languages
                           ? std::string_view(model.languages()[i].code)
                           : kDirect[i - t.languages]);
  };
  if (best == n) return result;
  result.best = code_of(best);
  result.score = 100.0 * raw[best] / denominator;
  if (second != n) {
    result.second = code_of(second);
    result.second_score = 100.0 * raw[second] / denominator;
  }
  if (result.words < options.min_words) return result;
  if (result.score >= options.min_score) {
    result.code = result.best;
  } else if (second != n &&
             result.score + result.second_score >= options.min_score &&
             result.second_score >= options.bilingual_min_score) {
    result.code = result.best + "+" + result.second;
    result.bilingual = true;
  }
  return result;
}

}  // namespace mw::langid
