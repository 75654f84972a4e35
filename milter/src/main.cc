// mailwave-milter [-c FILE] [-f]: the milter daemon (docs/milter.md).
//
// Start: read the configuration, bind the socket (as root when started so),
// detach and write the pid file (unless -f), become [milter] user, open the
// store (one that cannot be opened is logged once and the milter runs
// without: messages pass with the language header alone), build the analyzer
// and run our protocol engine (engine.h) on one Boost.Asio loop, the analysis
// on [milter] threads workers. Signals arrive on that loop (asio signal_set,
// no thread of their own): SIGHUP reloads the configuration and the
// dictionary, built on a worker and then swapped (a bad new one is refused
// with one line and the old one stays); SIGTERM and SIGINT stop accepting,
// remove the unix socket, close connections between messages, let the
// messages in flight finish within [milter] drain, and exit 0.
// Reads every [milter] key (config.h), [metrics] listen, and what the
// pipeline reads.
// Security: bound as root only to make the socket and pid file; then runs as
// [milter] user. Wire data never crashes it: a malformed packet closes that
// one connection (the MTA applies milter_default_action).
// Exit status: 0 after a clean shutdown, 1 on a runtime failure, 2 on a usage
// or configuration error.
#include <signal.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "engine.h"
#include "gpu/engine.h"
#include "in_flight.h"
#include "log.h"
#include "metrics/server.h"
#include "metrics_hooks.h"
#include "mw/roff.h"
#include "notify.h"
#include "pipeline/analysis.h"
#include "pipeline/options.h"
#include "pipeline/policy.h"
#include "pipeline/store_open.h"
#include "pipeline/window.h"
#include "process.h"
#include "relays.h"
#include "snapshot.h"
#include "store/sqlite.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

constexpr char kUsage[] =
    "usage: mailwave-milter [-c FILE] [-f]\n"
    "       mailwave-milter --man\n"
    "  -c FILE  configuration file (default /etc/mailwave/mailwave.toml when "
    "it exists)\n"
    "  -f       stay in the foreground and log to stderr; without it the\n"
    "           daemon detaches, writes [milter] pid_file and logs to syslog\n"
    "           (facility mail)\n"
    "  --man    print this program's man page, mailwave-milter(8), in roff\n"
    "signals: HUP reloads the configuration and the dictionary; TERM and INT\n"
    "stop accepting, let messages in flight finish ([milter] drain), exit 0\n";

// mailwave-milter(8): the usage above and what a postmaster needs around it.
std::string ManPage() {
  namespace r = mw::roff;
  std::string out = r::Title("MAILWAVE-MILTER", "8", "", "mailwave " MW_VERSION,
                             "System Manager's Manual");
  out += r::Section("NAME");
  out +=
      "mailwave\\-milter \\- milter that tags duplicate mail and spam "
      "waves for Postfix and Sendmail\n";
  out += r::Section("SYNOPSIS");
  out += r::Preformatted(kUsage);
  out += r::Section("DESCRIPTION");
  out += r::Paragraph(
      "mailwave-milter speaks the milter protocol (version 6) to Postfix or "
      "Sendmail on [milter] socket. For every message it parses the MIME "
      "structure, identifies the language, fingerprints the body, looks it "
      "up in the store of recent mail ([store]: SQLite, or Redis shared by "
      "several MX hosts, hashes only), decides whether the message belongs "
      "to a cluster of near-duplicates and whether that cluster is a wanted "
      "bulk wave or a spread spam wave, and adds X-Mailwave-Wave and "
      "X-Mailwave-Language headers for SpamAssassin and Sieve. Headers of "
      "those names that arrive with a message are deleted first. One log "
      "line per message names its queue id and verdict.");
  out += r::Paragraph(
      "Nothing the milter meets stops the mail: a malformed message, a "
      "store that fails or an analysis past [milter] deadline is answered "
      "with [milter] on_error (accept by default: the message passes "
      "untagged), logged and counted in the metrics ([metrics] listen).");
  out += r::Section("SIGNALS");
  out += r::Tagged("HUP",
                   "reload the configuration file and the language "
                   "dictionary without dropping a connection; a file "
                   "that does not validate is refused in one log line "
                   "and the running configuration stays.");
  out += r::Tagged("TERM, INT",
                   "stop accepting connections, let the messages in flight "
                   "finish within [milter] drain, remove the socket, exit 0.");
  out += r::Section("EXIT STATUS");
  out += r::Tagged("0", "stopped by a signal after the drain");
  out += r::Tagged("1",
                   "a failure at start: no dictionary, a socket that "
                   "cannot be made, a user that cannot be become");
  out += r::Tagged("2",
                   "a usage or configuration error, one line on "
                   "standard error naming file, key and reason");
  out += r::Section("FILES");
  out += r::Tagged("/etc/mailwave/mailwave.toml",
                   "the configuration (mailwave.toml(5))");
  out += r::Tagged("/var/lib/mailwave/",
                   "the SQLite store and the site secret of its keyed hashes");
  out += r::Tagged("/run/mailwave/milter.sock",
                   "the socket of the packaged systemd unit");
  out += r::Section("SEE ALSO");
  out += "mailwave(8), mailwave.toml(5), postconf(5), systemctl(1)\n";
  return out;
}

