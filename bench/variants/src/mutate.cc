// Text mutations of a decoded text (variants.h).
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "variants/variants.h"

namespace mw::variants {

namespace {

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

}  // namespace

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

namespace {

std::string RandomToken(std::mt19937_64& rng) {
  static constexpr char kAlnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string t;
  const std::size_t len = 6 + rng() % 7;
  for (std::size_t k = 0; k < len; ++k) t.push_back(kAlnum[rng() % 36]);
  return t;
}

}  // namespace

std::string TokenPerLine(const std::string& decoded, std::mt19937_64& rng) {
  std::vector<std::string> lines = Lines(decoded);
  for (auto& l : lines) {
    if (!l.empty()) l += " " + RandomToken(rng);
  }
  return Join(lines);
}

std::string LettersPerLine(const std::string& decoded, std::mt19937_64& rng) {
  std::vector<std::string> lines = Lines(decoded);
  for (auto& l : lines) {
    if (l.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::size_t len = 6 + rng() % 5;
    std::string token;
    for (std::size_t k = 0; k < len; ++k) {
      token += static_cast<char>('a' + rng() % 26);
    }
    l += " " + token;
  }
  return Join(lines);
}

namespace {

std::string BusterToken(const BusterShape& shape, std::mt19937_64& rng) {
  static constexpr char kConsonants[] = "bcdfghjklmnprstvwz";
  static constexpr char kVowels[] = "aeiou";
  const std::size_t len =
      shape.min_len + rng() % (shape.max_len - shape.min_len + 1);
  std::string t;
  while (t.size() < len) {
    if (shape.syllables) {
      t.push_back(kConsonants[rng() % (sizeof kConsonants - 1)]);
      if (t.size() < len) t.push_back(kVowels[rng() % (sizeof kVowels - 1)]);
    } else {
      t.push_back(static_cast<char>('a' + rng() % 26));
    }
  }
  using Case = BusterShape::Case;
  for (std::size_t k = 0; k < t.size(); ++k) {
    const bool upper = shape.letter_case == Case::kUpper ||
                       (shape.letter_case == Case::kCapitalised && k == 0) ||
                       (shape.letter_case == Case::kMixed && rng() % 2 == 0);
    if (upper) t[k] = static_cast<char>(t[k] - 'a' + 'A');
  }
  return t;
}

}  // namespace

std::string Busters(const std::string& decoded, const BusterShape& shape,
                    std::mt19937_64& rng) {
  using Where = BusterShape::Where;
  std::vector<std::string> lines = Lines(decoded);
  for (auto& l : lines) {
    if (l.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (static_cast<double>(rng() % 10000) >= shape.share * 10000) continue;
    const std::string token = BusterToken(shape, rng);
    // The spaces between words, where a token can go in the middle.
    std::vector<std::size_t> gaps;
    for (std::size_t i = 1; i + 1 < l.size(); ++i) {
      if (l[i] == ' ' && l[i - 1] != ' ' && l[i + 1] != ' ') gaps.push_back(i);
    }
    Where where = shape.where;
    if (where == Where::kAnywhere) {
      const std::size_t pick = rng() % 3;
      where = pick == 0   ? Where::kStart
              : pick == 1 ? Where::kMiddle
                          : Where::kEnd;
    }
    if (where == Where::kMiddle && gaps.empty()) where = Where::kEnd;
    switch (where) {
      case Where::kStart:
        l = token + " " + l;
        break;
      case Where::kMiddle: {
        const std::size_t at = gaps[rng() % gaps.size()];
        l.insert(at, " " + token);
        break;
      }
      default:
        l += " " + token;
    }
  }
  return Join(lines);
}

namespace {

// The words (runs of ASCII letters) of the corpus texts, each as often as it
// occurs, so that a draw follows the corpus's word frequencies.
std::vector<std::string> Vocabulary(const std::vector<Doc>& corpus,
                                    std::mt19937_64& rng) {
  std::vector<std::string> words;
  for (int k = 0; k < 40 && words.size() < 50000; ++k) {
    const std::string& t = corpus[rng() % corpus.size()].decoded;
    std::size_t i = 0;
    while (i < t.size()) {
      while (i < t.size() && !std::isalpha(static_cast<unsigned char>(t[i])))
        ++i;
      std::size_t e = i;
      while (e < t.size() && std::isalpha(static_cast<unsigned char>(t[e])))
        ++e;
      if (e - i >= 2 && e - i <= 12) words.emplace_back(t.substr(i, e - i));
      i = e;
    }
  }
  if (words.empty()) words.emplace_back("word");
  return words;
}

}  // namespace

std::string Spin(const std::string& decoded, double share,
                 const std::vector<Doc>& corpus, std::mt19937_64& rng) {
  const std::vector<std::string> vocabulary = Vocabulary(corpus, rng);
  // Word spans of the text: runs of letters (with inner apostrophes).
  struct Span {
    std::size_t begin, end;
  };
  std::vector<Span> words;
  for (std::size_t i = 0; i < decoded.size();) {
    if (!std::isalpha(static_cast<unsigned char>(decoded[i]))) {
      ++i;
      continue;
    }
    std::size_t e = i;
    while (e < decoded.size() &&
           (std::isalpha(static_cast<unsigned char>(decoded[e])) ||
            (decoded[e] == '\'' && e + 1 < decoded.size() &&
             std::isalpha(static_cast<unsigned char>(decoded[e + 1])))))
      ++e;
    words.push_back({i, e});
    i = e;
  }
  // Slots: phrases of one to three words, drawn until `share` of the words
  // are in one; each copy puts another phrase of one to three words, drawn
  // from the vocabulary, in every slot (a spintax {a|b|c} with the base's
  // choice never repeated).
  std::vector<bool> taken(words.size(), false);
  std::vector<std::pair<std::size_t, std::size_t>> slots;  // [first, last]
  const std::size_t want =
      static_cast<std::size_t>(share * static_cast<double>(words.size()) + 0.5);
  std::size_t covered = 0;
  for (std::size_t tries = 0; covered < want && tries < 20 * words.size() + 20;
       ++tries) {
    const std::size_t first = rng() % words.size();
    const std::size_t len = std::min<std::size_t>(
        1 + rng() % 3, std::min(want - covered, words.size() - first));
    bool free = true;
    for (std::size_t k = first; k < first + len; ++k) free = free && !taken[k];
    // Keep slots apart by a word so that two never fuse into one longer one.
    if (!free || (first > 0 && taken[first - 1]) ||
        (first + len < words.size() && taken[first + len]))
      continue;
    for (std::size_t k = first; k < first + len; ++k) taken[k] = true;
    slots.emplace_back(first, first + len - 1);
    covered += len;
  }
  std::sort(slots.begin(), slots.end());
  std::string out;
  std::size_t at = 0;
  for (const auto& [first, last] : slots) {
    out.append(decoded, at, words[first].begin - at);
    const std::size_t n = 1 + rng() % 3;
    for (std::size_t k = 0; k < n; ++k) {
      if (k) out += ' ';
      out += vocabulary[rng() % vocabulary.size()];
    }
    at = words[last].end;
  }
  out.append(decoded, at);
  return out;
}

namespace {

constexpr const char* kFirst[] = {"John",  "Maria",  "Wei",     "Fatima",
                                  "Olga",  "Pierre", "Anna",    "Rahul",
                                  "Kenji", "Laura",  "Mohamed", "Sarah"};
constexpr const char* kLast[] = {"Smith",   "Garcia", "Chen",  "Khan",
                                 "Ivanova", "Dubois", "Rossi", "Patel",
                                 "Tanaka",  "Miller"};

}  // namespace

std::string Greet(const std::string& decoded, std::mt19937_64& rng) {
  return std::string("Dear ") + kFirst[rng() % std::size(kFirst)] + " " +
         kLast[rng() % std::size(kLast)] + ",\n\n" + decoded;
}

std::string Personalise(const std::string& decoded, std::mt19937_64& rng,
                        int name_mentions) {
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
  if (name_mentions > 0) {
    // "First, " at the start of paragraphs of the text (after the greeting's
    // own blank line), drawn at random.
    std::vector<std::size_t> starts;
    const std::size_t body = out.find("\n\n") + 2;
    for (std::size_t p = out.find("\n\n", body); p != std::string::npos;
         p = out.find("\n\n", p + 2)) {
      if (p + 2 < out.size() && out[p + 2] != '\n') starts.push_back(p + 2);
    }
    if (body < out.size()) starts.push_back(body);
    std::shuffle(starts.begin(), starts.end(), rng);
    starts.resize(
        std::min(starts.size(), static_cast<std::size_t>(name_mentions)));
    std::sort(starts.rbegin(), starts.rend());
    for (const std::size_t at : starts) out.insert(at, first + ", ");
  }
  out += "\nYour subscriber id: " + id +
         ". Manage: http://lists.example.com/prefs" + query + "\n";
  return out;
}

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

std::string AddFooter(const std::string& decoded, std::mt19937_64& rng) {
  return decoded + kFooters[rng() % std::size(kFooters)];
}

}  // namespace mw::variants
