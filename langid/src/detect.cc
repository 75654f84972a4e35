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
  std::uint32_t n_common = 0;
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
  if (postings.common()) {
    ++t->n_common;
    return;
  }
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

std::string_view CandidateCode(const Model& model, std::size_t i) {
  const std::size_t n = model.languages().size();
  if (i < n) return model.languages()[i].code;
  return i - n < kDirect.size() ? kDirect[i - n] : std::string_view();
}

Evidence Collect(std::string_view text, const Model& model) {
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
  Evidence e;
  e.pure = std::move(t.pure);
  e.shared = std::move(t.shared);
  e.n_pure = t.n_pure;
  e.n_shared = t.n_shared;
  e.n_unknown = t.n_unknown;
  e.n_common = t.n_common;
  for (std::size_t s = 0; s < t.by_script.size(); ++s) {
    if (t.by_script[s] != 0) {
      e.scripts.emplace_back(
          std::string(internal::ScriptName(static_cast<int>(s))),
          t.by_script[s]);
    }
  }
  std::stable_sort(
      e.scripts.begin(), e.scripts.end(),
      [](const auto& a, const auto& b) { return a.second > b.second; });
  return e;
}

Language Decide(const Evidence& e, const Model& model, const Options& options) {
  Language result;
  result.words = e.n_pure + e.n_shared + e.n_unknown + e.n_common;
  result.scripts = e.scripts;
  const double n_words =
      e.n_pure + e.n_shared + e.n_unknown;  // N_w: common words excluded
  if (n_words == 0) return result;

  // The decision formula of langid.h.
  const std::size_t n = std::min(e.pure.size(), e.shared.size());
  double total_shared = 0;  // T
  auto raw = [&](std::size_t i) {
    if (e.pure[i] != 0) {
      const double boost = 1.0 + options.k1 * e.pure[i] / n_words;
      return e.pure[i] + boost * e.shared[i];
    }
    return options.k2 * e.shared[i];
  };
  for (std::size_t i = 0; i < n; ++i) total_shared += raw(i) - e.pure[i];
  const double denominator =
      e.n_pure + total_shared + options.k_unknown * e.n_unknown;
  if (denominator <= 0) return result;
  std::size_t best = n, second = n;
  double best_raw = 0, second_raw = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = raw(i);
    if (r <= 0) continue;
    if (best == n || r > best_raw) {
      second = best, second_raw = best_raw;
      best = i, best_raw = r;
    } else if (second == n || r > second_raw) {
      second = i, second_raw = r;
    }
  }
  if (best == n) return result;
  result.best = std::string(CandidateCode(model, best));
  result.score = 100.0 * best_raw / denominator;
  if (second != n) {
    result.second = std::string(CandidateCode(model, second));
    result.second_score = 100.0 * second_raw / denominator;
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

Language Detect(std::string_view text, const Model& model,
                const Options& options) {
  return Decide(Collect(text, model), model, options);
}

}  // namespace mw::langid
