// The Redis backend against a private redis-server (Debian's), started per
// test on a unix socket in a temporary directory, with an ACL user; and the
// same tests again on a private 3-master Redis Cluster on loopback
// (redis_cluster_util.h), the store reaching it through its seed nodes.
// Skipped when redis-server is not installed.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "redis_cluster.h"
#include "redis_conn.h"
#include "redis_link.h"
#include "redis_scripts.h"
#include "redis_slot.h"
#include "store/redis.h"
#include "store/sqlite.h"
#include "tests/store/redis_cluster_util.h"
#include "tests/store/test_util.h"
#include "tests/store/tls_certs.h"

extern char** environ;

namespace mw::store {
namespace {

using testing::Body;
using testing::Decide;
using testing::EditSentence;
using testing::MessageOf;
using testing::TempDir;

constexpr char kUser[] = "mwtest";
constexpr char kPassword[] = "s3cret-pw-not-in-logs";

// kTls: the single server reached over TLS ("tls://127.0.0.1:PORT", a CA
// and a client certificate of the test's own, tls_certs.h); the tests'
// administrator still uses its unix socket. kTlsCluster: the Cluster with a
// TLS port beside each node's plain one, the store on the TLS seeds, the
// administrator on the plain ports.
enum class Server { kSingle, kCluster, kTls, kTlsCluster };
// What gtest and ctest print for a test's parameter.
void PrintTo(Server s, std::ostream* out) {
  *out << (s == Server::kCluster      ? "cluster"
           : s == Server::kTls        ? "single server over TLS"
           : s == Server::kTlsCluster ? "cluster over TLS"
                                      : "single server");
}
bool IsCluster(Server s) {
  return s == Server::kCluster || s == Server::kTlsCluster;
}

// One wave recorded into the Redis store and into SQLite side by side, each
// copy joining the cluster its backend's first copy started.
struct SideBySide {
  Store& redis;
  Store& sqlite;
  std::optional<ClusterId> redis_cluster;
  std::optional<ClusterId> sqlite_cluster;
  // Both answers (Redis's, SQLite's); nullopt, with a test failure, when
  // either Record failed.
  std::optional<std::pair<Recorded, Recorded>> Record(const Message& m,
                                                      const WaveRule& rule) {
    auto rr = redis.Record(m, Join{.cluster = redis_cluster, .seen = {}}, rule);
    auto rs =
        sqlite.Record(m, Join{.cluster = sqlite_cluster, .seen = {}}, rule);
    EXPECT_TRUE(rr.has_value()) << rr.error().ToString();
    EXPECT_TRUE(rs.has_value()) << rs.error().ToString();
    if (!rr || !rs) return std::nullopt;
    redis_cluster = rr->cluster.id;
    sqlite_cluster = rs->cluster.id;
    return std::make_pair(*rr, *rs);
  }
};

class RedisStoreTest : public ::testing::TestWithParam<Server> {
 protected:
  // Replicas of each master of the Cluster.
  virtual int Replicas() const { return 0; }
  void SetUp() override {
    server_ = testing::FindProgram("redis-server");
    if (server_.empty()) GTEST_SKIP() << "redis-server is not installed";
    std::ofstream(dir_.File("password")) << kPassword << "\n";
    if (IsCluster(GetParam())) {
      if (!testing::RedisCluster::Available())
        GTEST_SKIP() << "redis-cli is not installed";
      if (GetParam() == Server::kTlsCluster) {
        if (!testing::TlsCerts::Available())
          GTEST_SKIP() << "openssl is not installed";
        ASSERT_TRUE(certs_.Make(dir_.path()))
            << "openssl failed; see " << dir_.File("openssl.log");
        ASSERT_TRUE(cluster_.StartTls(
            {certs_.ca, certs_.server_cert, certs_.server_key}, 3, Replicas()));
      } else {
        ASSERT_TRUE(cluster_.Start(3, Replicas()));
      }
      for (const auto& n : cluster_.nodes()) {
        auto admin = testing::RedisCluster::Admin(n.port);
        ASSERT_NE(admin, nullptr);
        ASSERT_TRUE(AddUser(*admin));
      }
      return;
    }
    socket_ = dir_.File("redis.sock");
    if (GetParam() == Server::kTls) {
      if (!testing::TlsCerts::Available())
        GTEST_SKIP() << "openssl is not installed";
      ASSERT_TRUE(certs_.Make(dir_.path()))
          << "openssl failed; see " << dir_.File("openssl.log");
      const std::vector<int> ports = testing::FreePorts(1);
      ASSERT_EQ(ports.size(), 1u);
      tls_port_ = ports[0];
    }
    ASSERT_TRUE(StartServer());
  }
  void TearDown() override { StopServer(SIGKILL); }