int Complain(std::string_view line, int status) {
  std::fprintf(stderr, "mailwave-milter: %.*s\n", static_cast<int>(line.size()),
               line.data());
  return status;
}

// What start and reload both check beyond the parser: values the tables
// cannot restrict. `source` names the file in the message.
mw::Result<void> Validate(const mw::config::Settings& s,
                          const std::string& source) {
  const auto& ms = s.milter;
  if (ms.on_error != "accept" && ms.on_error != "tempfail") {
    return mw::Fail(mw::Error::InvalidArgument(
        source + ": milter.on_error: must be accept or tempfail"));
  }
  if (const auto& listen = s.metrics.listen; !listen.empty()) {
    if (auto e = mw::metrics::ParseListen(listen); !e) {
      return mw::Fail(mw::Error::InvalidArgument(
          source + ": metrics.listen: " + e.error().message()));
    }
  }
  if (auto relays = mw::milter::Relays::Parse(ms.trusted_relays); !relays) {
    return mw::Fail(
        mw::Error::InvalidArgument(source + ": " + relays.error().message()));
  }
  if (auto b = mw::gpu::ParseBackend(s.gpu.backend); !b) {
    return mw::Fail(mw::Error::InvalidArgument(
        source + ": gpu.backend: " + b.error().message()));
  }
  if (!ms.socket_mode.empty()) {
    auto mode = mw::milter::ParseMode(ms.socket_mode);
    if (!mode) {
      return mw::Fail(
          mw::Error::InvalidArgument(source + ": " + mode.error().message()));
    }
  }
  return {};
}

// The daemon changes its directory to / (and a reload comes later): file
// names in the configuration and on the command line are read relative to
// the directory it was started in, once.
std::string Absolute(const std::string& path, const std::string& base) {
  if (path.empty() || path.front() == '/' || base.empty()) return path;
  return base + "/" + path;
}

void MakePathsAbsolute(mw::config::Settings& s, const std::string& base) {
  s.langid.dictionary = Absolute(s.langid.dictionary, base);
  s.store.path = Absolute(s.store.path, base);
  s.wave.events = Absolute(s.wave.events, base);
  s.wave.allow = Absolute(s.wave.allow, base);
  s.milter.pid_file = Absolute(s.milter.pid_file, base);
  const std::string unix_path = mw::milter::UnixSocketPath(s.milter.socket);
  if (!unix_path.empty() && unix_path.front() != '/') {
    const std::size_t colon = s.milter.socket.find(':');
    s.milter.socket =
        (colon == std::string::npos ? std::string("unix:")
                                    : s.milter.socket.substr(0, colon + 1)) +
        Absolute(unix_path, base);
  }
}

std::string WorkingDirectory() {
  char buf[4096];
  return getcwd(buf, sizeof buf) != nullptr ? std::string(buf) : std::string();
}

