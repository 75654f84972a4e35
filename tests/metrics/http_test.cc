#include "metrics/src/http.h"

#include <gtest/gtest.h>

#include <string>

namespace mw::metrics::internal {
namespace {

std::string Body() { return "x 1\n"; }

TEST(HeadLength, WaitsForTheBlankLine) {
  EXPECT_EQ(HeadLength(""), 0u);
  EXPECT_EQ(HeadLength("GET /metrics HTTP/1.1\r\n"), 0u);
  EXPECT_EQ(HeadLength("GET /metrics HTTP/1.1\r\nHost: a\r\n"), 0u);
  const std::string head = "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n";
  EXPECT_EQ(HeadLength(head), head.size());
  EXPECT_EQ(HeadLength(head + "body"), head.size());
  EXPECT_EQ(HeadLength("GET / HTTP/1.0\n\n"), 16u);
}

TEST(Answer, MetricsIs200WithTheExpositionType) {
  const std::string a =
      Answer("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", Body);
  EXPECT_EQ(a,
            "HTTP/1.1 200 OK\r\n"
            "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Content-Length: 4\r\nConnection: close\r\n\r\nx 1\n");
  EXPECT_EQ(
      Answer("GET /metrics?name[]=x HTTP/1.0\r\n\r\n", Body).substr(0, 15),
      "HTTP/1.1 200 OK");
}

TEST(Answer, HeadHasNoBody) {
  const std::string a = Answer("HEAD /metrics HTTP/1.1\r\n\r\n", Body);
  EXPECT_TRUE(a.starts_with("HTTP/1.1 200 OK\r\n"));
  EXPECT_TRUE(a.ends_with("Content-Length: 4\r\nConnection: close\r\n\r\n"));
}

TEST(Answer, OtherPathsAre404AndBodyIsNotRendered) {
  bool called = false;
  auto body = [&] {
    called = true;
    return std::string();
  };
  for (const char* head :
       {"GET / HTTP/1.1\r\n\r\n", "GET /metricsx HTTP/1.1\r\n\r\n",
        "GET /metrics/ HTTP/1.1\r\n\r\n",
        "GET http://h/metrics HTTP/1.1\r\n\r\n"}) {
    EXPECT_TRUE(Answer(head, body).starts_with("HTTP/1.1 404 Not Found\r\n"))
        << head;
  }
  EXPECT_FALSE(called);
}

TEST(Answer, OtherMethodsAre405) {
  for (const char* head :
       {"POST /metrics HTTP/1.1\r\n\r\n", "PUT /metrics HTTP/1.1\r\n\r\n",
        "get /metrics HTTP/1.1\r\n\r\n"}) {
    const std::string a = Answer(head, Body);
    EXPECT_TRUE(a.starts_with("HTTP/1.1 405 Method Not Allowed\r\n")) << head;
    EXPECT_NE(a.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos);
  }
}

TEST(Answer, UnreadableRequestLineIs400) {
  for (const char* head :
       {"\r\n\r\n", "GET\r\n\r\n", "GET /metrics\r\n\r\n",
        "GET  /metrics HTTP/1.1\r\n\r\n", "GET /metrics HTTP/1.1 extra\r\n\r\n",
        "GET /metrics HTTP/2.0\r\n\r\n", " GET /metrics HTTP/1.1\r\n\r\n"}) {
    EXPECT_TRUE(Answer(head, Body).starts_with("HTTP/1.1 400 Bad Request\r\n"))
        << head;
  }
}

TEST(TooLarge, Is431) {
  EXPECT_TRUE(TooLarge().starts_with(
      "HTTP/1.1 431 Request Header Fields Too Large\r\n"));
}

}  // namespace
}  // namespace mw::metrics::internal