  // Starts redis-server, waits until it answers PING, and makes the ACL
  // user the store logs in as.
  bool StartServer() {
    std::vector<std::string> args = {server_,
                                     "--port",
                                     "0",
                                     "--unixsocket",
                                     socket_,
                                     "--unixsocketperm",
                                     "700",
                                     "--dir",
                                     dir_.path(),
                                     "--save",
                                     "",
                                     "--appendonly",
                                     "no",
                                     "--daemonize",
                                     "no",
                                     "--logfile",
                                     dir_.File("redis.log")};
    if (GetParam() == Server::kTls) {
      args.insert(args.end(),
                  {"--tls-port", std::to_string(tls_port_), "--tls-cert-file",
                   certs_.server_cert, "--tls-key-file", certs_.server_key,
                   "--tls-ca-cert-file", certs_.ca});
    }
    std::filesystem::remove(socket_);
    if (!testing::SpawnProgram(args, &pid_)) return false;
    ConnectOptions admin;
    admin.address.unix_path = socket_;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      auto c = Connection::Open(admin);
      if (c) {
        auto pong = (*c)->Command({"PING"});
        if (pong && pong->str() == "PONG") {
          return AddUser(**c);
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  void StopServer(int sig) {
    if (pid_ <= 0) return;
    ::kill(pid_, sig);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
  }

  // Makes the ACL user the store logs in as (a server keeps its users in
  // memory: a restarted one needs it again).
  static bool AddUser(Connection& admin) {
    auto acl =
        admin.Command({"ACL", "SETUSER", kUser, "on",
                       std::string(">") + kPassword, "~*", "&*", "+@all"});
    return acl && acl->type() == Reply::Type::kStatus;
  }

  // With the server (the site's master) gone: Find fails kUnavailable within
  // the connect and command timeouts of `o`, so the mail passes untagged.
  static void ExpectUnavailableInTime(Store& store, const Message& m,
                                      const RedisOptions& o) {
    const auto start = std::chrono::steady_clock::now();
    auto l = store.Find(m);
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(l.has_value());
    EXPECT_EQ(l.error().code(), Error::Code::kUnavailable);
    EXPECT_LT(took, o.connect_timeout + o.command_timeout +
                        std::chrono::milliseconds(100));
  }

  // After an outage, once the server (the site's master) is back: `m`
  // records within `patience`, is found once, and the store logged one
  // "down" and one "back".
  void ExpectServedAgain(Store& store, const Message& m,
                         std::chrono::seconds patience) {
    const auto deadline = std::chrono::steady_clock::now() + patience;
    bool ok = false;
    while (!ok && std::chrono::steady_clock::now() < deadline) {
      ok = store.Record(m, Join{}, WaveRule{}).has_value();
      if (!ok) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(ok);
    auto l = store.Find(m);
    ASSERT_TRUE(l.has_value()) << l.error().ToString();
    EXPECT_EQ(l->candidates.size(), 1u);
    EXPECT_EQ(LogCount("redis: down: "), 1);
    EXPECT_EQ(LogCount("redis: back"), 1);
  }

  // A connection as the administrator (the default user, no password), on a
  // Cluster to the master that serves the slot of site t1.
  std::unique_ptr<Connection> Admin() {
    ConnectOptions o;
    if (IsCluster(GetParam())) {
      auto client = ClusterClient::Open(cluster_.Seeds(), ConnectOptions{});
      EXPECT_TRUE(client.has_value()) << client.error().ToString();
      if (!client) return nullptr;
      const auto& map = (*client)->map();
      o.address =
          map.masters[static_cast<std::size_t>(map.Owner(KeySlot("{mw:t1}:")))];
      // A TLS Cluster may name its TLS ports: the administrator's is the
      // plain one beside it.
      for (const auto& n : cluster_.nodes()) {
        if (n.tls_port == o.address.port) o.address.port = n.port;
      }
    } else {
      o.address.unix_path = socket_;
    }
    o.command_timeout = std::chrono::seconds(5);
    auto c = Connection::Open(o);
    EXPECT_TRUE(c.has_value()) << c.error().ToString();
    return c ? std::move(*c) : nullptr;
  }

  RedisOptions Options() {
    RedisOptions o;
    if (GetParam() == Server::kCluster) {
      for (const auto& n : cluster_.nodes())
        o.cluster.push_back("tcp://127.0.0.1:" + std::to_string(n.port));
    } else if (GetParam() == Server::kTlsCluster) {
      for (const auto& n : cluster_.nodes())
        o.cluster.push_back("tls://127.0.0.1:" + std::to_string(n.tls_port));
      o.tls_ca_file = certs_.ca;
      o.tls_cert_file = certs_.client_cert;
      o.tls_key_file = certs_.client_key;
    } else if (GetParam() == Server::kTls) {
      o.address = "tls://127.0.0.1:" + std::to_string(tls_port_);
      o.tls_ca_file = certs_.ca;
      o.tls_cert_file = certs_.client_cert;
      o.tls_key_file = certs_.client_key;
    } else {
      o.address = "unix:" + socket_;
    }
    o.user = kUser;
    o.password_file = dir_.File("password");
    o.prefix = "t1";
    o.secret_path = dir_.File("secret");
    o.reconnect_min = std::chrono::milliseconds(20);
    o.reconnect_max = std::chrono::milliseconds(100);
    o.log = [this](std::string_view line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_.emplace_back(line);
    };
    return o;
  }
  // Options() with the default timeouts written out: the fault tests bound
  // each call by them.
  RedisOptions TimedOptions() {
    RedisOptions o = Options();
    o.connect_timeout = std::chrono::milliseconds(200);
    o.command_timeout = std::chrono::milliseconds(200);
    return o;
  }
  std::unique_ptr<Store> Open(const RedisOptions& o) {
    auto store = OpenRedis(o);
    EXPECT_TRUE(store.has_value()) << store.error().ToString();
    return store ? std::move(*store) : nullptr;
  }
  std::unique_ptr<Store> Open() { return Open(Options()); }
  // An SQLite store in the test's directory with the same secret (so the
  // same keyed hashes), to hold the Redis store's answers against.
  std::unique_ptr<Store> OpenSqliteBeside() {
    SqliteOptions so;
    so.path = dir_.File("mailwave.db");
    so.secret_path = dir_.File("secret");
    auto store = OpenSqlite(so);
    EXPECT_TRUE(store.has_value()) << store.error().ToString();
    return store ? std::move(*store) : nullptr;
  }

  Recorded Record(Store& store, const Message& m,
                  std::optional<ClusterId> cluster = std::nullopt,
                  const WaveRule& rule = WaveRule{}) {
    auto r = store.Record(m, Join{.cluster = cluster, .seen = {}}, rule);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    return r ? *r : Recorded{};
  }

  int LogCount(std::string_view prefix) {
    std::lock_guard<std::mutex> lock(log_mu_);
    return static_cast<int>(std::count_if(
        log_.begin(), log_.end(),
        [&](const std::string& l) { return l.rfind(prefix, 0) == 0; }));
  }
  std::vector<std::string> Log() {
    std::lock_guard<std::mutex> lock(log_mu_);
    return log_;
  }

  TempDir dir_;
  std::string server_;
  std::string socket_;
  testing::TlsCerts certs_;
  int tls_port_ = 0;
  pid_t pid_ = 0;
  testing::RedisCluster cluster_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

TEST_P(RedisStoreTest, SameSequenceSameVerdictsAsSqlite) {
  auto redis = Open();
  SqliteOptions so;
  so.path = dir_.File("mailwave.db");
  so.secret_path = dir_.File("secret");  // the same keyed hashes
  auto sqlite = OpenSqlite(so);
  ASSERT_TRUE(sqlite.has_value()) << sqlite.error().ToString();
  ASSERT_NE(redis, nullptr);

  const WaveRule rule{4, std::chrono::milliseconds(5000)};
  // Three waves of edited variants, interleaved with unrelated hams, some
  // exact copies, several senders, arrivals spread past the window.
  std::vector<Message> sequence;
  for (int i = 0; i < 60; ++i) {
    const int wave = i % 4;
    const UnixMillis t = 1'000'000 + i * 400;
    std::string body;
    if (wave == 3) {
      body = Body(1000 + i, 12);  // ham: unique
    } else {
      body = Body(100 + wave, 20);
      if (i % 3 != 0) body = EditSentence(body, i % 20, 7 * i);
    }
    Message m =
        MessageOf(body, t, "s" + std::to_string(i % 5) + "@example.com");
    // Identities (some authenticated, some absent: the sender counts),
    // networks (some unknown) and recipients (0 counts as one).
    if (i % 7 != 0) {
      m.authenticated = i % 3 == 0;
      m.identity = (m.authenticated ? "a:d" : "u:d") + std::to_string(i % 4);
    }
    if (i % 6 != 0) m.network = "10." + std::to_string(i % 5) + ".0.0/16";
    m.recipients = static_cast<std::uint32_t>(i % 4);
    sequence.push_back(std::move(m));
  }
  auto same_cluster = [](const Cluster& r, const Cluster& s) {
    EXPECT_EQ(r.canonical, s.canonical);
    EXPECT_EQ(r.size, s.size);
    EXPECT_EQ(r.senders, s.senders);
    EXPECT_EQ(r.authenticated, s.authenticated);
    EXPECT_EQ(r.networks, s.networks);
    EXPECT_EQ(r.recipients, s.recipients);
    EXPECT_EQ(r.mark, s.mark);
    EXPECT_EQ(r.marked_at, s.marked_at);
    EXPECT_EQ(r.first_seen, s.first_seen);
    EXPECT_EQ(r.last_seen, s.last_seen);
    EXPECT_EQ(r.wave, s.wave);
    EXPECT_EQ(r.wave_since, s.wave_since);
    EXPECT_EQ(r.language, s.language);
  };
  // Cluster ids are random per backend: compare them through the canonical
  // message id, which both number alike.
  std::map<ClusterId, std::int64_t> canon_redis;
  std::map<ClusterId, std::int64_t> canon_sqlite;
  int waves = 0;
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    SCOPED_TRACE(i);
    auto lr = redis->Find(sequence[i]);
    auto ls = (*sqlite)->Find(sequence[i]);
    ASSERT_TRUE(lr.has_value()) << lr.error().ToString();
    ASSERT_TRUE(ls.has_value());
    ASSERT_EQ(lr->candidates.size(), ls->candidates.size());
    for (std::size_t j = 0; j < lr->candidates.size(); ++j) {
      EXPECT_EQ(lr->candidates[j].id, ls->candidates[j].id);
      EXPECT_EQ(lr->candidates[j].shared_keys, ls->candidates[j].shared_keys);
      EXPECT_EQ(lr->candidates[j].exact, ls->candidates[j].exact);
      EXPECT_EQ(lr->candidates[j].arrival, ls->candidates[j].arrival);
      EXPECT_EQ(canon_redis[lr->candidates[j].cluster],
                canon_sqlite[ls->candidates[j].cluster]);
    }
    ASSERT_EQ(lr->clusters.size(), ls->clusters.size());
    for (std::size_t j = 0; j < lr->clusters.size(); ++j) {
      same_cluster(lr->clusters[j].first, ls->clusters[j].first);
      EXPECT_EQ(lr->clusters[j].second.has_value(),
                ls->clusters[j].second.has_value());
    }
    const auto jr = Decide(*lr, 3);
    const auto js = Decide(*ls, 3);
    ASSERT_EQ(jr.has_value(), js.has_value());
    auto rr = redis->Record(sequence[i], Join{.cluster = jr, .seen = {}}, rule);
    auto rs =
        (*sqlite)->Record(sequence[i], Join{.cluster = js, .seen = {}}, rule);
    ASSERT_TRUE(rr.has_value()) << rr.error().ToString();
    ASSERT_TRUE(rs.has_value());
    EXPECT_EQ(rr->id, rs->id);
    same_cluster(rr->cluster, rs->cluster);
    EXPECT_EQ(rr->window_size, rs->window_size);
    EXPECT_EQ(rr->became_wave, rs->became_wave);
    ASSERT_EQ(rr->earlier.size(), rs->earlier.size());
    for (std::size_t j = 0; j < rr->earlier.size(); ++j) {
      EXPECT_EQ(rr->earlier[j].id, rs->earlier[j].id);
      EXPECT_EQ(rr->earlier[j].queue_id, rs->earlier[j].queue_id);
      EXPECT_EQ(rr->earlier[j].message_id_hash, rs->earlier[j].message_id_hash);
    }
    waves += rr->became_wave ? 1 : 0;
    canon_redis[rr->cluster.id] = rr->cluster.canonical;
    canon_sqlite[rs->cluster.id] = rs->cluster.canonical;
    // Every fifth message's cluster is marked, the next one's cleared: as a
    // site's admin would, between messages.
    if (i % 5 == 2 || i % 5 == 3) {
      const Mark mark = i % 5 == 2 ? Mark::kSpam : Mark::kNone;
      const UnixMillis at = sequence[i].arrival + 1;
      auto mr = redis->SetMark(rr->cluster.id, mark, at);
      auto ms = (*sqlite)->SetMark(rs->cluster.id, mark, at);
      ASSERT_TRUE(mr.has_value()) << mr.error().ToString();
      ASSERT_TRUE(ms.has_value()) << ms.error().ToString();
      same_cluster(*mr, *ms);
      EXPECT_EQ(mr->mark, mark);
    }
  }
  EXPECT_GE(waves, 1);  // the sequence exercises became_wave

  const UnixMillis now = sequence.back().arrival;
  auto cr = redis->Clusters(false, rule, now, 100);
  auto cs = (*sqlite)->Clusters(false, rule, now, 100);
  ASSERT_TRUE(cr.has_value());
  ASSERT_TRUE(cs.has_value());
  ASSERT_EQ(cr->size(), cs->size());
  for (std::size_t j = 0; j < cr->size(); ++j) {
    same_cluster((*cr)[j], (*cs)[j]);
  }
  auto wr = redis->Clusters(true, rule, now, 100);
  auto ws = (*sqlite)->Clusters(true, rule, now, 100);
  ASSERT_TRUE(wr.has_value());
  ASSERT_TRUE(ws.has_value());
  EXPECT_EQ(wr->size(), ws->size());
  for (std::size_t j = 0; j < cr->size(); ++j) {
    auto mr = redis->Members((*cr)[j].id, 1000);
    auto ms = (*sqlite)->Members((*cs)[j].id, 1000);
    ASSERT_TRUE(mr.has_value());
    ASSERT_TRUE(ms.has_value());
    ASSERT_EQ(mr->size(), ms->size());
    for (std::size_t k = 0; k < mr->size(); ++k) {
      EXPECT_EQ((*mr)[k].id, (*ms)[k].id);
    }
  }
  auto sr = redis->GetStats();
  auto ss = (*sqlite)->GetStats();
  ASSERT_TRUE(sr.has_value());
  ASSERT_TRUE(ss.has_value());
  EXPECT_EQ(sr->messages, ss->messages);
  EXPECT_EQ(sr->clusters, ss->clusters);
  EXPECT_EQ(sr->waves, ss->waves);
  EXPECT_EQ(sr->oldest, ss->oldest);
  EXPECT_EQ(sr->newest, ss->newest);

  // Prune the first half: the same messages and clusters remain.
  const UnixMillis cut = sequence[30].arrival;
  auto pr = redis->Prune(cut, 7, 100);
  auto ps = (*sqlite)->Prune(cut, 7, 100);
  ASSERT_TRUE(pr.has_value()) << pr.error().ToString();
  ASSERT_TRUE(ps.has_value());
  EXPECT_EQ(*pr, 30u);
  EXPECT_EQ(*pr, *ps);
  sr = redis->GetStats();
  ss = (*sqlite)->GetStats();
  EXPECT_EQ(sr->messages, ss->messages);
  EXPECT_EQ(sr->clusters, ss->clusters);
  EXPECT_EQ(sr->waves, ss->waves);
  // Redis leaves a pruned message's index entries until a Record rewrites
  // their bucket (PrunedEntriesGoWhenTheirBucketIsWritten); Find skips them.
  EXPECT_GE(sr->index_rows, ss->index_rows);
  for (std::size_t i = 30; i < sequence.size(); ++i) {
    auto lr = redis->Find(sequence[i]);
    auto ls = (*sqlite)->Find(sequence[i]);
    ASSERT_TRUE(lr.has_value());
    ASSERT_TRUE(ls.has_value());
    ASSERT_EQ(lr->candidates.size(), ls->candidates.size()) << i;
    for (std::size_t j = 0; j < lr->candidates.size(); ++j) {
      EXPECT_EQ(lr->candidates[j].id, ls->candidates[j].id);
    }
    // The counts after the prune: recipients of the members left.
    ASSERT_EQ(lr->clusters.size(), ls->clusters.size());
    for (std::size_t j = 0; j < lr->clusters.size(); ++j) {
      same_cluster(lr->clusters[j].first, ls->clusters[j].first);
    }
  }
  cr = redis->Clusters(false, rule, now, 100);
  cs = (*sqlite)->Clusters(false, rule, now, 100);
  ASSERT_TRUE(cr.has_value() && cs.has_value());
  ASSERT_EQ(cr->size(), cs->size());
  for (std::size_t j = 0; j < cr->size(); ++j) {
    same_cluster((*cr)[j], (*cs)[j]);
  }
  auto check = redis->Check();
  ASSERT_TRUE(check.has_value());
  EXPECT_EQ(*check, "ok");
}

TEST_P(RedisStoreTest, FetchAndForEach) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  std::vector<Recorded> r;
  for (int i = 0; i < 5; ++i) {
    r.push_back(Record(*store, MessageOf(Body(40 + i, 10), 1000 + i * 100)));
  }
  const std::int64_t ids[] = {r[3].id, 999999, r[1].id};
  auto fetched = store->Fetch(ids);
  ASSERT_TRUE(fetched.has_value()) << fetched.error().ToString();
  ASSERT_EQ(fetched->candidates.size(), 2u);  // 999999 is not stored
  EXPECT_EQ(fetched->candidates[0].id, r[3].id);
  EXPECT_EQ(fetched->candidates[1].id, r[1].id);
  EXPECT_EQ(fetched->candidates[0].shared_keys, 0u);
  EXPECT_EQ(fetched->candidates[0].fingerprint.body_sha1,
            MessageOf(Body(43, 10), 0).fingerprint.body_sha1);
  ASSERT_EQ(fetched->clusters.size(), 2u);
  ASSERT_TRUE(fetched->clusters[0].second.has_value());

  std::vector<std::pair<std::int64_t, UnixMillis>> seen;
  auto n = store->ForEach(1200, [&](std::int64_t id, UnixMillis a,
                                    const fingerprint::Fingerprint&) {
    seen.emplace_back(id, a);
    return true;
  });
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n, 3u);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], std::make_pair(r[2].id, UnixMillis{1200}));
  EXPECT_EQ(seen[2], std::make_pair(r[4].id, UnixMillis{1400}));
  // fn returning false stops the walk.
  n = store->ForEach(0, [](std::int64_t, UnixMillis,
                           const fingerprint::Fingerprint&) { return false; });
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n, 1u);
}

TEST_P(RedisStoreTest, JoinNewAndVanishedClusters) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const std::string body = Body(5, 20);
  const Recorded a = Record(*store, MessageOf(body, 1000, "x@a"));
  EXPECT_NE(a.cluster.id, 0u);
  EXPECT_EQ(a.cluster.canonical, a.id);
  EXPECT_EQ(a.cluster.size, 1u);
  const Recorded b = Record(*store, MessageOf(body, 2000, "y@a"), a.cluster.id);
  EXPECT_EQ(b.cluster.id, a.cluster.id);
  EXPECT_EQ(b.cluster.size, 2u);
  EXPECT_EQ(b.cluster.senders, 2u);
  ClusterId gone = a.cluster.id + 1;
  while (gone == 0 || gone == a.cluster.id) ++gone;
  const Recorded c = Record(*store, MessageOf(body, 3000), gone);
  EXPECT_NE(c.cluster.id, a.cluster.id);
  EXPECT_EQ(c.cluster.canonical, c.id);
  EXPECT_EQ(c.cluster.size, 1u);
  auto found = store->FindCluster(a.cluster.id);
  ASSERT_TRUE(found.has_value());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->size, 2u);
  EXPECT_EQ((*found)->first_seen, 1000);
  EXPECT_EQ((*found)->last_seen, 2000);
  auto none = store->FindCluster(
      c.cluster.id + 1 == a.cluster.id ? c.cluster.id + 2 : c.cluster.id + 1);
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->has_value());
}

