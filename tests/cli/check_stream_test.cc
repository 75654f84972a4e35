// `mailwave check` end to end on a stream of real mail: ham of the dev corpus
// interleaved with waves of near-duplicates (mw::variants' mutation classes),
// one process per message as the mail arrives, then a restart.
//
// The messages are chosen without the fingerprint methods (distinct
// normalised Subject and distinct sender, with a fixed seed), so that a ham
// tagged as a duplicate is a failure of the method, not of the choice: the
// ham false positives store_eval finds (docs/store.md) are short mails of one
// sender, which distinct senders leave out.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "mime/message.h"
#include "variants/variants.h"

namespace {

namespace fs = std::filesystem;
namespace mv = mw::variants;
using nlohmann::json;

constexpr std::uint64_t kSeed = 20261124;
constexpr std::size_t kHams = 40;
constexpr std::size_t kWaves = 6;
constexpr std::size_t kVariants = 6;         // per wave, after its base
constexpr std::int64_t kStart = 1795320000;  // 2026-11-22T04:00:00Z
constexpr std::int64_t kStep = 30;           // seconds between arrivals

// The classes whose pairwise recall is 1.000 in docs/fingerprint.md; the
// others (large inserts, a token per line, footers) miss a few pairs in a
// hundred, which store_eval measures, and are not asserted message by
// message here.
const std::set<std::string> kClasses = {
    "insert  1% one place",    "insert  1% scattered",   "insert  5% one place",
    "insert  5% scattered",    "personal greeting only", "greeting + URL query",
    "shuffled sentences",      "re-encoded base64",      "re-encoded QP",
    "utf-8 vs legacy charset", "plain vs html"};

// A directory under /tmp removed with everything in it at destruction.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/mw-check-stream-XXXXXX";
    const char* d = mkdtemp(tmpl);
    path_ = d ? d : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs `mailwave ARGS` through the shell (ARGS: paths this test made) and
// returns the JSON objects it printed, one per line.
std::vector<json> Check(const std::string& args, std::string* output) {
  const std::string cmd =
      std::string(MW_BINARY_DIR) + "/bin/mailwave " + args + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return {};
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    out.append(buf.data(), n);
  const int st = pclose(p);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << cmd << "\n" << out;
  std::vector<json> lines;
  std::size_t i = 0;
  while (i < out.size()) {
    std::size_t e = out.find('\n', i);
    if (e == std::string::npos) e = out.size();
    const std::string line = out.substr(i, e - i);
    i = e + 1;
    if (line.empty() || line[0] != '{') continue;
    json j = json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << line;
    if (!j.is_discarded()) lines.push_back(std::move(j));
  }
  if (output != nullptr) *output = out;
  return lines;
}

std::string WaveHeader(const json& j) {
  for (const auto& h : j.at("headers")) {
    const std::string s = h.get<std::string>();
    if (s.rfind("X-Mailwave-Wave: ", 0) == 0) return s;
  }
  return "";
}

// The Subject as people read it: normalised, without reply and forward
// prefixes or list tags.
std::string SubjectKey(const std::string& subject) {
  std::string s = mw::mime::NormaliseText(subject);
  for (bool again = true; again;) {
    again = false;
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s[0])))
      s.erase(0, 1);
    for (const char* prefix : {"re:", "fw:", "fwd:", "aw:"}) {
      const std::string p = prefix;
      if (s.rfind(p, 0) == 0) {
        s.erase(0, p.size());
        again = true;
      }
    }
    if (!s.empty() && s[0] == '[') {
      const std::size_t e = s.find(']');
      if (e != std::string::npos) {
        s.erase(0, e + 1);
        again = true;
      }
    }
  }
  std::string out;
  for (const char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

struct Entry {
  std::string file;  // name in the temp dir
  int wave = -1;     // -1: ham
  std::size_t member = 0;
  std::string what;  // corpus name, or the class of a variant
};

TEST(CheckStream, WavesJoinOneClusterAndHamStaysUntagged) {
  const fs::path corpus_dir = mv::DefaultCorpusDir(MW_SOURCE_DIR);
  if (!fs::is_directory(corpus_dir)) {
    GTEST_SKIP() << "no dev corpus at " << corpus_dir.string()
                 << " (MW_SOURCE_DIR/../shared/data/mail); nothing to stream";
  }
  mw::mime::Init();
  const mv::Corpus corpus = mv::ReadCorpus(corpus_dir);
  std::map<std::string, const mv::Doc*> by_name;
  for (const mv::Doc& d : corpus.docs) by_name[d.name] = &d;

  // Ham and wave bases from sa_easy_ham*, one shuffled stream: each message
  // kept only with a Subject and a sender no kept message has.
  std::vector<std::string> names;
  for (const mv::Doc& d : corpus.docs) {
    if (d.name.rfind("sa_easy_ham", 0) == 0 && d.body.size() >= 200 &&
        d.body.size() <= (16u << 10)) {
      names.push_back(d.name);
    }
  }
  std::mt19937_64 rng(kSeed);
  std::shuffle(names.begin(), names.end(), rng);
  std::set<std::string> subjects, senders;
  std::vector<std::string> hams, bases;
  for (const std::string& name : names) {
    if (hams.size() >= kHams && bases.size() >= kWaves) break;
    auto m = mw::mime::Parse(std::string_view(corpus.raw.at(name)),
                             mw::mime::Limits{});
    if (!m || m->from.empty()) continue;
    const std::string subject = SubjectKey(m->subject);
    std::string sender = m->from;
    for (char& c : sender)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (subject.empty() || subjects.count(subject) || senders.count(sender))
      continue;
    subjects.insert(subject);
    senders.insert(sender);
    // Bases want some text to mutate: at least 500 bytes.
    if (bases.size() < kWaves && by_name.at(name)->body.size() >= 500) {
      bases.push_back(name);
    } else if (hams.size() < kHams) {
      hams.push_back(name);
    }
  }
  ASSERT_EQ(hams.size(), kHams);
  ASSERT_EQ(bases.size(), kWaves);

  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const fs::path config = tmp.path() / "mailwave.toml";
  std::ofstream(config) << "# check_stream_test\n[wave]\nmin_size = 5\n";
  const fs::path db = tmp.path() / "w.db";
  const auto write = [&](const std::string& file, const std::string& bytes) {
    std::ofstream(tmp.path() / file, std::ios::binary) << bytes;
  };

  // Each wave: its base, then one variant per class, each class drawn at most
  // once per wave; one more variant for the restart.
  const std::vector<mv::Class> classes = mv::Classes(corpus.raw);
  std::vector<std::vector<std::pair<std::string, std::string>>> waves(kWaves);
  for (std::size_t b = 0; b < kWaves; ++b) {
    const mv::Doc& base = *by_name.at(bases[b]);
    std::vector<const mv::Class*> pool;
    for (const mv::Class& c : classes) {
      if (kClasses.count(c.name)) pool.push_back(&c);
    }
    ASSERT_EQ(pool.size(), kClasses.size());
    std::mt19937_64 wave_rng(kSeed + b);
    std::shuffle(pool.begin(), pool.end(), wave_rng);
    waves[b].emplace_back("base " + base.name, base.decoded);
    for (std::size_t k = 0; k < kVariants + 1; ++k) {
      mv::Pair p = pool[k]->make(base, corpus.docs, wave_rng);
      waves[b].emplace_back(pool[k]->name, std::move(p.right));
    }
  }
  const auto build = [&](std::size_t b, std::size_t k) {
    mv::Headers h;
    const std::string tag = "w" + std::to_string(b) + "m" + std::to_string(k);
    h.from = "Sender " + tag + " <" + tag + "@mailer" + std::to_string(k) +
             ".example>";
    h.return_path =
        "<bounce-" + tag + "@mailer" + std::to_string(k) + ".example>";
    h.subject = "wave " + std::to_string(b);
    h.message_id = "<" + tag + "." + std::to_string(kSeed) + "@example.com>";
    return mv::BuildMessage(waves[b][k].second, h);
  };

  // The stream: hams and wave members interleaved in a fixed random order,
  // each wave's members in order (base first).
  std::vector<int> slots(kHams, -1);
  for (std::size_t b = 0; b < kWaves; ++b)
    slots.insert(slots.end(), kVariants + 1, static_cast<int>(b));
  std::shuffle(slots.begin(), slots.end(), rng);
  std::vector<Entry> stream;
  std::size_t next_ham = 0;
  std::vector<std::size_t> next_member(kWaves, 0);
  for (const int s : slots) {
    Entry e;
    e.file = "m" + std::to_string(stream.size());
    e.wave = s;
    if (s < 0) {
      e.what = hams[next_ham++];
      write(e.file, corpus.raw.at(e.what));
    } else {
      const auto b = static_cast<std::size_t>(s);
      e.member = next_member[b]++;
      e.what = waves[b][e.member].first;
      write(e.file, build(b, e.member));
    }
    stream.push_back(e);
  }

  const std::string common = "-c " + config.string() +
                             " check --json --store " + db.string() + " --now ";
  std::vector<std::string> cluster(kWaves);
  std::vector<std::uint64_t> size(kWaves, 0);
  std::map<std::string, std::string> started_by;  // cluster -> entry
  for (std::size_t i = 0; i < stream.size(); ++i) {
    const Entry& e = stream[i];
    const std::string now =
        std::to_string(kStart + static_cast<std::int64_t>(i) * kStep);
    std::string out;
    const std::vector<json> r =
        Check(common + now + " " + (tmp.path() / e.file).string(), &out);
    ASSERT_EQ(r.size(), 1u) << out;
    const json& j = r[0];
    const std::string header = WaveHeader(j);
    const std::string c = j.at("cluster").is_string()
                              ? j.at("cluster").get<std::string>()
                              : std::string();
    const std::string label =
        e.file + " (" +
        (e.wave < 0 ? "ham "
                    : "wave " + std::to_string(e.wave) + " member " +
                          std::to_string(e.member) + ", ") +
        e.what + ")";
    if (header.empty() && !c.empty()) started_by.emplace(c, label);
    if (e.wave < 0) {
      EXPECT_EQ(header, "")
          << label << " was tagged; it joined the cluster " << c
          << " started by " << (started_by.count(c) ? started_by[c] : "?");
      continue;
    }
    const auto b = static_cast<std::size_t>(e.wave);
    if (e.member == 0) {
      EXPECT_EQ(header, "") << label << " joined the cluster started by "
                            << (started_by.count(c) ? started_by[c] : "?");
      cluster[b] = c;
      size[b] = j.at("size").get<std::uint64_t>();
      EXPECT_EQ(size[b], 1u) << label;
      continue;
    }
    EXPECT_NE(header, "") << label << " was not found a duplicate";
    EXPECT_EQ(c, cluster[b]) << label << ": " << header;
    const auto sz = j.at("size").get<std::uint64_t>();
    EXPECT_EQ(sz, size[b] + 1) << label << ": " << header;
    size[b] = sz;
    const bool wave = e.member + 1 >= 5;
    EXPECT_EQ(j.at("wave").get<bool>(), wave) << label << ": " << header;
    EXPECT_NE(header.find(wave ? "; wave=yes" : "; wave=no"), std::string::npos)
        << label << ": " << header;
  }

  // Restart: a new process, one more variant of each wave at once.
  std::string files;
  for (std::size_t b = 0; b < kWaves; ++b) {
    const std::string file = "restart" + std::to_string(b);
    write(file, build(b, kVariants + 1));
    files += " " + (tmp.path() / file).string();
  }
  const std::string now =
      std::to_string(kStart + static_cast<std::int64_t>(stream.size()) * kStep);
  std::string out;
  const std::vector<json> r = Check(common + now + files, &out);
  ASSERT_EQ(r.size(), kWaves) << out;
  for (std::size_t b = 0; b < kWaves; ++b) {
    const std::string label = "restart, wave " + std::to_string(b) + " (" +
                              waves[b].back().first + ")";
    EXPECT_EQ(r[b].at("cluster"), cluster[b])
        << label << ": " << WaveHeader(r[b]);
    EXPECT_EQ(r[b].at("size").get<std::uint64_t>(), size[b] + 1) << label;
    EXPECT_TRUE(r[b].at("wave").get<bool>()) << label;
  }
}

}  // namespace
