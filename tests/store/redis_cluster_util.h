// A private Redis Cluster on loopback for the store's tests: N masters of
// Debian's redis-server with cluster-enabled yes, joined by `redis-cli
// --cluster create` (as an administrator would), in a temporary directory;
// killed when it goes. Ports are found free by binding port 0.
#ifndef MW_TESTS_STORE_REDIS_CLUSTER_UTIL_H_
#define MW_TESTS_STORE_REDIS_CLUSTER_UTIL_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mw/fd.h"
#include "redis_conn.h"
#include "tests/store/test_util.h"

extern char** environ;

namespace mw::store::testing {

// A loopback port that accepts connections (the kernel completes them from
// its backlog) and never answers: a host that hangs. `port` 0: a free one.
class SilentPeer {
 public:
  explicit SilentPeer(int port = 0) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    const int one = 1;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ok_ = fd_.get() >= 0 &&
          ::setsockopt(fd_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ==
              0 &&
          ::bind(fd_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
          ::listen(fd_.get(), 16) == 0 &&
          ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&a), &len) == 0;
    port_ = ntohs(a.sin_port);
  }
  bool ok() const { return ok_; }
  int port() const { return port_; }

 private:
  mw::Fd fd_;
  int port_ = 0;
  bool ok_ = false;
};

inline std::string FindProgram(const char* name) {
  for (const char* dir : {"/usr/bin/", "/usr/sbin/", "/usr/local/bin/"}) {
    const std::string p = std::string(dir) + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

// Ports free on 127.0.0.1 now: each socket is bound to port 0 and held
// until all are known, so that the ports differ.
inline std::vector<int> FreePorts(int n) {
  std::vector<int> fds, ports;
  for (int i = 0; i < n; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ADD_FAILURE() << "cannot find a free port";
      break;
    }
    fds.push_back(fd);
    ports.push_back(ntohs(a.sin_port));
  }
  for (int fd : fds) ::close(fd);
  return ports;
}

// Starts args[0] with `args` (its output where `actions` sends it, or
// inherited when null); false when it could not start.
inline bool SpawnProgram(const std::vector<std::string>& args, pid_t* pid,
                         const posix_spawn_file_actions_t* actions = nullptr) {
  std::vector<char*> argv;
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return ::posix_spawn(pid, args[0].c_str(), actions, nullptr, argv.data(),
                       environ) == 0;
}

// Runs a program to its end; its output goes to `log`. The exit status, or
// -1 when it could not start.
inline int RunProgram(const std::vector<std::string>& args,
                      const std::string& log) {
  posix_spawn_file_actions_t fa;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawn_file_actions_addopen(&fa, 1, log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  ::posix_spawn_file_actions_adddup2(&fa, 1, 2);
  ::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const bool started = SpawnProgram(args, &pid, &fa);
  ::posix_spawn_file_actions_destroy(&fa);
  if (!started) return -1;
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class RedisCluster {
 public:
  struct Node {
    int port = 0;
    int bus_port = 0;
    pid_t pid = 0;
    int tls_port = 0;  // with StartTls only
  };
  // The certificate files of a TLS Cluster (tls_certs.h makes them).
  struct TlsFiles {
    std::string ca, cert, key;
  };

  RedisCluster() = default;
  RedisCluster(const RedisCluster&) = delete;
  RedisCluster& operator=(const RedisCluster&) = delete;
  ~RedisCluster() {
    for (Node& n : nodes_) Kill(n);
  }

  // Whether redis-server and redis-cli are installed (else the test skips).
  static bool Available() {
    return !FindProgram("redis-server").empty() &&
           !FindProgram("redis-cli").empty();
  }

  // Starts `masters` masters and `replicas` replicas of each, joins them and
  // waits until every node says cluster_state:ok and every replica's link
  // to its master is up. A failure is reported with the nodes' logs.
  ::testing::AssertionResult Start(int masters, int replicas = 0) {
    const int count = masters * (1 + replicas);
    const std::vector<int> ports = FreePorts(3 * count);
    if (static_cast<int>(ports.size()) != 3 * count)
      return ::testing::AssertionFailure() << "no free ports";
    for (int i = 0; i < count; ++i) {
      nodes_.push_back({ports[3 * i], ports[3 * i + 1], 0,
                        tls_.ca.empty() ? 0 : ports[3 * i + 2]});
      if (!Spawn(nodes_.back()))
        return ::testing::AssertionFailure() << "cannot start redis-server";
    }
    for (const Node& n : nodes_) {
      if (!WaitForPing(n.port))
        return ::testing::AssertionFailure()
               << "node " << n.port << " does not answer:\n"
               << Logs();
    }
    std::vector<std::string> create = {FindProgram("redis-cli"), "--cluster",
                                       "create"};
    for (const Node& n : nodes_)
      create.push_back("127.0.0.1:" + std::to_string(n.port));
    create.insert(create.end(), {"--cluster-replicas", std::to_string(replicas),
                                 "--cluster-yes"});
    const std::string log = dir_.File("create.log");
    if (RunProgram(create, log) != 0) {
      return ::testing::AssertionFailure()
             << "redis-cli --cluster create failed:\n"
             << ReadFile(log) << Logs();
    }
    for (const Node& n : nodes_) {
      if (!WaitForState(n.port, "cluster_state:ok"))
        return ::testing::AssertionFailure()
               << "node " << n.port << " never reached cluster_state:ok:\n"
               << ReadFile(log) << Logs();
      auto role = Admin(n.port)->Command({"ROLE"});
      if (role && role->size() > 0 && role->at(0).str() == "slave" &&
          !WaitForInfo(n.port, "replication", "master_link_status:up")) {
        return ::testing::AssertionFailure()
               << "replica " << n.port << " never linked to its master:\n"
               << Logs();
      }
    }
    return ::testing::AssertionSuccess();
  }

  // Start with a TLS port beside each node's plain one (the plain ports stay
  // for the tests' administration and for redis-cli), the cluster bus and
  // replication over TLS too, and the nodes announcing their TLS ports
  // (tls-cluster yes): a client on the TLS seeds finds TLS ports in the map.
  ::testing::AssertionResult StartTls(const TlsFiles& files, int masters,
                                      int replicas = 0) {
    tls_ = files;
    return Start(masters, replicas);
  }

  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<RedisAddress> Seeds() const {
    std::vector<RedisAddress> s;
    for (const Node& n : nodes_) s.push_back(Address(n.port));
    return s;
  }
  static RedisAddress Address(int port) {
    RedisAddress a;
    a.host = "127.0.0.1";
    a.port = port;
    return a;
  }
  // A connection to one node, as the administrator.
  static std::unique_ptr<Connection> Admin(int port) {
    ConnectOptions o;
    o.address = Address(port);
    o.command_timeout = std::chrono::seconds(5);
    auto c = Connection::Open(o);
    return c ? std::move(*c) : nullptr;
  }
  void Kill(Node& n) {
    if (n.pid <= 0) return;
    ::kill(n.pid, SIGKILL);
    int status = 0;
    ::waitpid(n.pid, &status, 0);
    n.pid = 0;
  }
  void Kill(std::size_t i) { Kill(nodes_[i]); }
  // Starts a killed node again on its port and with its nodes.conf, so that
  // it rejoins with its slots (empty: nothing is persisted), and waits until
  // it says cluster_state:ok.
  ::testing::AssertionResult Restart(std::size_t i) {
    Node& n = nodes_[i];
    if (n.pid > 0) return ::testing::AssertionFailure() << "still running";
    if (!Spawn(n) || !WaitForPing(n.port) ||
        !WaitForState(n.port, "cluster_state:ok")) {
      return ::testing::AssertionFailure()
             << "node " << n.port << " did not come back:\n"
             << Logs();
    }
    return ::testing::AssertionSuccess();
  }
  std::string Logs() const {
    std::string all;
    for (const Node& n : nodes_) {
      all += "--- node " + std::to_string(n.port) + "\n" +
             ReadFile(dir_.File("redis-" + std::to_string(n.port) + ".log"));
    }
    return all;
  }

 private:
  bool Spawn(Node& n) {
    const std::string port = std::to_string(n.port);
    const std::vector<std::string> args = {
        FindProgram("redis-server"), "--port", port, "--bind", "127.0.0.1",
        "--cluster-enabled", "yes", "--cluster-port",
        std::to_string(n.bus_port), "--cluster-config-file",
        dir_.File("nodes-" + port + ".conf"), "--cluster-node-timeout", "2000",
        // As docs/store.md advises: the slots of live masters keep serving
        // while another master is down (by default the whole cluster stops).
        "--cluster-require-full-coverage", "no", "--dir", dir_.path(), "--save",
        "", "--appendonly", "no", "--daemonize", "no", "--logfile",
        dir_.File("redis-" + port + ".log")};
    std::vector<std::string> all = args;
    if (!tls_.ca.empty()) {
      all.insert(all.end(),
                 {"--tls-port", std::to_string(n.tls_port), "--tls-cert-file",
                  tls_.cert, "--tls-key-file", tls_.key, "--tls-ca-cert-file",
                  tls_.ca, "--tls-cluster", "yes", "--tls-replication", "yes"});
    }
    return SpawnProgram(all, &n.pid);
  }
  static bool WaitForPing(int port) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (auto c = Admin(port)) {
        auto pong = c->Command({"PING"});
        if (pong && pong->str() == "PONG") return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  static bool WaitForState(int port, const std::string& state) {
    return WaitForInfo(port, "", state);
  }
  // Waits until INFO `section` (CLUSTER INFO when empty) holds `text`.
  static bool WaitForInfo(int port, const std::string& section,
                          const std::string& text) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (auto c = Admin(port)) {
        auto info = section.empty() ? c->Command({"CLUSTER", "INFO"})
                                    : c->Command({"INFO", section});
        if (info && info->str().find(text) != std::string_view::npos)
          return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  TempDir dir_;
  std::vector<Node> nodes_;
  TlsFiles tls_;
};

}  // namespace mw::store::testing

#endif  // MW_TESTS_STORE_REDIS_CLUSTER_UTIL_H_
