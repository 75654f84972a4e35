// milter_reference -c FILE: the libmilter side of the differential test
// (tests/e2e/run, "differential"). The same Session and Finish as
// mailwave-milter behind Debian's libmilter (callbacks.cc), so replaying what
// Postfix sent into both shows whether our protocol engine answers as
// libmilter does. A test tool, not a daemon: foreground, no reload, no drain,
// no [gpu] window (the harness turns it off for both), stopped by SIGTERM
// (libmilter's own handling).
#include <libmilter/mfapi.h>

#include <cstdio>
#include <memory>
#include <string>

#include "config/config.h"
#include "milter/src/callbacks.h"
#include "pipeline/analysis.h"
#include "pipeline/policy.h"
#include "pipeline/store_open.h"

namespace {

int Fail(const std::string& why) {
  std::fprintf(stderr, "milter_reference: %s\n", why.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != "-c")
    return Fail("usage: milter_reference -c FILE");
  auto settings = mw::config::LoadFile(argv[2]);
  if (!settings) return Fail(settings.error().message());
  auto snapshot = std::make_shared<mw::milter::Snapshot>();
  auto analyzer = mw::pipeline::Analyzer::Create(*settings);
  if (!analyzer) return Fail(analyzer.error().message());
  snapshot->analyzer = *analyzer;
  auto store = mw::pipeline::OpenStore(*settings, {});
  if (!store) return Fail(store.error().message());
  snapshot->store = std::shared_ptr<mw::store::Store>(std::move(*store));
  auto policy = mw::pipeline::LoadPolicy(*settings);
  if (!policy) return Fail(policy.error().message());
  snapshot->policy = *policy;
  snapshot->max_bytes = settings->mime.max_bytes;
  snapshot->on_error = settings->milter.on_error == "tempfail"
                           ? mw::milter::OnError::kTempfail
                           : mw::milter::OnError::kAccept;
  auto relays = mw::milter::Relays::Parse(settings->milter.trusted_relays);
  if (!relays) return Fail(relays.error().message());
  snapshot->trusted = std::move(*relays);
  mw::milter::SetSnapshot(snapshot);

  std::string name = "mailwave-reference";
  smfiDesc desc = mw::milter::Description(name.data());
  std::string conn = settings->milter.socket;
  if (smfi_register(desc) != MI_SUCCESS) return Fail("smfi_register failed");
  if (smfi_setconn(conn.data()) != MI_SUCCESS)
    return Fail("smfi_setconn failed: " + conn);
  if (smfi_opensocket(true) != MI_SUCCESS)
    return Fail("cannot listen on " + conn);
  return smfi_main() == MI_SUCCESS ? 0 : 1;
}
