// milter_load: drives a running milter over the milter protocol the way an
// MTA does, from many connections at once, and reports throughput, latency
// and the milter's memory.
//
//   milter_load --socket unix:/path|inet:PORT@HOST --connections N
//               [--seconds S] [--pid PID] [--split] [--rate R]
//               [--sample S] FILE...
//
// Opens N connections (one thread each), negotiates, and keeps all of them
// open for the whole run; each sends the FILEs (raw messages) in turn, as
// Postfix does: macros, MAIL FROM, the headers one by one, end of headers,
// the body in 64 KiB chunks, end of message; until S seconds have passed.
// Prints messages/s, the latency from MAIL FROM to the end-of-message reply
// (p50, p99, max), and, with --pid, the milter's VmRSS and VmHWM read from
// /proc while every connection is open. --split writes a macro packet and
// its command as two writes and leaves Nagle's algorithm on (what an MTA
// that sets no TCP_NODELAY does); by default each command goes in one write
// with TCP_NODELAY. --rate R paces all connections together to R messages
// per second (default: as fast as the milter answers); --sample S prints the
// milter's VmRSS every S seconds (a soak: memory over time).
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Message {
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

Message Split(const std::string& raw) {
  Message m;
  std::size_t pos = 0;
  std::string name, value;
  auto flush = [&] {
    if (!name.empty()) m.headers.emplace_back(name, value);
    name.clear();
    value.clear();
  };
  while (pos < raw.size()) {
    std::size_t eol = raw.find('\n', pos);
    if (eol == std::string::npos) eol = raw.size();
    std::string line = raw.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') {
      value += "\n" + line;  // folded, as Postfix passes it
      continue;
    }
    flush();
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    name = line.substr(0, colon);
    std::size_t v = colon + 1;
    while (v < line.size() && line[v] == ' ') ++v;
    value = line.substr(v);
  }
  flush();
  if (pos < raw.size()) {
    // CRLF line ends, as on the wire
    for (std::size_t i = pos; i < raw.size(); ++i) {
      if (raw[i] == '\n' && (i == pos || raw[i - 1] != '\r')) m.body += '\r';
      m.body += raw[i];
    }
  }
  return m;
}