TEST_P(RedisStoreTest, EveryKeyCarriesTheSiteHashTagAndTtls) {
  RedisOptions o = Options();
  o.retention = std::chrono::hours(1);
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  const UnixMillis now = NowMillis();
  const std::string body = Body(77, 15);
  const Recorded a = Record(*store, MessageOf(body, now));
  Record(*store, MessageOf(EditSentence(body, 3, 9), now + 1), a.cluster.id);
  // A second site on the same server sees nothing of the first.
  RedisOptions other = Options();
  other.prefix = "t2";
  auto store2 = Open(other);
  ASSERT_NE(store2, nullptr);
  auto l2 = store2->Find(MessageOf(body, now + 2));
  ASSERT_TRUE(l2.has_value());
  EXPECT_TRUE(l2->candidates.empty());

  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  auto keys = admin->Command({"KEYS", "*"});
  ASSERT_TRUE(keys.has_value());
  ASSERT_GT(keys->size(), 5u);
  const std::int64_t two_hours = 2 * 3600 * 1000;
  int with_ttl = 0;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    const std::string key(keys->at(i).str());
    if (key == "{mw:t2}:v") continue;  // the second site's layout mark
    EXPECT_EQ(key.rfind("{mw:t1}:", 0), 0u) << key;
    auto ttl = admin->Command({"PTTL", key});
    ASSERT_TRUE(ttl.has_value());
    const std::int64_t ms = ttl->integer();
    // The per-message keys expire at twice the retention; the counters and
    // the global cluster list are kept (pruned, never expired).
    const bool global = key == "{mw:t1}:v" || key == "{mw:t1}:n" ||
                        key == "{mw:t1}:mc" || key == "{mw:t1}:lo" ||
                        key == "{mw:t1}:cl" || key == "{mw:t1}:x" ||
                        key == "{mw:t1}:w";
    if (global) {
      EXPECT_EQ(ms, -1) << key;
    } else {
      EXPECT_GT(ms, two_hours - 60'000) << key;
      EXPECT_LE(ms, two_hours) << key;
      ++with_ttl;
    }
  }
  EXPECT_GE(with_ttl, 5);  // 2 messages, cluster, members, senders, buckets
  auto check = admin->Command({"TYPE", "{mw:t1}:m:" + std::to_string(a.id)});
  ASSERT_TRUE(check.has_value());
  // One packed string per message: a hash would leave the compact listpack
  // encoding for its fingerprint field and cost several times as much.
  EXPECT_EQ(check->str(), "string");
}

// A message that starts a cluster costs no cluster keys; its cluster still
// reads as one of one (Find, FindCluster, Members), gets its keys when a
// second message joins, keeping its id, and single clusters' ids are
// distinct and not the message ids.
TEST_P(RedisStoreTest, SingleMessageClustersHaveNoKeysUntilJoined) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  std::set<ClusterId> ids;
  Recorded first;
  for (int i = 0; i < 200; ++i) {
    const Recorded r = Record(*store, MessageOf(Body(5000 + i, 8), 100 + i));
    EXPECT_EQ(r.cluster.size, 1u);
    EXPECT_EQ(r.cluster.canonical, r.id);
    EXPECT_NE(static_cast<std::int64_t>(r.cluster.id), r.id);
    ids.insert(r.cluster.id);
    if (i == 0) first = r;
  }
  EXPECT_EQ(ids.size(), 200u);
  auto keys = admin->Command({"KEYS", "{mw:t1}:c*"});
  ASSERT_TRUE(keys.has_value());
  EXPECT_EQ(keys->size(), 0u);  // no c:, cm:, cs: nor cl

  auto one = store->FindCluster(first.cluster.id);
  ASSERT_TRUE(one.has_value() && one->has_value());
  EXPECT_EQ((*one)->canonical, first.id);
  EXPECT_EQ((*one)->size, 1u);
  EXPECT_EQ((*one)->senders, 1u);
  EXPECT_EQ((*one)->first_seen, 100);
  auto members = store->Members(first.cluster.id, 10);
  ASSERT_TRUE(members.has_value());
  ASSERT_EQ(members->size(), 1u);
  EXPECT_EQ((*members)[0].id, first.id);
  auto none = store->FindCluster(first.cluster.id ^ 0x5a5a5a5au);
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->has_value());

  const Message twin = MessageOf(Body(5000, 8), 400, "b@example.com");
  auto l = store->Find(twin);
  ASSERT_TRUE(l.has_value());
  ASSERT_FALSE(l->clusters.empty());
  EXPECT_EQ(l->clusters[0].first.id, first.cluster.id);
  EXPECT_EQ(l->clusters[0].first.size, 1u);
  EXPECT_TRUE(l->clusters[0].second.has_value());  // the canonical's fp
  const Recorded joined = Record(*store, twin, first.cluster.id);
  EXPECT_EQ(joined.cluster.id, first.cluster.id);
  EXPECT_EQ(joined.cluster.size, 2u);
  EXPECT_EQ(joined.cluster.senders, 2u);
  EXPECT_EQ(joined.cluster.canonical, first.id);
  keys = admin->Command({"KEYS", "{mw:t1}:c*"});
  ASSERT_TRUE(keys.has_value());
  EXPECT_EQ(keys->size(), 4u);  // c:, cm:, cs: and cl
  auto stats = store->GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->messages, 201u);
  EXPECT_EQ(stats->clusters, 1u);
  EXPECT_EQ(stats->oldest, 100);
  EXPECT_EQ(stats->newest, 400);
  auto check = store->Check();
  ASSERT_TRUE(check.has_value());
  EXPECT_EQ(*check, "ok");
}

Message From(const std::string& body, UnixMillis arrival,
             const std::string& identity, bool authenticated,
             const std::string& network, std::uint32_t recipients) {
  Message m = MessageOf(body, arrival, "bounce@lists.example.net");
  m.identity = identity;
  m.authenticated = authenticated;
  m.network = network;
  m.recipients = recipients;
  return m;
}

// A cluster of one keeps its counts in its message string; when a second
// message joins, the cluster's keys start from them. Networks are kept in
// the message as 8 bytes and in the cluster's set in decimal: the script
// converts, for hashes of either sign (40 networks).
TEST_P(RedisStoreTest, ClusterOfOneGrowsWithItsCounts) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  for (int k = 0; k < 40; ++k) {
    SCOPED_TRACE(k);
    const std::string body = Body(7000 + k, 10);
    const std::string net = "10." + std::to_string(k) + ".0.0/16";
    const Recorded a = Record(
        *store, From(body, 1000 + 10 * k, "a:x" + std::to_string(k), k % 2 == 0,
                     net, static_cast<std::uint32_t>(k % 3)));
    EXPECT_EQ(a.cluster.senders, 1u);
    EXPECT_EQ(a.cluster.authenticated, k % 2 == 0 ? 1u : 0u);
    EXPECT_EQ(a.cluster.networks, 1u);
    EXPECT_EQ(a.cluster.recipients, k % 3 == 0 ? 1u : k % 3);
    auto one = store->FindCluster(a.cluster.id);
    ASSERT_TRUE(one.has_value() && one->has_value());
    EXPECT_EQ((*one)->authenticated, a.cluster.authenticated);
    EXPECT_EQ((*one)->networks, 1u);
    EXPECT_EQ((*one)->recipients, a.cluster.recipients);
    // Same identity and network: nothing new but the recipients.
    const Recorded b = Record(
        *store,
        From(body, 1001 + 10 * k, "a:x" + std::to_string(k), true, net, 5),
        a.cluster.id);
    EXPECT_EQ(b.cluster.id, a.cluster.id);
    EXPECT_EQ(b.cluster.size, 2u);
    EXPECT_EQ(b.cluster.senders, 1u);
    EXPECT_EQ(b.cluster.authenticated, 1u);
    EXPECT_EQ(b.cluster.networks, 1u);
    EXPECT_EQ(b.cluster.recipients, a.cluster.recipients + 5);
  }
  // A message with no identity, network or recipients counts its sender
  // and one recipient, and its string is what layout 2 wrote (no tail).
  const Recorded plain = Record(*store, MessageOf(Body(7100, 10), 2000));
  EXPECT_EQ(plain.cluster.senders, 1u);
  EXPECT_EQ(plain.cluster.networks, 0u);
  EXPECT_EQ(plain.cluster.recipients, 1u);
  const Recorded twin =
      Record(*store, MessageOf(Body(7100, 10), 2001, "b@x"), plain.cluster.id);
  EXPECT_EQ(twin.cluster.senders, 2u);
  EXPECT_EQ(twin.cluster.networks, 0u);
  EXPECT_EQ(twin.cluster.recipients, 2u);
  EXPECT_EQ(*store->Check(), "ok");
}

