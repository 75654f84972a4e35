// Helpers shared by the store tests: a temporary directory and synthetic mail
// bodies whose fingerprints are real (fingerprint::Compute).
#ifndef MW_TESTS_STORE_TEST_UTIL_H_
#define MW_TESTS_STORE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "fingerprint/fingerprint.h"
#include "store/store.h"

namespace mw::store::testing {

// A directory under /tmp, removed with everything in it when it goes.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/mw-store-test-XXXXXX";
    const char* made = ::mkdtemp(name);
    EXPECT_NE(made, nullptr);
    path_ = made != nullptr ? made : "/tmp";
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Sentences of words drawn from a fixed vocabulary by a seeded generator: the
// same seed, the same text.
inline std::string Sentence(std::mt19937_64& rng) {
  static const char* const kWords[] = {
      "offer",   "price",    "account",    "money",   "today",      "limited",
      "free",    "winner",   "claim",      "bank",    "transfer",   "urgent",
      "reply",   "details",  "secure",     "private", "business",   "partner",
      "million", "dollars",  "investment", "profit",  "guaranteed", "click",
      "link",    "below",    "order",      "now",     "save",       "discount",
      "product", "quality",  "customer",   "service", "support",    "team",
      "update",  "password", "verify",     "login",   "please",     "kindly",
      "contact", "office",   "meeting",    "report",  "project",    "deadline",
      "weekend", "family",   "holiday",    "travel",  "ticket",     "hotel",
      "market",  "shares",   "stock",      "growth",  "returns",    "capital"};
  constexpr std::size_t kCount = sizeof(kWords) / sizeof(kWords[0]);
  const std::size_t n = 8 + rng() % 10;
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) s += ' ';
    s += kWords[rng() % kCount];
  }
  s += ".";
  return s;
}

// A body of `sentences` sentences, five to a paragraph.
inline std::string Body(std::uint64_t seed, int sentences) {
  std::mt19937_64 rng(seed);
  std::string text;
  for (int i = 0; i < sentences; ++i) {
    text += Sentence(rng);
    text += (i % 5 == 4) ? "\n\n" : " ";
  }
  return text;
}

// `body` with its `which`-th sentence (counting from 0) replaced.
inline std::string EditSentence(const std::string& body, int which,
                                std::uint64_t seed) {
  std::size_t start = 0;
  for (int i = 0; i < which; ++i) start = body.find('.', start) + 1;
  while (start < body.size() && (body[start] == ' ' || body[start] == '\n')) {
    ++start;
  }
  const std::size_t end = body.find('.', start);
  std::mt19937_64 rng(seed);
  return body.substr(0, start) + Sentence(rng) + body.substr(end + 1);
}

inline Message MessageOf(const std::string& body, UnixMillis arrival,
                         const std::string& sender = "a@example.com") {
  Message m;
  m.fingerprint = fingerprint::Compute(body, fingerprint::Options{});
  m.arrival = arrival;
  m.queue_id = "Q" + std::to_string(arrival);
  m.message_id = "<" + std::to_string(arrival) + "@example.com>";
  m.sender = sender;
  m.language = "en";
  m.size = body.size() + 500;
  return m;
}

}  // namespace mw::store::testing

#endif  // MW_TESTS_STORE_TEST_UTIL_H_