int Connect(const std::string& conn) {
  if (conn.rfind("unix:", 0) == 0) {
    const std::string path = conn.substr(5);
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    std::strncpy(sun.sun_path, path.c_str(), sizeof sun.sun_path - 1);
    if (connect(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  }
  if (conn.rfind("inet:", 0) != 0) return -1;
  const std::string rest = conn.substr(5);
  const std::size_t at = rest.find('@');
  const std::string port = rest.substr(0, at);
  const std::string host =
      at == std::string::npos ? "127.0.0.1" : rest.substr(at + 1);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* ai = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &ai) != 0) return -1;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  const int r = connect(fd, ai->ai_addr, ai->ai_addrlen);
  freeaddrinfo(ai);
  if (r != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

class Wire {
 public:
  Wire(int fd, bool split) : fd_(fd), split_(split) {
    if (!split_) {
      const int on = 1;
      setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
  }
  ~Wire() { close(fd_); }

  // One packet; with `macro`, the macro packet goes first (two writes in
  // --split mode, one otherwise).
  bool Send(char cmd, std::string_view data, std::string_view macro = {}) {
    std::string out;
    if (!macro.empty()) {
      Append(&out, 'D', macro);
      if (split_) {
        if (!WriteAll(out)) return false;
        out.clear();
      }
    }
    Append(&out, cmd, data);
    return WriteAll(out);
  }

  // The payload of the last reply (after its command byte).
  std::string_view payload() const {
    return std::string_view(reinterpret_cast<const char*>(buf_.data()) + 1,
                            buf_.size() - 1);
  }

  // The next reply's command byte; 0 on a closed or broken connection.
  char Reply() {
    unsigned char len[4];
    if (!ReadAll(len, 4)) return 0;
    const std::uint32_t n = (std::uint32_t{len[0]} << 24) |
                            (std::uint32_t{len[1]} << 16) |
                            (std::uint32_t{len[2]} << 8) | len[3];
    if (n == 0 || n > (1u << 24)) return 0;
    buf_.resize(n);
    if (!ReadAll(buf_.data(), n)) return 0;
    return static_cast<char>(buf_[0]);
  }

 private:
  static void Append(std::string* out, char cmd, std::string_view data) {
    const std::uint32_t n = htonl(static_cast<std::uint32_t>(data.size() + 1));
    out->append(reinterpret_cast<const char*>(&n), 4);
    out->push_back(cmd);
    out->append(data);
  }
  bool WriteAll(const std::string& s) {
    std::size_t off = 0;
    while (off < s.size()) {
      const ssize_t w = write(fd_, s.data() + off, s.size() - off);
      if (w <= 0) return false;
      off += static_cast<std::size_t>(w);
    }
    return true;
  }
  bool ReadAll(void* p, std::size_t n) {
    auto* c = static_cast<unsigned char*>(p);
    while (n > 0) {
      const ssize_t r = read(fd_, c, n);
      if (r <= 0) return false;
      c += r;
      n -= static_cast<std::size_t>(r);
    }
    return true;
  }
  int fd_;
  bool split_;
  std::vector<unsigned char> buf_;
};

std::string Z(std::string_view s) {
  std::string out(s);
  out.push_back('\0');
  return out;
}

std::string Be32(std::uint32_t v) {
  v = htonl(v);
  return std::string(reinterpret_cast<const char*>(&v), 4);
}

constexpr std::uint32_t kNoReplyConn = 0x1000;   // SMFIP_NR_CONN
constexpr std::uint32_t kNoReplyMail = 0x4000;   // SMFIP_NR_MAIL
constexpr std::uint32_t kNoReplyHeader = 0x80;   // SMFIP_NR_HDR
constexpr std::uint32_t kNoReplyEoh = 0x40000;   // SMFIP_NR_EOH
constexpr std::uint32_t kNoReplyBody = 0x80000;  // SMFIP_NR_BODY

// A step's reply, unless the milter negotiated it away (`quiet` holds the
// negotiated protocol bits): 'c' then.
char Step(Wire& w, std::uint32_t quiet, std::uint32_t bit) {
  return (quiet & bit) != 0 ? 'c' : w.Reply();
}

// One message; false on a protocol failure. `quiet`: the protocol bits the
// milter answered the negotiation with.
bool SendMessage(Wire& w, std::uint32_t quiet, const Message& m,
                 const std::string& qid) {
  if (!w.Send('M', Z("<load@example.org>"), "M" + Z("i") + Z(qid)) ||
      Step(w, quiet, kNoReplyMail) != 'c')
    return false;
  for (const auto& [name, value] : m.headers) {
    if (!w.Send('L', Z(name) + Z(value))) return false;
    const char r = Step(w, quiet, kNoReplyHeader);
    if (r != 'c') return r == 'a';  // accept: nothing more is wanted
  }
  if (!w.Send('N', {}) || Step(w, quiet, kNoReplyEoh) != 'c') return false;
  for (std::size_t off = 0; off < m.body.size(); off += 65535) {
    if (!w.Send('B', std::string_view(m.body).substr(off, 65535)) ||
        Step(w, quiet, kNoReplyBody) != 'c')
      return false;
  }
  if (!w.Send('E', {})) return false;
  for (;;) {
    const char r = w.Reply();
    if (r == 'c' || r == 'a') return true;
    // header edits, quarantine
    if (r == 'h' || r == 'm' || r == 'i' || r == 'q') continue;
    return false;
  }
}

long ProcKb(int pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0)
      return std::atol(line.c_str() + key.size() + 1);
  }
  return -1;
}

int Usage() {
  std::fputs(
      "usage: milter_load --socket ADDR --connections N [--seconds S] "
      "[--pid PID] [--split] [--rate R] [--sample S] FILE...\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string socket_addr;
  int connections = 1;
  double seconds = 10;
  int pid = 0;
  bool split = false;
  double rate = 0;
  double sample = 0;
  std::vector<Message> messages;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--socket" && i + 1 < argc) {
      socket_addr = argv[++i];
    } else if (a == "--connections" && i + 1 < argc) {
      connections = std::atoi(argv[++i]);
    } else if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--pid" && i + 1 < argc) {
      pid = std::atoi(argv[++i]);
    } else if (a == "--rate" && i + 1 < argc) {
      rate = std::atof(argv[++i]);
    } else if (a == "--sample" && i + 1 < argc) {
      sample = std::atof(argv[++i]);
    } else if (a == "--split") {
      split = true;
    } else if (!a.empty() && a[0] == '-') {
      return Usage();
    } else {
      std::ifstream in(a, std::ios::binary);
      std::string raw((std::istreambuf_iterator<char>(in)), {});
      if (!raw.empty()) messages.push_back(Split(raw));
    }
  }
  if (socket_addr.empty() || connections < 1 || messages.empty())
    return Usage();

  const long rss_before = pid > 0 ? ProcKb(pid, "VmRSS") : -1;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::atomic<long> failures{0};
  // --rate: message n (over all connections) starts no earlier than n/rate
  // seconds after the start.
  std::atomic<long> ticket{0};
  Clock::time_point paced_start;
  std::mutex mu;
  std::vector<double> latencies_ms;
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      const int fd = Connect(socket_addr);
      if (fd < 0) {
        ++failures;
        ++ready;
        return;
      }
      Wire w(fd, split);
      // Version 6, every action, every "no" and "no reply" step offered, as
      // Postfix does; the milter's answer says which it takes.
      bool ok = w.Send('O', Be32(6) + Be32(0x1ff) + Be32(0x1fffff)) &&
                w.Reply() == 'O' && w.payload().size() >= 12;
      std::uint32_t quiet = 0;
      if (ok) {
        const auto* p =
            reinterpret_cast<const unsigned char*>(w.payload().data()) + 8;
        quiet = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
                (std::uint32_t{p[2]} << 8) | p[3];
      }
      constexpr std::uint32_t kNoConnect = 0x1;  // SMFIP_NOCONNECT
      if (ok && (quiet & kNoConnect) == 0) {
        ok = w.Send('C', Z("client.example") + "4" + std::string("\0\x19", 2) +
                             Z("127.0.0.1")) &&
             Step(w, quiet, kNoReplyConn) == 'c';
      }
      ++ready;
      if (!ok) {
        ++failures;
        return;
      }
      while (!go.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::vector<double> mine;
      for (std::size_t n = static_cast<std::size_t>(c); !stop.load(); ++n) {
        const Message& m = messages[n % messages.size()];
        if (rate > 0) {
          const long k = ticket.fetch_add(1);
          std::this_thread::sleep_until(
              paced_start + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(k / rate)));
          if (stop.load()) break;
        }
        const auto t0 = Clock::now();
        if (!SendMessage(
                w, quiet, m,
                "LOAD" + std::to_string(c) + "x" + std::to_string(n))) {
          ++failures;
          return;
        }
        mine.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - t0)
                .count());
      }
      w.Send('Q', {});
      std::lock_guard lock(mu);
      latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
    });
  }
  while (ready.load() < connections)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const long rss_open = pid > 0 ? ProcKb(pid, "VmRSS") : -1;
  const auto start = Clock::now();
  paced_start = start;
  go = true;
  long rss_peak_run = -1;
  auto next_sample = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(sample));
  while (Clock::now() - start < std::chrono::duration<double>(seconds)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (pid > 0) rss_peak_run = std::max(rss_peak_run, ProcKb(pid, "VmRSS"));
    if (sample > 0 && pid > 0 && Clock::now() >= next_sample) {
      std::printf("sample t=%.0f milter_rss_kib=%ld\n",
                  std::chrono::duration<double>(Clock::now() - start).count(),
                  ProcKb(pid, "VmRSS"));
      std::fflush(stdout);
      next_sample += std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(sample));
    }
  }
  const long rss_busy = pid > 0 ? ProcKb(pid, "VmRSS") : -1;
  stop = true;
  for (auto& t : threads) t.join();
  const double elapsed =
      std::chrono::duration<double>(Clock::now() - start).count();

  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto pct = [&](double p) {
    if (latencies_ms.empty()) return 0.0;
    return latencies_ms[std::min(
        latencies_ms.size() - 1,
        static_cast<std::size_t>(p * latencies_ms.size()))];
  };
  std::printf(
      "connections=%d split=%s messages=%zu seconds=%.2f messages_per_s=%.1f "
      "latency_ms p50=%.3f p99=%.3f max=%.3f failures=%ld\n",
      connections, split ? "yes" : "no", latencies_ms.size(), elapsed,
      latencies_ms.size() / elapsed, pct(0.5), pct(0.99),
      latencies_ms.empty() ? 0.0 : latencies_ms.back(), failures.load());
  if (pid > 0) {
    std::printf(
        "milter_rss_kib before=%ld connections_open=%ld busy_peak=%ld "
        "busy_end=%ld hwm=%ld threads=%ld\n",
        rss_before, rss_open, rss_peak_run, rss_busy, ProcKb(pid, "VmHWM"),
        ProcKb(pid, "Threads"));
  }
  return failures.load() == 0 ? 0 : 1;
}