// A cluster hash written before the counts existed (layout 2 as issue 13
// left it: no a, e, r fields) reads with recipients = size, and Record and
// Prune keep it consistent from there.
TEST_P(RedisStoreTest, ClusterWrittenBeforeTheCountsReadsAsItCounted) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const std::string body = Body(7200, 12);
  const Recorded a = Record(*store, MessageOf(body, 1000));
  Record(*store, MessageOf(body, 2000), a.cluster.id);
  Record(*store, MessageOf(body, 3000), a.cluster.id);
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  const std::string ck = "{mw:t1}:c:" + std::to_string(a.cluster.id);
  auto del = admin->Command({"HDEL", ck, "a", "e", "r"});
  ASSERT_TRUE(del.has_value());
  EXPECT_EQ(del->integer(), 3);
  auto old = store->FindCluster(a.cluster.id);
  ASSERT_TRUE(old.has_value() && old->has_value());
  EXPECT_EQ((*old)->recipients, 3u);
  EXPECT_EQ((*old)->authenticated, 0u);
  const Recorded d =
      Record(*store, From(body, 4000, "a:example.com", true, "192.0.2.0/24", 4),
             a.cluster.id);
  EXPECT_EQ(d.cluster.size, 4u);
  EXPECT_EQ(d.cluster.recipients, 7u);
  EXPECT_EQ(d.cluster.authenticated, 1u);
  EXPECT_EQ(d.cluster.networks, 1u);
  ASSERT_TRUE(admin->Command({"HDEL", ck, "r"}).has_value());
  ASSERT_EQ(*store->Prune(1500, 100, 1), 1u);
  auto left = store->FindCluster(a.cluster.id);
  ASSERT_TRUE(left.has_value() && left->has_value());
  EXPECT_EQ((*left)->size, 3u);
  EXPECT_EQ((*left)->recipients, 3u);  // r was gone again: as size, then -1
}

// Prune touches no bucket: a pruned message's entries stay until a Record
// rewrites their bucket, which drops every entry below the lowest stored id;
// meanwhile Find does not count them. A message keeps no index keys of its
// own.
TEST_P(RedisStoreTest, PrunedEntriesGoWhenTheirBucketIsWritten) {
  RedisOptions o = Options();
  o.prune_on_record = false;
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  const std::string body = Body(7250, 12);
  const Recorded a = Record(*store, MessageOf(body, 1000));
  const Recorded b = Record(*store, MessageOf(body, 2000), a.cluster.id);
  const std::uint64_t per_message = store->GetStats()->index_rows / 2;
  ASSERT_GT(per_message, 3u);
  // The message string: its header's key-length field (bytes 17-18 of the
  // '>I6I4I4I1I1I1I2I4' header) is 0.
  auto v = admin->Command({"GET", "{mw:t1}:m:" + std::to_string(b.id)});
  ASSERT_TRUE(v.has_value());
  const std::string packed(v->str());
  ASSERT_GT(packed.size(), 23u);
  EXPECT_EQ(packed[17], 0);
  EXPECT_EQ(packed[18], 0);

  ASSERT_EQ(*store->Prune(1500, 100, 10), 1u);
  EXPECT_EQ(store->GetStats()->index_rows, 2 * per_message);  // not yet
  auto found = store->Find(MessageOf(body, 3000));
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->candidates.size(), 1u);
  EXPECT_EQ(found->candidates[0].id, b.id);
  EXPECT_EQ(found->candidates[0].shared_keys, per_message);

  // The same body again writes the same buckets: a's entries go, b's stay.
  Record(*store, MessageOf(body, 4000), a.cluster.id);
  EXPECT_EQ(store->GetStats()->index_rows, 2 * per_message);
  found = store->Find(MessageOf(body, 5000));
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->candidates.size(), 2u);
  EXPECT_EQ(*store->Check(), "ok");
}

// A bucket past index_split_entries is split in 16 by the key's next bits
// and becomes a marker (store/src/redis_scripts.h): Find reads through the
// markers, so a store that splits (t1, at 2 entries) answers every lookup as
// one that never does (t2, at a million); entries are neither
// lost nor counted twice, and markers and parts carry the retention's TTL.
// One body recorded five times puts five entries of each of its keys in one
// bucket, which no split can separate: it goes down to the deepest level and
// stays there.
TEST_P(RedisStoreTest, FullBucketsSplitAndEveryEntryIsStillFound) {
  RedisOptions split = Options();
  split.index_split_entries = 2;
  split.retention = std::chrono::hours(24);
  split.prune_on_record = false;
  RedisOptions whole = split;
  whole.prefix = "t2";
  whole.index_split_entries = 1'000'000;
  auto a = Open(split);
  auto b = Open(whole);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::vector<Message> sent;
  for (int i = 0; i < 600; ++i) {
    sent.push_back(MessageOf(Body(9100 + i, 6), 1000 + i));
  }
  const std::string wave = Body(9099, 12);
  for (int i = 0; i < 5; ++i) sent.push_back(MessageOf(wave, 2000 + i));
  // Finds between the Records too: Find reads only the depths the store
  // has shown it so far (redis_store.cc) and must go deeper as it splits.
  const auto same_answer = [&](const Message& m) {
    auto la = a->Find(m);
    auto lb = b->Find(m);
    ASSERT_TRUE(la.has_value() && lb.has_value());
    ASSERT_EQ(la->candidates.size(), lb->candidates.size());
    for (std::size_t j = 0; j < la->candidates.size(); ++j) {
      EXPECT_EQ(la->candidates[j].id, lb->candidates[j].id);
    }
  };
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const Recorded ra = Record(*a, sent[i]);
    const Recorded rb = Record(*b, sent[i]);
    ASSERT_EQ(ra.id, rb.id);
    if (i % 25 == 0) same_answer(sent[i / 2]);
  }
  for (std::size_t i = 0; i < sent.size(); i += (i < 600 ? 7 : 1)) {
    auto la = a->Find(sent[i]);
    auto lb = b->Find(sent[i]);
    ASSERT_TRUE(la.has_value() && lb.has_value());
    ASSERT_EQ(la->candidates.size(), lb->candidates.size()) << i;
    ASSERT_FALSE(la->candidates.empty()) << i;
    for (std::size_t j = 0; j < la->candidates.size(); ++j) {
      EXPECT_EQ(la->candidates[j].id, lb->candidates[j].id) << i;
      EXPECT_EQ(la->candidates[j].shared_keys, lb->candidates[j].shared_keys);
    }
  }

  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  auto buckets = admin->Command({"KEYS", "{mw:t1}:k:*"});
  ASSERT_TRUE(buckets.has_value());
  std::size_t markers = 0, parts = 0, deepest = 0, entries = 0;
  for (std::size_t i = 0; i < buckets->size(); ++i) {
    const std::string key(buckets->at(i).str());
    auto v = admin->Command({"GET", key});
    ASSERT_TRUE(v.has_value());
    const std::string value(v->str());
    if (value == std::string(1, '\0')) {
      ++markers;
    } else {
      ASSERT_EQ(value.size() % 7, 0u) << key;
      entries += value.size() / 7;
    }
    const auto dots = std::count(key.begin(), key.end(), '.');
    if (dots > 0) ++parts;
    if (dots == 4) ++deepest;
    auto ttl = admin->Command({"PTTL", key});
    ASSERT_TRUE(ttl.has_value());
    EXPECT_GT(ttl->integer(), 0) << key;
  }
  EXPECT_GT(markers, 20u);  // the wave's keys alone make 4 levels each
  EXPECT_GT(parts, markers);
  EXPECT_GT(deepest, 0u);
  auto sa = a->GetStats();
  auto sb = b->GetStats();
  ASSERT_TRUE(sa.has_value() && sb.has_value());
  EXPECT_EQ(sa->index_rows, sb->index_rows);
  EXPECT_EQ(entries, sa->index_rows);
  EXPECT_EQ(*a->Check(), "ok");
}

// Find asks for the bucket depths it has seen under each top bucket
// (redis_store.cc). Buckets that expire leave it asking deeper than the
// store now is: that costs names, never an answer.
TEST_P(RedisStoreTest, BucketsGoneShallowerAreStillRead) {
  RedisOptions o = Options();
  o.index_split_entries = 2;
  o.retention = std::chrono::hours(24);
  o.prune_on_record = false;
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  const std::string wave = Body(9400, 12);
  const Recorded first = Record(*store, MessageOf(wave, 1000));
  for (int i = 1; i < 5; ++i) {
    Record(*store, MessageOf(wave, 1000 + i), first.cluster.id);
  }
  auto deep = store->Find(MessageOf(wave, 2000));  // learns the depths
  ASSERT_TRUE(deep.has_value());
  ASSERT_EQ(deep->candidates.size(), 5u);

  // Every bucket expires at once; the next copy starts them again from the
  // top, unsplit.
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  auto buckets = admin->Command({"KEYS", "{mw:" + o.prefix + "}:k:*"});
  ASSERT_TRUE(buckets.has_value());
  ASSERT_GT(buckets->size(), 0u);
  for (std::size_t i = 0; i < buckets->size(); ++i) {
    ASSERT_TRUE(
        admin->Command({"DEL", std::string(buckets->at(i).str())}).has_value());
  }
  const Recorded again = Record(*store, MessageOf(wave, 3000));
  auto found = store->Find(MessageOf(wave, 4000));
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->candidates.size(), 1u);
  EXPECT_EQ(found->candidates[0].id, again.id);
}

// Every key stays in Redis's compact encodings for what a wave holds: a
// cluster's hash and member zset as a listpack (a ziplist before Redis 7),
// its identity and network sets as an intset (the hashes are stored as
// decimal integers), so a cluster costs a few hundred bytes and not a
// hashtable per key. A message is one string; so is a bucket.
TEST_P(RedisStoreTest, KeysKeepTheirCompactEncodings) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  const std::string body = Body(7400, 15);
  const Recorded a = Record(
      *store, From(body, 1000, "a:one.example", true, "192.0.2.0/24", 2));
  for (int k = 1; k < 60; ++k) {
    Record(*store,
           From(body, 1000 + k, "a:x" + std::to_string(k) + ".example",
                k % 2 == 0, "10." + std::to_string(k) + ".0.0/16", 1),
           a.cluster.id);
  }
  const auto encoding = [&](const std::string& key) {
    auto r = admin->Command({"OBJECT", "ENCODING", key});
    return r.has_value() && r->type() == Reply::Type::kString
               ? std::string(r->str())
               : std::string("(none: ") + key + ")";
  };
  const std::string cid = std::to_string(a.cluster.id);
  const auto compact = [](const std::string& e) {
    return e == "listpack" || e == "ziplist";
  };
  EXPECT_TRUE(compact(encoding("{mw:t1}:c:" + cid)))
      << encoding("{mw:t1}:c:" + cid);
  EXPECT_TRUE(compact(encoding("{mw:t1}:cm:" + cid)))
      << encoding("{mw:t1}:cm:" + cid);
  for (const char* set : {"cs", "ca", "cn"}) {
    const std::string key = std::string("{mw:t1}:") + set + ":" + cid;
    const std::string e = encoding(key);
    EXPECT_TRUE(e == "intset" || e == "listpack") << key << ": " << e;
  }
  EXPECT_EQ(encoding("{mw:t1}:m:" + std::to_string(a.id)), "raw");
  auto buckets = admin->Command({"KEYS", "{mw:t1}:k:*"});
  ASSERT_TRUE(buckets.has_value());
  ASSERT_GT(buckets->size(), 0u);
  for (std::size_t i = 0; i < buckets->size(); ++i) {
    const std::string e = encoding(std::string(buckets->at(i).str()));
    EXPECT_TRUE(e == "raw" || e == "embstr") << e;
  }
}