// The main.cf lines that point Postfix at `conn` (libmilter's syntax
// inet:PORT@HOST becomes Postfix's inet:HOST:PORT).
std::string PostfixHint(const std::string& conn) {
  std::string target = conn;
  const std::string unix_path = mw::milter::UnixSocketPath(conn);
  if (!unix_path.empty()) {
    target = "unix:" + unix_path;
  } else if (const std::size_t at = conn.find('@');
             at != std::string::npos && conn.rfind("inet", 0) == 0) {
    const std::size_t colon = conn.find(':');
    target = conn.substr(0, colon + 1) + conn.substr(at + 1) + ":" +
             conn.substr(colon + 1, at - colon - 1);
  }
  return "postconf -e 'smtpd_milters = " + target +
         "' 'non_smtpd_milters = $smtpd_milters' 'milter_default_action = "
         "accept'";
}

// The snapshot the callbacks read. The store of `previous` is kept when the
// [store] settings did not change, so that a reload neither reopens the
// database nor loses its caches.
mw::Result<std::shared_ptr<const mw::milter::Snapshot>> BuildSnapshot(
    const mw::config::Settings& s,
    const mw::config::Settings* previous_settings,
    const mw::milter::Snapshot* previous) {
  auto analyzer = mw::pipeline::Analyzer::Create(s);
  if (!analyzer) return mw::Fail(analyzer.error());
  // The allow list is read again on every reload: an edited file takes
  // effect with SIGHUP, and a broken one refuses the reload as a whole.
  auto policy = mw::pipeline::LoadPolicy(s);
  if (!policy) return mw::Fail(policy.error());

  auto snapshot = std::make_shared<mw::milter::Snapshot>();
  snapshot->analyzer = *analyzer;
  snapshot->policy = *policy;
  if (previous != nullptr && previous_settings != nullptr &&
      previous_settings->store == s.store && previous->store) {
    snapshot->store = previous->store;
  } else {
    mw::pipeline::StoreOpenOptions so;
    so.log = [](std::string_view line) {
      mw::milter::Log(LOG_WARNING, "store: " + std::string(line));
    };
    auto opened = mw::pipeline::OpenStore(s, so);
    if (opened) {
      snapshot->store = std::move(*opened);
    } else {
      mw::milter::Log(LOG_ERR, "store: " + opened.error().message() +
                                   "; messages pass untagged");
    }
  }
  // The comparison window lives with the store: kept when the store was and
  // [gpu] did not change (a reload does not reload a million signatures).
  if (snapshot->store && s.gpu.window) {
    if (previous != nullptr && previous_settings != nullptr &&
        previous->store == snapshot->store && previous_settings->gpu == s.gpu &&
        previous->window) {
      snapshot->window = previous->window;
    } else {
      auto window = mw::pipeline::Window::Open(
          *snapshot->store, s, mw::store::NowMillis(),
          [](std::string_view line) {
            mw::milter::Log(LOG_NOTICE, std::string(line));
          });
      if (window) {
        snapshot->window = std::move(*window);
      } else if (s.gpu.backend == "cuda") {
        // Asked for explicitly: a start without it would hide the problem.
        return mw::Fail(
            mw::Error::Unavailable("gpu: " + window.error().message()));
      } else {
        mw::milter::Log(LOG_ERR, "gpu: " + window.error().message() +
                                     "; the index alone decides");
      }
    }
  }
  snapshot->max_bytes = s.mime.max_bytes;
  snapshot->wave_events = s.wave.events;
  snapshot->on_error = s.milter.on_error == "tempfail"
                           ? mw::milter::OnError::kTempfail
                           : mw::milter::OnError::kAccept;
  auto relays = mw::milter::Relays::Parse(s.milter.trusted_relays);
  if (!relays) return mw::Fail(relays.error());
  snapshot->trusted = std::move(*relays);
  return std::shared_ptr<const mw::milter::Snapshot>(std::move(snapshot));
}

// The settings only a restart applies: a reload that changes them says so.
void SayWhatNeedsRestart(const mw::config::MilterSettings& was,
                         const mw::config::MilterSettings& now) {
  auto say = [](std::string_view key) {
    mw::milter::Log(LOG_WARNING, "reload: milter." + std::string(key) +
                                     " changed; it takes effect at restart");
  };
  if (was.socket != now.socket) say("socket");
  if (was.backlog != now.backlog) say("backlog");
  if (was.socket_mode != now.socket_mode) say("socket_mode");
  if (was.user != now.user) say("user");
  if (was.group != now.group) say("group");
  if (was.pid_file != now.pid_file) say("pid_file");
}

