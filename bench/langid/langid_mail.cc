// langid_mail: mw::langid on real mail. Of the messages of the development
// mail corpus (shared/data/mail, or MW_MAIL_DIR) whose text has at least 30
// words and which CLD2 reliably calls English, the share mailwave names "en"
// with the default thresholds, reading each file as `mailwave langid` does
// (a message, whatever its name) and as plain text (`--text`: headers and
// MIME structure included), and what it says on the others. Also the Chinese
// script named on the messages whose MIME parts declare a Big5 charset
// (traditional) or a GB one (GB2312, GBK, GB18030: simplified) and whose
// verdict names Chinese: the senders' labels, independent of the detector
// (and not always right: a GB2312 message can be traditional).
//
//   langid_mail [--dict FILE] [--show N] [--list FILE]
//
// --show N prints the first N messages not named "en" when read as messages;
// --list FILE writes the paths of the messages counted, one a line (to run
// another build of `mailwave langid` on the same messages).
// Exits 0 with a notice when the corpus is absent.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "langid/langid.h"
#include "langid/model.h"
#include "mime/message.h"
#include "pipeline/analysis.h"
#include "pipeline/options.h"

#ifdef MW_HAVE_CLD2
#include <cld2/public/compact_lang_det.h>
#endif

namespace {

namespace fs = std::filesystem;

// CLD2's verdict on `text` when it is reliable, else empty.
std::string ReliableCld2(const std::string& text) {
#ifdef MW_HAVE_CLD2
  bool reliable = false;
  int valid = 0;
  const CLD2::Language l = CLD2::DetectLanguageCheckUTF8(
      text.data(), static_cast<int>(text.size()), true, &reliable, &valid);
  return reliable ? std::string(CLD2::LanguageCode(l)) : std::string();
#else
  (void)text;
  return {};
#endif
}

// The Chinese script `bytes` declare in a charset parameter: "Hant" for Big5,
// "Hans" for the GB charsets, empty for none (or both).
std::string DeclaredChineseScript(const std::string& bytes) {
  std::string lower(bytes);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  bool big5 = false, gb = false;
  for (std::size_t p = lower.find("charset="); p != std::string::npos;
       p = lower.find("charset=", p + 1)) {
    std::size_t v = p + 8;
    if (v < lower.size() && (lower[v] == '"' || lower[v] == '\'')) ++v;
    big5 |= lower.compare(v, 4, "big5") == 0;
    gb |= lower.compare(v, 2, "gb") == 0;
  }
  if (big5 == gb) return {};
  return big5 ? "Hant" : "Hans";
}

}  // namespace

int main(int argc, char** argv) {
  std::string dict = MW_BINARY_DIR "/share/mailwave/langid.dict";
  int show = 0;
  std::string list_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dict" && i + 1 < argc) {
      dict = argv[++i];
    } else if (a == "--show" && i + 1 < argc) {
      show = std::stoi(argv[++i]);
    } else if (a == "--list" && i + 1 < argc) {
      list_path = argv[++i];
    } else {
      std::fprintf(
          stderr,
          "usage: langid_mail [--dict FILE] [--show N] [--list FILE]\n");
      return 2;
    }
  }
#ifndef MW_HAVE_CLD2
  std::printf("langid_mail: SKIPPED: built without CLD2 (libcld2-dev)\n");
  return 0;
#endif
  const char* env = std::getenv("MW_MAIL_DIR");
  const fs::path dir =
      env ? fs::path(env) : fs::path(MW_SOURCE_DIR) / ".." / "shared/data/mail";
  if (!fs::is_directory(dir)) {
    std::printf("langid_mail: SKIPPED: no mail corpus at %s\n",
                dir.string().c_str());
    return 0;
  }
  auto model = mw::langid::Model::Open(dict);
  if (!model) {
    std::fprintf(stderr, "langid_mail: %s\n", model.error().message().c_str());
    return 1;
  }
  mw::mime::Init();
  const mw::config::Settings settings;
  const mw::mime::Limits limits = mw::pipeline::MimeLimits(settings.mime);
  const mw::langid::Options options =
      mw::pipeline::LangidOptions(settings.langid);

  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "SOURCE.txt")
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::size_t english = 0, as_message = 0, as_text = 0;
  std::map<std::string, int> message_other, text_other;
  // Declared script -> verdicts on the messages naming Chinese.
  std::map<std::string, std::map<std::string, int>> chinese;
  std::ofstream list;
  if (!list_path.empty()) list.open(list_path);
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    auto message = mw::pipeline::ToText(bytes, false, limits);
    if (!message) continue;
    const std::string text = mw::pipeline::LanguageText(*message);
    const mw::langid::Language m = mw::langid::Detect(text, *model, options);
    const std::string declared = DeclaredChineseScript(bytes);
    if (!declared.empty() && m.code.find("zh") != std::string::npos) {
      ++chinese[declared][m.code];
      if (show > 0 && m.code.find("zh-" + declared) == std::string::npos) {
        std::printf("%s: declared %s, named %s\n", f.string().c_str(),
                    declared.c_str(), m.code.c_str());
      }
    }
    if (m.words < 30 || ReliableCld2(text) != "en") continue;
    ++english;
    if (list.is_open()) list << f.string() << '\n';
    auto plain = mw::pipeline::ToText(bytes, true, limits);
    const mw::langid::Language t =
        plain ? mw::langid::Detect(plain->body, *model, options)
              : mw::langid::Language();
    as_message += m.code == "en";
    as_text += t.code == "en";
    if (m.code != "en") {
      ++message_other[m.bilingual ? "bilingual" : m.code];
      if (show > 0) {
        --show;
        std::printf(
            "%s: %s (best %s %.1f, partner %s, second %s %.1f), %u "
            "words\n",
            f.string().c_str(), m.code.c_str(), m.best.c_str(), m.score,
            m.partner.c_str(), m.second.c_str(), m.second_score, m.words);
      }
    }
    if (t.code != "en") ++text_other[t.bilingual ? "bilingual" : t.code];
  }
  auto pct = [&](std::size_t k) { return english ? 100.0 * k / english : 0.0; };
  std::printf(
      "langid_mail: %zu messages of %s with 30 or more words that CLD2 "
      "reliably calls English\n"
      "  read as messages (mailwave langid FILE): en %.2f%% (%zu)\n"
      "  read as plain text (mailwave langid --text FILE): en %.2f%% (%zu)\n",
      english, dir.string().c_str(), pct(as_message), as_message, pct(as_text),
      as_text);
  for (const auto* other : {&message_other, &text_other}) {
    std::printf("  %s, not en:", other == &message_other ? "messages" : "text");
    for (const auto& [code, k] : *other) std::printf(" %s %d", code.c_str(), k);
    std::printf("\n");
  }
  std::printf(
      "Chinese script on messages naming Chinese, by the charset they "
      "declare:\n");
  for (const auto& [declared, said] : chinese) {
    int total = 0, right = 0;
    for (const auto& [code, k] : said) {
      total += k;
      if (code.find("zh-" + declared) != std::string::npos) right += k;
    }
    std::printf("  %s (%s): %d messages, zh-%s named on %d (%.0f%%):",
                declared == "Hant" ? "Big5" : "GB2312/GBK/GB18030",
                declared.c_str(), total, declared.c_str(), right,
                total ? 100.0 * right / total : 0.0);
    for (const auto& [code, k] : said) std::printf(" %s %d", code.c_str(), k);
    std::printf("\n");
  }
  return 0;
}