// A wave's members are kept in zsets of at most 128 (store/src/
// redis_scripts.h), each a listpack; a wave of 300 copies fills three. Its
// window counts, wave event, member list and wave listing cross the chunks
// and answer as SQLite's do, before and after pruning empties the first
// two; the last member pruned takes every chunk with it.
TEST_P(RedisStoreTest, AWaveOfMoreThanAChunkAnswersAsSqlite) {
  RedisOptions o = Options();
  o.prune_on_record = false;
  auto redis = Open(o);
  ASSERT_NE(redis, nullptr);
  auto sqlite = OpenSqliteBeside();
  ASSERT_NE(sqlite, nullptr);
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);

  // Copies a second apart; a window of 200 s holds 201 of them, so the wave
  // (150 in the window) is decided across chunks 0 and 1.
  const WaveRule rule{150, std::chrono::seconds(200)};
  const std::string body = Body(7600, 14);
  const UnixMillis t0 = 5'000'000;
  auto copy = [&](int i) {
    return MessageOf(body, t0 + i * 1000,
                     "s" + std::to_string(i % 3) + "@example.com");
  };
  SideBySide side{*redis, *sqlite, {}, {}};
  const std::optional<ClusterId>& cr = side.redis_cluster;
  const std::optional<ClusterId>& cs = side.sqlite_cluster;
  auto record = [&](int i) {
    SCOPED_TRACE(i);
    const auto both = side.Record(copy(i), rule);
    ASSERT_TRUE(both.has_value());
    const auto& [rr, rs] = *both;
    EXPECT_EQ(rr.id, rs.id);
    EXPECT_EQ(rr.cluster.size, rs.cluster.size);
    EXPECT_EQ(rr.window_size, rs.window_size);
    EXPECT_EQ(rr.became_wave, rs.became_wave);
    ASSERT_EQ(rr.earlier.size(), rs.earlier.size());
    for (std::size_t j = 0; j < rr.earlier.size(); ++j)
      EXPECT_EQ(rr.earlier[j].id, rs.earlier[j].id);
  };
  auto same = [&](UnixMillis now) {
    auto mr = redis->Members(*cr, 1000);
    auto ms = sqlite->Members(*cs, 1000);
    ASSERT_TRUE(mr.has_value()) << mr.error().ToString();
    ASSERT_TRUE(ms.has_value());
    ASSERT_EQ(mr->size(), ms->size());
    for (std::size_t j = 0; j < mr->size(); ++j)
      EXPECT_EQ(mr->at(j).id, ms->at(j).id);
    for (const std::size_t limit : {1u, 127u, 128u, 129u, 200u}) {
      auto lr = redis->Members(*cr, limit);
      ASSERT_TRUE(lr.has_value());
      EXPECT_EQ(lr->size(), std::min(limit, ms->size()));
      for (std::size_t j = 0; j < lr->size(); ++j)
        EXPECT_EQ(lr->at(j).id, ms->at(j).id);
    }
    auto wr = redis->Clusters(true, rule, now, 10);
    auto ws = sqlite->Clusters(true, rule, now, 10);
    ASSERT_TRUE(wr.has_value());
    ASSERT_TRUE(ws.has_value());
    EXPECT_EQ(wr->size(), ws->size());
  };
  for (int i = 0; i < 300; ++i) record(i);
  auto c = redis->FindCluster(*cr);
  ASSERT_TRUE(c.has_value());
  ASSERT_TRUE(c->has_value());
  EXPECT_TRUE((*c)->wave);
  EXPECT_EQ((*c)->size, 300u);
  same(t0 + 299 * 1000);
  // 150 in the last 200 s: a wave now; 150 in the last 149 s: not.
  same(t0 + 299 * 1000 + 50 * 1000);

  const std::string cid = std::to_string(*cr);
  const auto chunks = [&] {
    std::vector<std::string> out;
    auto keys = admin->Command({"KEYS", "{mw:t1}:cm:" + cid + "*"});
    EXPECT_TRUE(keys.has_value());
    if (!keys) return out;
    for (std::size_t i = 0; i < keys->size(); ++i)
      out.emplace_back(keys->at(i).str());
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<std::string> three = chunks();
  ASSERT_EQ(three.size(), 3u);
  for (const std::string& key : three) {
    auto e = admin->Command({"OBJECT", "ENCODING", key});
    ASSERT_TRUE(e.has_value());
    EXPECT_TRUE(e->str() == "listpack" || e->str() == "ziplist")
        << key << ": " << e->str();
  }

  // The first 260 copies go: chunks 0 and 1 empty, 2 keeps 40.
  auto pr = redis->Prune(t0 + 260 * 1000, 100, 100);
  auto ps = sqlite->Prune(t0 + 260 * 1000, 100, 100);
  ASSERT_TRUE(pr.has_value()) << pr.error().ToString();
  ASSERT_TRUE(ps.has_value());
  EXPECT_EQ(*pr, 260u);
  EXPECT_EQ(*ps, 260u);
  EXPECT_EQ(chunks(), std::vector<std::string>{"{mw:t1}:cm:" + cid + ":2"});
  same(t0 + 299 * 1000);
  for (int i = 300; i < 420; ++i) record(i);  // fills chunk 3 too
  same(t0 + 419 * 1000);
  c = redis->FindCluster(*cr);
  ASSERT_TRUE(c.has_value() && c->has_value());
  EXPECT_EQ((*c)->size, 160u);

  ASSERT_TRUE(redis->Prune(t0 + 1000 * 1000, 100, 100).has_value());
  EXPECT_TRUE(chunks().empty());
  c = redis->FindCluster(*cr);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->has_value());
  EXPECT_EQ(*redis->Check(), "ok");
}

// A cluster recorded before the chunks kept all its members in one zset,
// the name of chunk 0, and no mo/mh: it grows into chunk 1 and is listed,
// counted and pruned whole.
TEST_P(RedisStoreTest, AMemberZsetWrittenBeforeTheChunksIsChunkZero) {
  RedisOptions o = Options();
  o.prune_on_record = false;
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  const WaveRule rule{200, std::chrono::hours(1)};
  const std::string body = Body(7700, 14);
  const Recorded first = Record(*store, MessageOf(body, 1000), {}, rule);
  for (int i = 1; i < 140; ++i)
    Record(*store, MessageOf(body, 1000 + i), first.cluster.id, rule);
  // As the old Record left it: chunk 1 folded into the one zset.
  const std::string cm = "{mw:t1}:cm:" + std::to_string(first.cluster.id);
  ASSERT_TRUE(
      admin->Command({"ZUNIONSTORE", cm, "2", cm, cm + ":1"}).has_value());
  ASSERT_TRUE(admin->Command({"DEL", cm + ":1"}).has_value());
  ASSERT_TRUE(
      admin
          ->Command({"HDEL", "{mw:t1}:c:" + std::to_string(first.cluster.id),
                     "mo", "mh"})
          .has_value());
  auto card = admin->Command({"ZCARD", cm});
  ASSERT_TRUE(card.has_value());
  ASSERT_EQ(card->integer(), 140);

  const Recorded next =
      Record(*store, MessageOf(body, 2000), first.cluster.id, rule);
  EXPECT_EQ(next.cluster.size, 141u);
  EXPECT_EQ(next.window_size, 141u);
  auto one = admin->Command({"ZCARD", cm + ":1"});
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->integer(), 1);
  auto members = store->Members(first.cluster.id, 1000);
  ASSERT_TRUE(members.has_value());
  ASSERT_EQ(members->size(), 141u);
  EXPECT_EQ(members->front().id, first.id);
  EXPECT_EQ(members->back().id, next.id);

  ASSERT_EQ(*store->Prune(3000, 100, 100), 141u);
  auto gone = store->FindCluster(first.cluster.id);
  ASSERT_TRUE(gone.has_value());
  EXPECT_FALSE(gone->has_value());
  auto left = admin->Command({"KEYS", cm + "*"});
  ASSERT_TRUE(left.has_value());
  EXPECT_EQ(left->size(), 0u);
}