// The signals, on the loop: SIGHUP reloads (the snapshot is built on a
// thread of its own, then swapped on the loop); SIGTERM and SIGINT drain
// the engine and stop the loop.
class Control {
 public:
  // `unix_inode`: the inode of the unix socket file made at start (0 for
  // TCP), removed at the stop only while it is still ours.
  // `start_directory`: where relative file names in a reloaded
  // configuration are read from (the daemon itself is in / by then).
  Control(boost::asio::io_context& io, mw::milter::Engine& engine,
          std::string config_path, mw::config::Settings settings,
          ino_t unix_inode, std::string start_directory)
      : io_(io),
        engine_(engine),
        signals_(io, SIGHUP, SIGTERM, SIGINT),
        config_path_(std::move(config_path)),
        settings_(std::move(settings)),
        unix_inode_(unix_inode),
        start_directory_(std::move(start_directory)) {}

  ~Control() { reloader_.join(); }

  void Start() {
    signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
      if (ec) return;
      if (sig == SIGHUP) {
        Reload();
      } else if (!stopping_) {
        stopping_ = true;
        Stop();
      }
      Start();
    });
  }

 private:
  // Off the loop: reading the dictionary and opening the store take long
  // enough to stall every connection. One reload at a time; a SIGHUP during
  // one runs once it is done.
  void Reload() {
    if (reloading_) {
      reload_again_ = true;
      return;
    }
    reloading_ = true;
    mw::milter::NotifyReloading();
    boost::asio::post(reloader_, [this, previous = settings_] {
      auto next = LoadAndBuild(previous);
      boost::asio::post(io_, [this, next = std::move(next)]() mutable {
        mw::milter::NotifyReady(next ? "reloaded"
                                     : "reload refused; running "
                                       "the previous configuration");
        if (next) settings_ = std::move(*next);
        reloading_ = false;
        if (reload_again_) {
          reload_again_ = false;
          Reload();
        }
      });
    });
  }

  // The new settings once the new snapshot is in place; nullopt when the
  // reload was refused (logged).
  std::optional<mw::config::Settings> LoadAndBuild(
      const mw::config::Settings& previous) {
    const std::string source = config_path_.empty()
                                   ? std::string(mw::config::kDefaultPath)
                                   : config_path_;
    auto next = mw::config::Load(config_path_);
    if (next) MakePathsAbsolute(*next, start_directory_);
    mw::Result<void> valid =
        next ? Validate(*next, source) : mw::Fail(next.error());
    if (!valid) {
      mw::milter::Log(LOG_ERR, "reload refused: " + valid.error().message() +
                                   "; the running configuration stays");
      return std::nullopt;
    }
    auto current = mw::milter::CurrentSnapshot();
    auto snapshot = BuildSnapshot(*next, &previous, current.get());
    if (!snapshot) {
      mw::milter::Log(LOG_ERR, "reload refused: " + snapshot.error().message() +
                                   "; the running configuration stays");
      return std::nullopt;
    }
    SayWhatNeedsRestart(previous.milter, next->milter);
    mw::milter::SetSnapshot(std::move(*snapshot));
    mw::milter::Log(LOG_INFO, "reloaded " + source);
    return std::move(*next);
  }

  void Stop() {
    mw::milter::NotifyStopping();
    mw::milter::Log(LOG_INFO, "stopping: no new connections");
    const std::size_t waiting = mw::milter::MessagesInFlight();
    if (waiting > 0) {
      mw::milter::Log(LOG_INFO, "stopping: " + std::to_string(waiting) +
                                    " messages in flight");
    }
    const auto drain = settings_.milter.drain;
    engine_.Stop(
        std::chrono::steady_clock::now() + drain, unix_inode_,
        [this, drain](std::size_t cut) {
          // `cut` also counts connections that were only closing.
          if (cut > 0 && mw::milter::MessagesInFlight() > 0) {
            mw::milter::Log(
                LOG_WARNING,
                "stopping: " + std::to_string(mw::milter::MessagesInFlight()) +
                    " messages still in flight after " +
                    std::to_string(drain.count()) + " ms; they are cut");
          }
          signals_.cancel();
          io_.stop();
        });
  }

  boost::asio::io_context& io_;
  mw::milter::Engine& engine_;
  boost::asio::signal_set signals_;
  boost::asio::thread_pool reloader_{1};
  std::string config_path_;
  mw::config::Settings settings_;
  ino_t unix_inode_;
  std::string start_directory_;
  bool stopping_ = false;
  bool reloading_ = false;
  bool reload_again_ = false;
};

