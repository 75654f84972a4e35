// mailwave-milter [-c FILE] [-f]: the milter daemon (docs/milter.md).
//
// Reads the configuration, opens the store (a store that cannot be opened is
// logged once and the milter runs without: messages pass with the language
// header alone), builds the analyzer and hands the socket to libmilter.
// Exit status: 0 after a clean shutdown (SIGTERM, SIGINT), 1 on a runtime
// failure, 2 on a usage or configuration error.
#include <libmilter/mfapi.h>
#include <signal.h>
#include <syslog.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "callbacks.h"
#include "config/config.h"
#include "log.h"
#include "metrics/server.h"
#include "metrics_hooks.h"
#include "nodelay.h"
#include "pipeline/analysis.h"
#include "pipeline/options.h"
#include "store/sqlite.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

constexpr char kUsage[] =
    "usage: mailwave-milter [-c FILE] [-f]\n"
    "  -c FILE  configuration file (default /etc/mailwave/mailwave.toml when "
    "it exists)\n"
    "  -f       log to stderr instead of syslog\n";

int Complain(std::string_view line, int status) {
  std::fprintf(stderr, "mailwave-milter: %.*s\n", static_cast<int>(line.size()),
               line.data());
  return status;
}

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
    } else {
      std::fputs(kUsage, stderr);
      return kExitUsage;
    }
  }

  auto settings = mw::config::Load(config_path);
  if (!settings) return Complain(settings.error().message(), kExitUsage);
  const std::string source =
      config_path.empty() ? std::string(mw::config::kDefaultPath) : config_path;
  const auto& ms = settings->milter;
  if (ms.on_error != "accept" && ms.on_error != "tempfail") {
    return Complain(source + ": milter.on_error: must be accept or tempfail",
                    kExitUsage);
  }
  if (const auto& listen = settings->metrics.listen; !listen.empty()) {
    if (auto e = mw::metrics::ParseListen(listen); !e)
      return Complain(source + ": metrics.listen: " + e.error().message(),
                      kExitUsage);
  }

  mw::milter::UseStderr(foreground);
  // libmilter waits for these on a thread of its own; threads started before
  // smfi_main (the store's maintenance) must not take them (STYLE.md 6).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  auto analyzer = mw::pipeline::Analyzer::Create(*settings);
  if (!analyzer) return Complain(analyzer.error().message(), kExitFailure);

  mw::store::SqliteOptions so = mw::pipeline::SqliteOptions(*settings);
  so.log = [](std::string_view line) {
    mw::milter::Log(LOG_WARNING, "store: " + std::string(line));
  };
  auto opened = mw::store::OpenSqlite(so);
  std::shared_ptr<mw::store::Store> db;
  if (opened) {
    db = std::move(*opened);
  } else {
    mw::milter::Log(LOG_ERR, "store: " + opened.error().message() +
                                 "; messages pass untagged");
  }

  auto snapshot = std::make_shared<mw::milter::Snapshot>();
  snapshot->analyzer = *analyzer;
  snapshot->store = db;
  snapshot->max_bytes = settings->mime.max_bytes;
  snapshot->wave_events = settings->wave.events;
  snapshot->on_error =
      ms.on_error == "tempfail" ? SMFIS_TEMPFAIL : SMFIS_CONTINUE;
  mw::milter::SetSnapshot(std::move(snapshot));
  db.reset();

  std::string socket = ms.socket;
  char name[] = "mailwave";
  smfiDesc desc = mw::milter::Description(name);
  if (smfi_setconn(socket.data()) != MI_SUCCESS ||
      smfi_setbacklog(static_cast<int>(ms.backlog)) != MI_SUCCESS ||
      smfi_register(desc) != MI_SUCCESS) {
    return Complain("cannot set up the milter on " + socket, kExitFailure);
  }
  // Opened here, so that a socket that cannot be made fails at start with
  // its name (a stale unix socket is removed).
  if (smfi_opensocket(true) != MI_SUCCESS) {
    return Complain("cannot listen on " + socket, kExitFailure);
  }
  // MAILWAVE_MILTER_NAGLE=1 keeps Nagle's algorithm on: only for measuring
  // what TCP_NODELAY buys (bench/milter/tcp_vs_unix.sh).
  const char* nagle = std::getenv("MAILWAVE_MILTER_NAGLE");
  if (nagle == nullptr || std::string(nagle) != "1") {
    if (mw::milter::SetNoDelayOnListeners() < 0) {
      mw::milter::Log(LOG_WARNING,
                      "cannot list /proc/self/fd: TCP_NODELAY not set; a TCP "
                      "socket answers slower than a unix one");
    }
  }
  mw::milter::Log(LOG_INFO, "listening on " + socket);
  // After the milter socket, so that a failed start leaves no thread behind;
  // the endpoint's own failures only ever log (docs/milter.md, "Metrics").
  auto metrics = mw::milter::StartMetrics(settings->metrics.listen);
  const int r = smfi_main();
  metrics.reset();  // joins the metrics thread before the snapshot goes
  mw::milter::SetSnapshot(nullptr);
  mw::milter::Log(LOG_INFO, "stopped");
  return r == MI_SUCCESS ? kExitOk : kExitFailure;
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