// A wave from a botnet: nearly every copy a new sender and network. The
// identity, authenticated and network sets are split into shards as they
// pass 384 members a shard (store/src/redis_scripts.h), each an intset with
// the retention's TTL, and count exactly what SQLite counts; the last
// member pruned takes every shard with it.
TEST_P(RedisStoreTest, ABotnetWavesSetsStayCompactAndCountAsSqlite) {
  RedisOptions o = Options();
  o.prune_on_record = false;
  o.retention = std::chrono::hours(24);
  auto redis = Open(o);
  ASSERT_NE(redis, nullptr);
  auto sqlite = OpenSqliteBeside();
  ASSERT_NE(sqlite, nullptr);
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);

  const WaveRule rule{5, std::chrono::hours(1)};
  const std::string body = Body(7800, 14);
  const UnixMillis t0 = NowMillis() - 3'600'000;
  // 1,900 copies: 1,700 identities (some again), a third of them
  // authenticated, ~1,000 networks, some copies without one.
  auto copy = [&](int i) {
    Message m = MessageOf(body, t0 + i, "s" + std::to_string(i) + "@bot.test");
    const int who = i % 1700;
    m.authenticated = who % 3 == 0;
    m.identity = (m.authenticated ? "a:" : "u:") + std::to_string(who);
    if (i % 11 != 0) m.network = "10." + std::to_string(i % 1000) + ".0.0/16";
    return m;
  };
  SideBySide side{*redis, *sqlite, {}, {}};
  Cluster last_r;
  std::set<std::string> networks;
  for (int i = 0; i < 1900; ++i) {
    SCOPED_TRACE(i);
    const Message m = copy(i);
    if (!m.network.empty()) networks.insert(m.network);
    const auto both = side.Record(m, rule);
    ASSERT_TRUE(both.has_value());
    const auto& [rr, rs] = *both;
    ASSERT_EQ(rr.cluster.senders, rs.cluster.senders);
    ASSERT_EQ(rr.cluster.authenticated, rs.cluster.authenticated);
    ASSERT_EQ(rr.cluster.networks, rs.cluster.networks);
    last_r = rr.cluster;
  }
  EXPECT_EQ(last_r.senders, 1700u);
  EXPECT_EQ(last_r.authenticated, 567u);
  EXPECT_EQ(last_r.networks, networks.size());
  EXPECT_GT(networks.size(), 900u);

  const std::string cid = std::to_string(*side.redis_cluster);
  for (const char* kind : {"cs", "ca", "cn"}) {
    SCOPED_TRACE(kind);
    const std::string base = std::string("{mw:t1}:") + kind + ":" + cid;
    auto keys = admin->Command({"KEYS", base + "*"});
    ASSERT_TRUE(keys.has_value());
    EXPECT_GE(keys->size(), kind == std::string("ca") ? 1u : 4u);
    long long total = 0;
    for (std::size_t i = 0; i < keys->size(); ++i) {
      const std::string key(keys->at(i).str());
      auto e = admin->Command({"OBJECT", "ENCODING", key});
      ASSERT_TRUE(e.has_value());
      EXPECT_EQ(std::string(e->str()), "intset") << key;
      auto ttl = admin->Command({"PTTL", key});
      ASSERT_TRUE(ttl.has_value());
      EXPECT_GT(ttl->integer(), 0) << key;
      auto card = admin->Command({"SCARD", key});
      ASSERT_TRUE(card.has_value());
      total += card->integer();
    }
    EXPECT_EQ(total, kind == std::string("cs") ? 1700
                     : kind == std::string("ca")
                         ? 567
                         : static_cast<long long>(networks.size()));
  }

  ASSERT_EQ(*redis->Prune(t0 + 10'000, 500, 100), 1900u);
  auto left = admin->Command({"KEYS", "{mw:t1}:c*"});
  ASSERT_TRUE(left.has_value());
  EXPECT_EQ(left->size(), 0u);
}

// A sender set written before the shards may hold thousands: it is split
// as it is next written (more than unpack() takes at once), the count stays
// exact and every member is in the shard that is asked for it.
TEST_P(RedisStoreTest, ASetWrittenBeforeTheShardsIsSplitAsItGrows) {
  RedisOptions o = Options();
  o.prune_on_record = false;
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  const std::string body = Body(7900, 14);
  auto from = [&](int who, UnixMillis t) {
    Message m = MessageOf(body, t);
    m.identity = "u:legacy" + std::to_string(who);
    return m;
  };
  const Recorded first = Record(*store, from(0, 1000));
  Record(*store, from(1, 1001), first.cluster.id);
  // As the old Record left a wave of 20,000 senders: one set, and s.
  const std::string cid = std::to_string(first.cluster.id);
  const std::string cs = "{mw:t1}:cs:" + cid;
  std::vector<std::string> add = {"SADD", cs};
  for (int i = 0; i < 20000; ++i)
    add.push_back(std::to_string(1'000'000'007LL * (i + 2) + 12345));
  ASSERT_TRUE(admin->Command({add.begin(), add.end()}).has_value());
  ASSERT_TRUE(
      admin->Command({"HSET", "{mw:t1}:c:" + cid, "s", "20002"}).has_value());

  std::uint64_t senders = 0;
  for (int i = 0; i < 8; ++i) {
    // Senders 0 and 1 again, then new ones.
    const Recorded r =
        Record(*store, from(i < 2 ? i : 100 + i, 2000 + i), first.cluster.id);
    senders = r.cluster.senders;
    EXPECT_EQ(senders, 20002u + (i < 2 ? 0u : i - 1u)) << i;
  }
  auto keys = admin->Command({"KEYS", cs + "*"});
  ASSERT_TRUE(keys.has_value());
  EXPECT_EQ(keys->size(), 64u);  // 20,008 > 384 × 32: 2^6 after 6 splits
  long long total = 0;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    auto card = admin->Command({"SCARD", std::string(keys->at(i).str())});
    ASSERT_TRUE(card.has_value());
    total += card->integer();
  }
  EXPECT_EQ(total, static_cast<long long>(senders));
  // Every sender is found where it is looked for: none counts again.
  for (int i = 0; i < 8; ++i) {
    const Recorded r =
        Record(*store, from(i < 2 ? i : 100 + i, 3000 + i), first.cluster.id);
    EXPECT_EQ(r.cluster.senders, senders);
  }
  EXPECT_EQ(*store->Check(), "ok");
}

// SetMark: set, replaced, cleared; kNotFound for no cluster; a cluster of
// one gets its keys for the mark (with the retention's TTL) and loses them
// with its message.
TEST_P(RedisStoreTest, SetMarkSetsClearsAndLivesAsLongAsTheCluster) {
  RedisOptions o = Options();
  o.retention = std::chrono::hours(1);
  o.prune_on_record = false;
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  const UnixMillis now = NowMillis();
  const std::string body = Body(7300, 12);
  const Recorded a = Record(*store, MessageOf(body, now));
  Record(*store, MessageOf(body, now + 1), a.cluster.id);
  const Recorded single = Record(*store, MessageOf(Body(7301, 12), now + 2));

  auto spam = store->SetMark(a.cluster.id, Mark::kSpam, now + 10);
  ASSERT_TRUE(spam.has_value()) << spam.error().ToString();
  EXPECT_EQ(spam->mark, Mark::kSpam);
  EXPECT_EQ(spam->marked_at, now + 10);
  EXPECT_EQ(spam->size, 2u);
  auto ham = store->SetMark(a.cluster.id, Mark::kHam, now + 20);
  ASSERT_TRUE(ham.has_value());
  EXPECT_EQ(ham->mark, Mark::kHam);
  EXPECT_EQ(ham->marked_at, now + 20);
  auto lookup = store->Find(MessageOf(body, now + 30));
  ASSERT_TRUE(lookup.has_value());
  ASSERT_FALSE(lookup->clusters.empty());
  EXPECT_EQ(lookup->clusters[0].first.mark, Mark::kHam);
  const Recorded c = Record(*store, MessageOf(body, now + 40), a.cluster.id);
  EXPECT_EQ(c.cluster.mark, Mark::kHam);
  EXPECT_EQ(c.cluster.marked_at, now + 20);
  auto list = store->Clusters(false, WaveRule{}, now + 40, 10);
  ASSERT_TRUE(list.has_value());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].mark, Mark::kHam);

  // Clearing a cluster of one costs nothing; marking it makes its keys.
  auto keys = admin->Command({"KEYS", "{mw:t1}:c*"});
  ASSERT_TRUE(keys.has_value());
  const std::size_t before = keys->size();
  auto clear_one = store->SetMark(single.cluster.id, Mark::kNone, now + 50);
  ASSERT_TRUE(clear_one.has_value());
  EXPECT_EQ(clear_one->mark, Mark::kNone);
  EXPECT_EQ(admin->Command({"KEYS", "{mw:t1}:c*"})->size(), before);
  auto one = store->SetMark(single.cluster.id, Mark::kSpam, now + 60);
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->mark, Mark::kSpam);
  EXPECT_EQ(one->size, 1u);
  EXPECT_EQ(one->canonical, single.id);
  const std::string ck = "{mw:t1}:c:" + std::to_string(single.cluster.id);
  auto ttl = admin->Command({"PTTL", ck});
  ASSERT_TRUE(ttl.has_value());
  EXPECT_GT(ttl->integer(), 2 * 3600 * 1000 - 60'000);
  auto found = store->FindCluster(single.cluster.id);
  ASSERT_TRUE(found.has_value() && found->has_value());
  EXPECT_EQ((*found)->mark, Mark::kSpam);
  EXPECT_EQ((*found)->size, 1u);
  // Still a cluster of one: not listed among clusters of two or more.
  EXPECT_EQ(store->Clusters(false, WaveRule{}, now + 60, 10)->size(), 1u);
  EXPECT_EQ(store->GetStats()->clusters, 1u);

  auto cleared = store->SetMark(a.cluster.id, Mark::kNone, now + 70);
  ASSERT_TRUE(cleared.has_value());
  EXPECT_EQ(cleared->mark, Mark::kNone);
  EXPECT_EQ(cleared->marked_at, 0);

  ClusterId missing = single.cluster.id ^ 0x5a5a5a5au;
  auto none = store->SetMark(missing, Mark::kHam, now + 80);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code(), Error::Code::kNotFound);

  // The marked single goes with its message, keys and all.
  ASSERT_EQ(*store->Prune(now + 3, 100, 10), 3u);
  EXPECT_EQ(admin->Command({"EXISTS", ck})->integer(), 0);
  auto gone = store->SetMark(single.cluster.id, Mark::kHam, now + 90);
  ASSERT_FALSE(gone.has_value());
  EXPECT_EQ(gone.error().code(), Error::Code::kNotFound);
  EXPECT_EQ(*store->Check(), "ok");
}

// Keys of another layout are refused at open, naming the prefix, not read
// as messages.
TEST_P(RedisStoreTest, OtherLayoutIsRefusedAtOpen) {
  { auto store = Open(); }  // writes the layout
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  auto set = admin->Command({"SET", "{mw:t1}:v", "1"});
  ASSERT_TRUE(set.has_value());
  auto store = OpenRedis(Options());
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code(), Error::Code::kCorrupt);
  EXPECT_NE(store.error().message().find("{mw:t1}:"), std::string::npos)
      << store.error().message();
  EXPECT_NE(store.error().message().find("layout 1"), std::string::npos);
  RedisOptions other = Options();
  other.prefix = "t3";
  EXPECT_NE(Open(other), nullptr);
}

// Layout 2 (no split buckets) reads as layout 3: opened, marked 3, and what
// it stored is still found.
TEST_P(RedisStoreTest, LayoutTwoIsUpgradedInPlace) {
  const std::string body = Body(9050, 12);
  Recorded first;
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    first = Record(*store, MessageOf(body, 1000));
  }
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(admin->Command({"SET", "{mw:t1}:v", "2"}).has_value());
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto v = admin->Command({"GET", "{mw:t1}:v"});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->str(), "3");
  auto found = store->Find(MessageOf(body, 2000));
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->candidates.size(), 1u);
  EXPECT_EQ(found->candidates[0].id, first.id);
}

TEST_P(RedisStoreTest, ConcurrentWritersJoinOneCluster) {
  RedisOptions o = Options();
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  const std::string body = Body(88, 25);
  const WaveRule rule{5, std::chrono::hours(1)};
  // The wave's first copy; then kThreads hosts (each its own store, so its
  // own connections) record variants at once, each joining what Find gave.
  const Recorded first =
      Record(*store, MessageOf(body, 5000), std::nullopt, rule);
  constexpr int kThreads = 8;
  constexpr int kEach = 10;
  std::vector<std::unique_ptr<Store>> hosts;
  for (int t = 0; t < kThreads; ++t) hosts.push_back(Open(o));
  std::atomic<int> became{0};
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const Message m =
            MessageOf(EditSentence(body, (t + i) % 25, t * 100 + i),
                      6000 + t * 10 + i, "h" + std::to_string(t) + "@x");
        auto l = hosts[t]->Find(m);
        if (!l) {
          ++failed;
          continue;
        }
        auto r = hosts[t]->Record(m, Join{.cluster = Decide(*l, 2), .seen = {}},
                                  rule);
        if (!r) {
          ++failed;
          continue;
        }
        became += r->became_wave ? 1 : 0;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failed.load(), 0);
  auto c = store->FindCluster(first.cluster.id);
  ASSERT_TRUE(c.has_value());
  ASSERT_TRUE(c->has_value());
  EXPECT_EQ((*c)->size, 1u + kThreads * kEach);
  EXPECT_EQ((*c)->senders, 1u + kThreads);
  EXPECT_EQ(became.load(), 1);  // exactly once, whoever crossed min_size
  auto all = store->Clusters(false, rule, 10000, 100);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->size(), 1u);
  auto members = store->Members(first.cluster.id, 1000);
  ASSERT_TRUE(members.has_value());
  EXPECT_EQ(members->size(), 1u + kThreads * kEach);
}

TEST_P(RedisStoreTest, NewClusterChecksMessagesRecordedSinceTheLookup) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  testing::ExpectNewClusterChecksNewerMessages(*store);
}

// Hosts that see the first copies of a wave at the same moment: without
// Join::seen each would start its own cluster (checked by hand with max_races
// 0, i.e. without Join::seen: 2 to 7 clusters in most of 10 runs of each test).
TEST_P(RedisStoreTest, RacingFirstCopiesFromThreadsEndInOneCluster) {
  const RedisOptions o = Options();
  auto r = testing::RaceFirstCopies([&] { return Open(o); }, 8, 3,
                                    /*processes=*/false, 2);
  EXPECT_EQ(r.failures, 0);
  EXPECT_EQ(r.recorded, 24);
  EXPECT_EQ(r.clusters.size(), 1u) << r.conflicts << " conflicts";
}

TEST_P(RedisStoreTest, RacingFirstCopiesFromProcessesEndInOneCluster) {
  const RedisOptions o = Options();
  auto r = testing::RaceFirstCopies([&] { return Open(o); }, 6, 3,
                                    /*processes=*/true, 2);
  EXPECT_EQ(r.failures, 0);
  EXPECT_EQ(r.recorded, 18);
  EXPECT_EQ(r.clusters.size(), 1u) << r.conflicts << " conflicts";
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  auto c = store->FindCluster(*r.clusters.begin());
  ASSERT_TRUE(c.has_value() && c->has_value());
  EXPECT_EQ((*c)->size, 18u);
  EXPECT_EQ((*c)->senders, 6u);
}