int Run(int argc, char** argv) {
  std::string config_path;
  bool foreground = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-c" && i + 1 < argc) {
      config_path = argv[++i];
    } else if (a == "-f") {
      foreground = true;
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    } else if (a == "--man") {
      std::fputs(ManPage().c_str(), stdout);
      return kExitOk;
    } else {
      std::fputs(kUsage, stderr);
      return kExitUsage;
    }
  }

  const std::string start_directory = WorkingDirectory();
  config_path = Absolute(config_path, start_directory);
  auto settings = mw::config::Load(config_path);
  if (!settings) return Complain(settings.error().message(), kExitUsage);
  MakePathsAbsolute(*settings, start_directory);
  const std::string source =
      config_path.empty() ? std::string(mw::config::kDefaultPath) : config_path;
  if (auto v = Validate(*settings, source); !v)
    return Complain(v.error().message(), kExitUsage);
  const auto& ms = settings->milter;
  auto identity = mw::milter::ResolveIdentity(ms.user, ms.group);
  if (!identity) {
    return Complain(source + ": " + identity.error().message(), kExitUsage);
  }
  const bool root = geteuid() == 0;
  // The unix socket's group: [milter] group; when none is set and we run as
  // root, Postfix's (smtpd connects as user postfix), when it exists; else
  // the user's primary group.
  std::optional<gid_t> socket_group;
  if (!ms.group.empty()) {
    auto g = mw::milter::ResolveGroup(ms.group);
    if (!g) return Complain(source + ": " + g.error().message(), kExitUsage);
    socket_group = *g;
  } else if (auto postfix = mw::milter::ResolveGroup("postfix");
             root && postfix) {
    socket_group = *postfix;
  } else if (*identity) {
    socket_group = (*identity)->gid;
  }
  if (!foreground && !ms.pid_file.empty()) {
    if (auto r = mw::milter::CheckNotRunning(ms.pid_file); !r)
      return Complain(r.error().message(), kExitFailure);
  }

  mw::milter::UseStderr(foreground);
  // Before any thread: every thread started later (store, GPU, metrics,
  // workers) inherits the three signals blocked, so they reach the loop's
  // signal_set, unblocked on this thread only once it is in place.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGHUP);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // A first start on the built-in defaults finds neither /run/mailwave nor
  // /var/lib/mailwave: made here, for the user the daemon becomes.
  {
    std::optional<uid_t> dir_owner;
    if (*identity && root) dir_owner = (*identity)->uid;
    const std::string sock_path = mw::milter::UnixSocketPath(ms.socket);
    for (const std::string& file : {sock_path, settings->store.path}) {
      const std::size_t slash = file.find_last_of('/');
      if (file.empty() || slash == std::string::npos) continue;
      auto made = mw::milter::MakeDirectories(
          file.substr(0, slash), dir_owner,
          file == sock_path ? socket_group : std::optional<gid_t>());
      if (!made) return Complain(made.error().message(), kExitFailure);
    }
  }

  const std::string socket = ms.socket;
  boost::asio::io_context io(1);
  mw::milter::EngineOptions options;
  options.threads = ms.threads;
  options.deadline = ms.deadline;
  options.max_connections = ms.max_connections;
  options.max_buffered = ms.max_buffered;
  options.idle_timeout = ms.idle_timeout;
  options.read_timeout = ms.read_timeout;
  options.default_max_bytes = settings->mime.max_bytes;
  // MAILWAVE_MILTER_NAGLE=1 keeps Nagle's algorithm on: only for measuring
  // what TCP_NODELAY buys (bench/milter/tcp_vs_unix.sh).
  const char* nagle = std::getenv("MAILWAVE_MILTER_NAGLE");
  options.tcp_nodelay = nagle == nullptr || std::string(nagle) != "1";
  // Bound here, so that a socket that cannot be made fails at start with
  // its name (a stale unix socket is removed), and while still root.
  auto engine = mw::milter::Engine::Listen(
      io, socket, static_cast<int>(ms.backlog), options);
  if (!engine) return Complain(engine.error().message(), kExitFailure);
  ino_t unix_inode = 0;
  if (const std::string path = mw::milter::UnixSocketPath(socket);
      !path.empty()) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) unix_inode = st.st_ino;
    std::optional<uid_t> owner;
    if (*identity && root) owner = (*identity)->uid;
    std::optional<mode_t> mode;
    if (!ms.socket_mode.empty()) mode = *mw::milter::ParseMode(ms.socket_mode);
    auto access = mw::milter::SetSocketAccess(path, owner, socket_group, mode);
    if (!access) return Complain(access.error().message(), kExitFailure);
  }

  std::optional<mw::milter::PidFile> pid_file;
  std::optional<mw::milter::Detached> detached;
  if (!foreground) {
    // The loop's epoll descriptor crosses the fork: Asio must know.
    io.notify_fork(boost::asio::execution_context::fork_prepare);
    auto d = mw::milter::Daemonize();
    if (!d) return Complain(d.error().message(), kExitFailure);
    io.notify_fork(boost::asio::execution_context::fork_child);
    detached.emplace(std::move(*d));
    if (!ms.pid_file.empty()) {
      auto p = mw::milter::PidFile::Create(ms.pid_file);
      if (!p) {
        mw::milter::Log(LOG_ERR, p.error().message());
        detached->Failed(p.error().message());
        return kExitFailure;
      }
      pid_file.emplace(std::move(*p));
    }
  }
  if (*identity && root) {
    if (auto d = mw::milter::DropPrivileges(**identity); !d) {
      const std::string line =
          "cannot become " + ms.user + ": " + d.error().message();
      mw::milter::Log(LOG_ERR, line);
      if (detached) detached->Failed(line);
      return kExitFailure;
    }
  } else if (root) {
    mw::milter::Log(LOG_WARNING,
                    "running as root: set [milter] user (or User= in the "
                    "systemd unit)");
  }

  // After the privileges are dropped: the store and its secret belong to the
  // user the daemon runs as.
  auto snapshot = BuildSnapshot(*settings, nullptr, nullptr);
  if (!snapshot) {
    mw::milter::Log(LOG_ERR, snapshot.error().message());
    if (detached) detached->Failed(snapshot.error().message());
    return kExitFailure;
  }
  mw::milter::SetSnapshot(std::move(*snapshot));

  Control control(io, **engine, config_path, *settings, unix_inode,
                  start_directory);
  control.Start();
  pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);

  mw::milter::Log(
      LOG_INFO, "listening on " + socket + "; Postfix: " + PostfixHint(socket));
  // The endpoint's own failures only ever log (docs/milter.md, "Metrics").
  auto metrics = mw::milter::StartMetrics(settings->metrics.listen);
  (*engine)->Start();
  if (detached) detached->Ready();
  mw::milter::NotifyReady("listening on " + socket);
  io.run();
  if (mw::milter::MessagesInFlight() > 0) {
    // Past the drain: a worker may still be analysing a cut message, and
    // exiting normally would wait for it (or tear down what it uses). The
    // store is safe (each message is one committed transaction) and the MTA
    // gives the cut messages its milter_default_action.
    mw::milter::Log(LOG_INFO, "stopped");
    pid_file.reset();
    std::_Exit(kExitOk);
  }
  // Drained (or cut at [milter] drain): the connections close, the workers
  // finish what they hold and are joined.
  engine->reset();
  metrics.reset();  // joins the metrics thread before the snapshot goes
  mw::milter::SetSnapshot(nullptr);
  mw::milter::Log(LOG_INFO, "stopped");
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    return Complain(e.what(), kExitFailure);
  } catch (...) {
    return Complain("failed", kExitFailure);
  }
}