// What a stopped, stalled or refusing single server does to the store. (A
// Cluster master killed, failed over or resharded: further below.)
class RedisServerFaultTest : public RedisStoreTest {};

TEST_P(RedisServerFaultTest, KilledServerIsUnavailableOnceThenBack) {
  const RedisOptions o = TimedOptions();
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  const Message m = MessageOf(Body(99, 12), 1000);
  const Recorded a = Record(*store, m);
  StopServer(SIGKILL);
  for (int i = 0; i < 20; ++i) {
    ASSERT_NO_FATAL_FAILURE(ExpectUnavailableInTime(*store, m, o));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(LogCount("redis: down: "), 1);
  EXPECT_EQ(LogCount("redis: back"), 0);

  // A restarted server (empty: no persistence here) serves again.
  ASSERT_TRUE(StartServer());
  ASSERT_NO_FATAL_FAILURE(
      ExpectServedAgain(*store, m, std::chrono::seconds(5)));
  (void)a;
}

// A milter started before its Redis (boot order, an outage) starts with the
// store down and picks it up once the server answers, without a reload.
TEST_P(RedisServerFaultTest, OpenedWhileServerIsDownComesUpWithIt) {
  StopServer(SIGKILL);
  RedisOptions o = Options();
  o.connect_timeout = std::chrono::milliseconds(200);
  auto store = OpenRedis(o);
  ASSERT_TRUE(store.has_value()) << store.error().ToString();
  const Message m = MessageOf(Body(97, 12), 1000);
  auto l = (*store)->Find(m);
  ASSERT_FALSE(l.has_value());
  EXPECT_EQ(l.error().code(), Error::Code::kUnavailable);
  EXPECT_EQ(LogCount("redis: down: "), 1);
  for (const std::string& line : Log()) {
    EXPECT_EQ(line.find("redis: down: redis:"), std::string::npos) << line;
  }
  ASSERT_TRUE(StartServer());
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool ok = false;
  while (!ok && std::chrono::steady_clock::now() < deadline) {
    ok = (*store)->Record(m, Join{}, WaveRule{}).has_value();
    if (!ok) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(ok);
  EXPECT_EQ(LogCount("redis: back"), 1);
  EXPECT_EQ(LogCount("redis: down: "), 1);
}

TEST_P(RedisServerFaultTest, StalledServerTimesOut) {
  RedisOptions o = Options();
  o.command_timeout = std::chrono::milliseconds(150);
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  const Message m = MessageOf(Body(98, 12), 1000);
  ::kill(pid_, SIGSTOP);
  const auto start = std::chrono::steady_clock::now();
  auto l = store->Find(m);
  const auto took = std::chrono::steady_clock::now() - start;
  ::kill(pid_, SIGCONT);
  ASSERT_FALSE(l.has_value());
  EXPECT_EQ(l.error().code(), Error::Code::kUnavailable);
  EXPECT_LT(took, std::chrono::milliseconds(400));
  EXPECT_EQ(LogCount("redis: down: "), 1);
}

// Find's two steps share one command timeout: the second runs under what
// the first left (Link::SetTimeout). Here the mechanism, on a stalled
// server: a link opened with a long timeout gives up at the shorter one.
TEST_P(RedisServerFaultTest, ALinksTimeoutCanBeShortened) {
  RedisOptions o = Options();
  o.command_timeout = std::chrono::seconds(3);
  auto connect = ConnectOptionsFor(o);
  ASSERT_TRUE(connect.has_value()) << connect.error().ToString();
  auto seeds = ParseClusterSeeds(o.cluster);
  ASSERT_TRUE(seeds.has_value()) << seeds.error().ToString();
  const std::string anchor = RedisKeyPrefix(o.prefix) + "n";
  auto link = Link::Open({*connect, *seeds, KeySlot(anchor)});
  ASSERT_TRUE(link.has_value()) << link.error().ToString();
  ASSERT_TRUE((*link)->Command({"GET", anchor}).has_value());
  ASSERT_TRUE((*link)->SetTimeout(std::chrono::milliseconds(100)).has_value());
  ::kill(pid_, SIGSTOP);
  const auto start = std::chrono::steady_clock::now();
  auto r = (*link)->Command({"GET", anchor});
  const auto took = std::chrono::steady_clock::now() - start;
  ::kill(pid_, SIGCONT);
  EXPECT_FALSE(r.has_value());
  EXPECT_GE(took, std::chrono::milliseconds(90));
  EXPECT_LT(took, std::chrono::seconds(1));
}

TEST_P(RedisServerFaultTest, WrongPasswordIsAClearErrorWithoutThePassword) {
  RedisOptions o = Options();
  std::ofstream(dir_.File("wrong")) << "not-the-password\n";
  o.password_file = dir_.File("wrong");
  auto store = OpenRedis(o);
  ASSERT_FALSE(store.has_value());
  // A configuration error, refused at start: no later call would cure it.
  EXPECT_EQ(store.error().code(), Error::Code::kInvalidArgument);
  EXPECT_NE(store.error().message().find("authentication as mwtest refused"),
            std::string::npos)
      << store.error().message();
  EXPECT_EQ(store.error().message().find("not-the-password"),
            std::string::npos);
  for (const std::string& line : Log()) {
    EXPECT_EQ(line.find("not-the-password"), std::string::npos) << line;
  }
  o.password_file = dir_.File("absent");
  store = OpenRedis(o);
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code(), Error::Code::kIo);
  o = Options();
  o.address = "redis://localhost";
  store = OpenRedis(o);
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code(), Error::Code::kInvalidArgument);
}

TEST(RedisAddressTest, Parses) {
  auto u = ParseRedisAddress("unix:/run/redis/redis.sock");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->unix_path, "/run/redis/redis.sock");
  auto t = ParseRedisAddress("tcp://10.0.0.5:6380");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->host, "10.0.0.5");
  EXPECT_EQ(t->port, 6380);
  auto v6 = ParseRedisAddress("tcp://[::1]:6379");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_FALSE(t->tls);
  auto tls = ParseRedisAddress("tls://redis.example.org:6380");
  ASSERT_TRUE(tls.has_value());
  EXPECT_TRUE(tls->tls);
  EXPECT_EQ(tls->host, "redis.example.org");
  EXPECT_EQ(tls->port, 6380);
  EXPECT_FALSE(ParseRedisAddress("tls://host").has_value());
  EXPECT_FALSE(ParseRedisAddress("tls:/host:1").has_value());
  EXPECT_FALSE(ParseRedisAddress("tcp://host").has_value());
  EXPECT_FALSE(ParseRedisAddress("tcp://host:0").has_value());
  EXPECT_FALSE(ParseRedisAddress("unix:relative").has_value());
  EXPECT_FALSE(ParseRedisAddress("localhost:6379").has_value());
}

// TLS itself: what is refused, and that it is TLS that is spoken.
class RedisTlsTest : public RedisStoreTest {
 protected:
  // OpenRedis(o) fails with `code` and a message holding `says`, and
  // neither it nor the log holds the password.
  void ExpectRefused(const RedisOptions& o, Error::Code code,
                     std::string_view says) {
    auto store = OpenRedis(o);
    ASSERT_FALSE(store.has_value());
    EXPECT_EQ(store.error().code(), code) << store.error().ToString();
    EXPECT_NE(store.error().message().find(says), std::string::npos)
        << store.error().message();
    EXPECT_EQ(store.error().message().find(kPassword), std::string::npos);
    for (const std::string& line : Log()) {
      EXPECT_EQ(line.find(kPassword), std::string::npos) << line;
    }
  }
};

TEST_P(RedisTlsTest, ServerIsReachedByAddressOrName) {
  const Message m = MessageOf(Body(1, 10), 1000);
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    RedisOptions o = Options();
    o.address = "tls://" + host + ":" + std::to_string(tls_port_);
    auto store = Open(o);
    ASSERT_NE(store, nullptr) << host;
    auto l = store->Find(m);
    ASSERT_TRUE(l.has_value()) << host << ": " << l.error().ToString();
  }
  // The port speaks TLS only: plain RESP to it gets no answer, so the store
  // starts down and says so once.
  RedisOptions plain = Options();
  plain.address = "tcp://127.0.0.1:" + std::to_string(tls_port_);
  plain.tls_ca_file.clear();
  plain.tls_cert_file.clear();
  plain.tls_key_file.clear();
  auto store = OpenRedis(plain);
  ASSERT_TRUE(store.has_value()) << store.error().ToString();
  auto l = (*store)->Find(m);
  ASSERT_FALSE(l.has_value());
  EXPECT_EQ(l.error().code(), Error::Code::kUnavailable);
  EXPECT_EQ(LogCount("redis: down: "), 1);
}

TEST_P(RedisTlsTest, CertificateOfAnotherCaOrNameIsRefusedAtOpen) {
  RedisOptions o = Options();
  o.tls_ca_file = certs_.other_ca;
  ExpectRefused(o, Error::Code::kInvalidArgument, "is refused");
  o = Options();
  o.tls_server_name = "redis.example.org";
  ExpectRefused(o, Error::Code::kInvalidArgument, "redis.example.org");
  // No CA file: the system's CAs, which never signed the test's.
  o = Options();
  o.tls_ca_file.clear();
  ExpectRefused(o, Error::Code::kInvalidArgument, "is refused");
}

TEST_P(RedisTlsTest, BadTlsFilesAreSaidAtOpen) {
  RedisOptions o = Options();
  o.tls_ca_file = dir_.File("absent.crt");
  ExpectRefused(o, Error::Code::kIo, "absent.crt");
  o = Options();
  o.tls_key_file.clear();
  ExpectRefused(o, Error::Code::kInvalidArgument, "needs its key");
  o = Options();
  o.tls_key_file = certs_.server_key;  // not the client certificate's
  ExpectRefused(o, Error::Code::kInvalidArgument, "server.key (of ");
  o = Options();
  std::ofstream(dir_.File("junk.crt")) << "not a certificate\n";
  o.tls_ca_file = dir_.File("junk.crt");
  ExpectRefused(o, Error::Code::kInvalidArgument, "junk.crt");
  // Certificates for a plain address: TLS was meant, and the password would
  // cross in clear.
  o = Options();
  o.address = "unix:" + socket_;
  ExpectRefused(o, Error::Code::kInvalidArgument, "not \"tls://host:port\"");
}

TEST_P(RedisTlsTest, SilentPeerTimesOutWithinTheConnectTimeout) {
  // A port that never answers the handshake.
  const testing::SilentPeer silent;
  ASSERT_TRUE(silent.ok());
  RedisOptions o = TimedOptions();
  o.address = "tls://127.0.0.1:" + std::to_string(silent.port());
  const auto start = std::chrono::steady_clock::now();
  auto store = OpenRedis(o);
  const auto took = std::chrono::steady_clock::now() - start;
  // Unreachable is not a configuration error: the store starts down.
  ASSERT_TRUE(store.has_value()) << store.error().ToString();
  EXPECT_LT(took, o.connect_timeout + std::chrono::milliseconds(150));
  ASSERT_EQ(LogCount("redis: down: "), 1);
  EXPECT_NE(Log().front().find("TLS handshake: timeout"), std::string::npos)
      << Log().front();
}

TEST_P(RedisTlsTest, ServerThatWantsAClientCertificateSaysSoWithoutOne) {
  RedisOptions o = Options();
  o.tls_cert_file.clear();
  o.tls_key_file.clear();
  // TLS 1.3 settles the client's certificate after the client's side of the
  // handshake: the refusal comes with the first reply, so the store starts
  // down (the log says why) instead of failing its start.
  auto store = OpenRedis(o);
  if (!store) {
    EXPECT_NE(store.error().message().find("certificate"), std::string::npos)
        << store.error().message();
    return;
  }
  auto l = (*store)->Find(MessageOf(Body(1, 10), 1000));
  ASSERT_FALSE(l.has_value());
  EXPECT_EQ(l.error().code(), Error::Code::kUnavailable);
  ASSERT_EQ(LogCount("redis: down: "), 1) << ::testing::PrintToString(Log());
  bool said = false;
  for (const std::string& line : Log()) {
    said = said || line.find("certificate") != std::string::npos;
  }
  EXPECT_TRUE(said) << "no log line names the certificate: "
                    << ::testing::PrintToString(Log());
}

// What a Cluster master that fails does to the sites it serves, and to the
// others.
class RedisClusterFaultTest : public RedisStoreTest {};

// The master of site t1 killed: t1's calls fail in time (its mail passes
// untagged) with one "down" line, while a site another master serves is
// still served; the master restarted, t1 is served again with one "back".
TEST_P(RedisClusterFaultTest, AKilledMasterStopsOnlyItsOwnSites) {
  const RedisOptions o = TimedOptions();
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  auto client = ClusterClient::Open(cluster_.Seeds(), ConnectOptions{});
  ASSERT_TRUE(client.has_value());
  const SlotMap& map = (*client)->map();
  const int t1_master = map.Owner(KeySlot("{mw:t1}:"));
  RedisOptions other = o;
  for (int i = 0; i < 100 && other.prefix == "t1"; ++i) {
    const std::string p = "s" + std::to_string(i);
    if (map.Owner(KeySlot("{mw:" + p + "}:")) != t1_master) other.prefix = p;
  }
  ASSERT_NE(other.prefix, "t1");
  auto store2 = Open(other);
  ASSERT_NE(store2, nullptr);
  const Message m = MessageOf(Body(99, 12), 1000);
  Record(*store, m);
  Record(*store2, m);

  std::size_t dead = 0;
  while (cluster_.nodes()[dead].port !=
         map.masters[static_cast<std::size_t>(t1_master)].port)
    ++dead;
  cluster_.Kill(dead);
  // Past the node timeout (2 s here), when the others have marked it failed.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < until) {
    ASSERT_NO_FATAL_FAILURE(ExpectUnavailableInTime(*store, m, o));
    auto l2 = store2->Find(m);
    ASSERT_TRUE(l2.has_value()) << l2.error().ToString();
    EXPECT_EQ(l2->candidates.size(), 1u);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(LogCount("redis: down: "), 1);

  ASSERT_TRUE(cluster_.Restart(dead));
  auto admin = testing::RedisCluster::Admin(cluster_.nodes()[dead].port);
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(AddUser(*admin));  // ACL users are not kept by a restart here
  ASSERT_NO_FATAL_FAILURE(
      ExpectServedAgain(*store, m, std::chrono::seconds(10)));
}

// The site's master killed on a Cluster with a replica of each master: the
// replica takes over (after the node timeout, 2 s here, and an election) and
// the store follows it without a restart. Calls in between fail in time; then
// the wave goes on in the same cluster with every copy the replica had
// (replication is asynchronous: a copy acknowledged just before the kill and
// not yet replicated would be lost, hence WAIT here, and docs/store.md).
class RedisFailoverTest : public RedisStoreTest {
 protected:
  int Replicas() const override { return 1; }
};

TEST_P(RedisFailoverTest, AReplicaTakesOverAndTheWaveGoesOn) {
  const RedisOptions o = TimedOptions();
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  const std::string body = Body(4242, 14);
  const Recorded first = Record(*store, MessageOf(body, 1000));
  for (int k = 1; k <= 3; ++k) {
    const Recorded r =
        Record(*store, MessageOf(EditSentence(body, k, 11 * k), 1000 + k),
               first.cluster.id);
    ASSERT_EQ(r.cluster.size, static_cast<std::uint64_t>(k + 1));
  }
  auto admin = Admin();
  ASSERT_NE(admin, nullptr);
  // WAIT waits for this connection's own writes (those that reached the
  // replication stream): one after the store's makes it wait for theirs too.
  ASSERT_TRUE(admin->Command({"SET", "{mw:t1}:wait", "1"}).has_value());
  ASSERT_TRUE(admin->Command({"DEL", "{mw:t1}:wait"}).has_value());
  auto waited = admin->Command({"WAIT", "1", "5000"});
  ASSERT_TRUE(waited.has_value());
  ASSERT_EQ(waited->integer(), 1);  // the replica has all four

  auto client = ClusterClient::Open(cluster_.Seeds(), ConnectOptions{});
  ASSERT_TRUE(client.has_value());
  const SlotMap& map = (*client)->map();
  const int master_port =
      map.masters[static_cast<std::size_t>(map.Owner(KeySlot("{mw:t1}:")))]
          .port;
  std::size_t dead = 0;
  while (cluster_.nodes()[dead].port != master_port) ++dead;
  cluster_.Kill(dead);

  const Message next = MessageOf(EditSentence(body, 5, 77), 2000);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  Result<Lookup> l = Fail(Error::Internal("not asked"));
  int failed = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto start = std::chrono::steady_clock::now();
    l = store->Find(next);
    const auto took = std::chrono::steady_clock::now() - start;
    if (l) break;
    ++failed;
    EXPECT_EQ(l.error().code(), Error::Code::kUnavailable);
    EXPECT_LT(took, std::chrono::seconds(1)) << l.error().ToString();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(l.has_value()) << l.error().ToString() << "\n" << cluster_.Logs();
  EXPECT_GT(failed, 0);  // the failover took a while; the store said so
  ASSERT_FALSE(l->candidates.empty());
  EXPECT_EQ(l->candidates[0].cluster, first.cluster.id);
  const Recorded r = Record(*store, next, first.cluster.id);
  EXPECT_EQ(r.cluster.id, first.cluster.id);
  EXPECT_EQ(r.cluster.size, 5u);
  EXPECT_EQ(LogCount("redis: down: "), 1);
  EXPECT_EQ(LogCount("redis: back"), 1);
}

// The site's slot moved to another master while a host records a wave
// (`redis-cli --cluster reshard`, every slot of the site's master): the
// store's scripts read and write keys the slot's migration may already have
// moved, and Redis refuses such a script ("Script attempted to access a non
// local key") before it writes, so calls in the migration fail (the mail
// passes untagged) and none leaves a half-written message. After it, the
// store is served by the new master with every copy recorded before, during
// and after the move. docs/store.md gives the window.
class RedisReshardTest : public RedisStoreTest {};

TEST_P(RedisReshardTest, ALiveReshardLosesNoRecordedCopy) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto client = ClusterClient::Open(cluster_.Seeds(), ConnectOptions{});
  ASSERT_TRUE(client.has_value());
  const int site_slot = KeySlot("{mw:t1}:");
  const SlotMap& map = (*client)->map();
  const int from =
      map.masters[static_cast<std::size_t>(map.Owner(site_slot))].port;
  int to = 0;
  for (const auto& n : cluster_.nodes())
    if (n.port != from) to = n.port;
  auto id_of = [](int port) {
    auto id = testing::RedisCluster::Admin(port)->Command({"CLUSTER", "MYID"});
    return id ? std::string(id->str()) : std::string();
  };
  // Some mail besides the wave, so that the slot has keys to migrate.
  for (int i = 0; i < 300; ++i)
    Record(*store, MessageOf(Body(10000 + i, 6), 4000 + i));
  const std::string body = Body(88, 25);
  const Recorded first = Record(*store, MessageOf(body, 5000));

  std::atomic<bool> done{false};
  std::atomic<int> recorded{0}, failed{0}, not_unavailable{0};
  std::chrono::steady_clock::time_point first_failure, last_failure;
  std::thread host([&] {
    for (int i = 0; !done; ++i) {
      const Message m = MessageOf(EditSentence(body, i % 25, i), 9000 + i);
      auto l = store->Find(m);
      auto r =
          l ? store->Record(m, Join{.cluster = Decide(*l, 2), .seen = l->seen},
                            WaveRule{})
            : Result<Recorded>(Fail(l.error()));
      if (r) {
        ++recorded;
      } else {
        if (failed++ == 0) first_failure = std::chrono::steady_clock::now();
        last_failure = std::chrono::steady_clock::now();
        if (r.error().code() != Error::Code::kUnavailable) ++not_unavailable;
      }
    }
  });
  const int before = [&] {
    while (recorded < 50)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return recorded.load();
  }();
  const int rc = testing::RunProgram(
      {testing::FindProgram("redis-cli"), "--cluster", "reshard",
       "127.0.0.1:" + std::to_string(from), "--cluster-from", id_of(from),
       "--cluster-to", id_of(to), "--cluster-slots", "16384", "--cluster-yes"},
      dir_.File("reshard.log"));
  const int during = recorded.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  done = true;
  host.join();
  ASSERT_EQ(rc, 0) << testing::ReadFile(dir_.File("reshard.log"));
  std::printf(
      "recorded %d before the reshard, %d during, %d after; %d failed, "
      "within %.2f s\n",
      before, during - before, recorded.load() - during, failed.load(),
      failed == 0 ? 0.0
                  : std::chrono::duration<double>(last_failure - first_failure)
                        .count());
  EXPECT_EQ(not_unavailable.load(), 0);  // every failure passes the mail on
  EXPECT_GT(recorded.load(), during);    // served again after the move
  ASSERT_TRUE((*client)->RefreshMap().has_value());
  EXPECT_EQ(map.masters[static_cast<std::size_t>(map.Owner(site_slot))].port,
            to);
  auto check = store->Check();
  ASSERT_TRUE(check.has_value()) << check.error().ToString();
  EXPECT_EQ(*check, "ok");
  auto c = store->FindCluster(first.cluster.id);
  ASSERT_TRUE(c.has_value());
  ASSERT_TRUE(c->has_value());
  EXPECT_EQ((*c)->size, 1u + static_cast<std::uint64_t>(recorded.load()));
}

std::string ServerName(const ::testing::TestParamInfo<Server>& info) {
  return info.param == Server::kCluster      ? "Cluster"
         : info.param == Server::kTls        ? "Tls"
         : info.param == Server::kTlsCluster ? "TlsCluster"
                                             : "Single";
}

INSTANTIATE_TEST_SUITE_P(, RedisStoreTest,
                         ::testing::Values(Server::kSingle, Server::kCluster,
                                           Server::kTls, Server::kTlsCluster),
                         ServerName);
INSTANTIATE_TEST_SUITE_P(, RedisServerFaultTest,
                         ::testing::Values(Server::kSingle, Server::kTls),
                         ServerName);
INSTANTIATE_TEST_SUITE_P(, RedisTlsTest, ::testing::Values(Server::kTls),
                         ServerName);
INSTANTIATE_TEST_SUITE_P(, RedisClusterFaultTest,
                         ::testing::Values(Server::kCluster), ServerName);
INSTANTIATE_TEST_SUITE_P(, RedisFailoverTest,
                         ::testing::Values(Server::kCluster), ServerName);
INSTANTIATE_TEST_SUITE_P(, RedisReshardTest,
                         ::testing::Values(Server::kCluster), ServerName);

}  // namespace
}  // namespace mw::store
