# shellcheck shell=bash disable=SC2034 # the PF_* globals are for the callers
# tests/e2e/lib/postfix.sh: a Postfix instance private to one directory, on
# loopback, relaying everything to an smtp-sink that dumps one file per
# message; and a milter started by PID beside it. Sourced by tests/e2e/run,
# scripts/demo and the milter benchmarks (bash only).
#
#   source tests/e2e/lib/postfix.sh
#   pf_init "$(mktemp -d /tmp/mw-e2e.XXXXXX)"   # PF_DIR; trap pf_cleanup EXIT
#   pf_milter_start mailwave-milter -f -c FILE   # FILE: socket = "unix:$PF_MILTER_SOCKET"
#   pf_start_sink                                # PF_SINK_PORT, files in PF_SINK_DIR
#   pf_start                                     # PF_SMTP_PORT; smtpd_milters = PF_MILTER
#   pf_send FILE FROM TO                         # swaks, one message, one session
#   f=$(pf_wait_sent TO 10)                      # the sink's file of that message
#   pf_headers "$f"                              # its header block, unfolded
#   smtp-source -s 4 -m 1000 -f F -t T 127.0.0.1:$PF_SMTP_PORT   # load
#   pf_wait_sink_count 1000 60 F                 # all 1000 from F at the sink
#   pf_set_milter ""                             # no milter (or another SPEC) + reload
#   pf_milter_stop KILL; pf_dump_logs            # what a failure report shows
#   pf_cleanup                                   # stops every process it started
#
# Contract: every process is started here and ended by its PID (Postfix's by
# the MAIL_CONFIG each of its daemons inherits), never by name; nothing
# outside PF_DIR is written; the system Postfix (/etc/postfix) is never read
# or touched (every postfix command gets -c "$PF_CONF"). Root only: the
# postfix command refuses anyone else. Functions return non-zero on failure
# and say why on stderr; nothing here exits the caller.
#
# Several instances side by side (tests/e2e/run_redis: two MX hosts): each
# gets a name; pf_use NAME makes it the one every function above and below
# acts on (its PF_* state is kept while another is in use); pf_cleanup_all
# ends them all. A caller with one instance never needs pf_use.
#
#   pf_use a; pf_init "$work/a"; pf_milter_start ...; pf_start_sink; pf_start
#   pf_use b; pf_init "$work/b"; ...     # own directory, ports, milter socket
#   pf_use a; pf_send FILE FROM TO       # through instance a
#   trap pf_cleanup_all EXIT
#
# Knobs, read by pf_start (set before it): PF_DEFAULT_ACTION (milter_default_
# action, default accept), PF_SIZE_LIMIT (message_size_limit, default 64 MB),
# PF_MILTER (the smtpd_milters value; default unix:$PF_MILTER_SOCKET, empty
# for none, inet:127.0.0.1:PORT for a TCP milter). PF_KEEP=1: pf_cleanup
# leaves PF_DIR (maillog, milter.log, sink/, swaks.log) for inspection.

PF_DIR=""
PF_CONF=""
PF_SINK_DIR=""
PF_SINK_PID=""
PF_SINK_PORT=""
PF_SMTP_PORT=""
PF_STARTED=0
PF_MILTER_SOCKET=""
PF_MILTER_PID=""
PF_MILTER_LOG=""
PF_MILTER_STATUS=""

# The per-instance state pf_use keeps apart (PF_MILTER too: unset and empty
# differ there), the instance in use, and every name pf_use has seen.
PF_INSTANCE_VARS=(PF_DIR PF_CONF PF_SINK_DIR PF_SINK_PID PF_SINK_PORT PF_SMTP_PORT
  PF_STARTED PF_MILTER_SOCKET PF_MILTER_PID PF_MILTER_LOG PF_MILTER_STATUS PF_MILTER)
declare -gA PF_SAVED=()
PF_NAME=""
PF_NAMES=()

# pf_use NAME: saves the state of the instance in use (if any) and makes NAME
# the instance in use: its saved state, or a fresh one (then pf_init next).
pf_use() {
  local v n
  [ "$1" = "$PF_NAME" ] && return 0
  if [ -n "$PF_NAME" ]; then
    for v in "${PF_INSTANCE_VARS[@]}"; do
      if [ -n "${!v+x}" ]; then PF_SAVED[$PF_NAME.$v]="set:${!v}"; else PF_SAVED[$PF_NAME.$v]="unset"; fi
    done
  fi
  PF_NAME=$1
  for n in "${PF_NAMES[@]}"; do [ "$n" = "$1" ] && break; done
  if [ "${n:-}" != "$1" ]; then
    PF_NAMES+=("$1")
    for v in "${PF_INSTANCE_VARS[@]}"; do printf -v "$v" '%s' ""; done
    PF_STARTED=0
    unset PF_MILTER
    return 0
  fi
  for v in "${PF_INSTANCE_VARS[@]}"; do
    case ${PF_SAVED[$1.$v]} in
      set:*) printf -v "$v" '%s' "${PF_SAVED[$1.$v]#set:}" ;;
      *) unset "$v" ;;
    esac
  done
}

# pf_cleanup_all: pf_cleanup of every instance pf_use has seen (of the one
# instance when pf_use was never called). Returns 1 when any failed.
pf_cleanup_all() {
  local rc=0 n
  [ "${#PF_NAMES[@]}" -gt 0 ] || { pf_cleanup; return; }
  for n in "${PF_NAMES[@]}"; do
    pf_use "$n"
    pf_cleanup || rc=1
  done
  return $rc
}

# pf_poll TIMEOUT_S CMD...: runs CMD every 50 ms until it succeeds (0) or
# TIMEOUT_S seconds have passed (1).
pf_poll() {
  local deadline=$((SECONDS + $1))
  shift
  while :; do
    "$@" && return 0
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.05
  done
}

pf_now_ms() { date +%s%3N; }

pf_listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

# pf_free_port: a TCP port nobody listens on, below the kernel's ephemeral
# range (so no outgoing connection holds it). A port can still be taken
# between this probe and the bind: pf_start and pf_start_sink retry.
pf_free_port() {
  local low p i
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$low" -gt 12000 ] || low=32768
  for ((i = 0; i < 200; i++)); do
    p=$((10000 + (RANDOM * 32768 + RANDOM) % (low - 10000)))
    pf_listening "$p" || { echo "$p"; return 0; }
  done
  echo "pf_free_port: no free port found" >&2
  return 1
}

# pf_init DIR: DIR (fresh, e.g. from mktemp -d) becomes PF_DIR. Makes the
# milter socket directory: setgid group postfix, so a socket made there with
# umask 007 is srwxrwx--- root:postfix and smtpd (user postfix) may connect.
pf_init() {
  [ "$(id -u)" = 0 ] || { echo "pf_init: must run as root (postfix requires it)" >&2; return 1; }
  local c
  for c in postfix postconf smtp-sink swaks ss; do
    command -v "$c" >/dev/null 2>&1 || { echo "pf_init: $c is not installed" >&2; return 1; }
  done
  PF_DIR=$1
  PF_CONF=$PF_DIR/etc
  PF_SINK_DIR=$PF_DIR/sink
  # mktemp -d is 0700: postfix and nobody must be able to reach what is below.
  chmod 755 "$PF_DIR"
  # queue_directory must exist before any postfix command (it chdirs there);
  # data_directory must not: `postfix check` makes it, owned by postfix.
  mkdir -p "$PF_CONF" "$PF_DIR/queue"
  install -d -m 2750 -o root -g postfix "$PF_DIR/milter"
  install -d -o nobody -g nogroup "$PF_SINK_DIR"
  PF_MILTER_SOCKET=$PF_DIR/milter/milter.sock
  PF_MILTER_LOG=$PF_DIR/milter.log
  : >"$PF_DIR/maillog"
}

# pf_start_sink: smtp-sink on a free loopback port, as nobody (it refuses
# root), one file per transaction under PF_SINK_DIR. It closes that file
# before it answers the final ".", so a message Postfix logged as sent is
# complete on disk.
pf_start_sink() {
  for _ in 1 2 3; do
    PF_SINK_PORT=$(pf_free_port) || return 1
    smtp-sink -4 -u nobody -d "$PF_SINK_DIR/%H%M%S." "127.0.0.1:$PF_SINK_PORT" 256 \
      >>"$PF_DIR/sink.log" 2>&1 &
    PF_SINK_PID=$!
    if pf_poll 5 pf_listening "$PF_SINK_PORT" && kill -0 "$PF_SINK_PID" 2>/dev/null; then
      return 0
    fi
    kill -KILL "$PF_SINK_PID" 2>/dev/null
    wait "$PF_SINK_PID" 2>/dev/null
    PF_SINK_PID=""
  done
  echo "pf_start_sink: smtp-sink did not start (see $PF_DIR/sink.log)" >&2
  return 1
}

pf_write_config() {
  local milter=${PF_MILTER-unix:$PF_MILTER_SOCKET}
  cat >"$PF_CONF/main.cf" <<EOF
# private test instance: everything lives under $PF_DIR
compatibility_level = 3.6
queue_directory = $PF_DIR/queue
data_directory = $PF_DIR/data
# no syslogd needed: postlogd(8) writes here (the path must match a prefix)
maillog_file = $PF_DIR/maillog
maillog_file_prefixes = $PF_DIR
myhostname = mx.e2e.test
mydomain = e2e.test
myorigin = \$myhostname
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
mydestination =
local_transport = error:5.1.1 local delivery is disabled in this test instance
alias_maps =
alias_database =
biff = no
smtpd_peername_lookup = no
message_size_limit = ${PF_SIZE_LIMIT:-67108864}
# everything goes to smtp-sink; an IP literal in [] needs no DNS
relayhost = [127.0.0.1]:$PF_SINK_PORT
smtp_dns_support_level = disabled
smtpd_milters = $milter
non_smtpd_milters = \$smtpd_milters
milter_protocol = 6
milter_default_action = ${PF_DEFAULT_ACTION:-accept}
milter_connect_timeout = 10s
milter_command_timeout = 10s
milter_content_timeout = 30s
EOF
  # The chroot column (5th) is n everywhere: a chroot would need copies of
  # /etc/services and friends in the queue directory. No port 25 service.
  cat >"$PF_CONF/master.cf" <<EOF
127.0.0.1:$PF_SMTP_PORT inet n - n - - smtpd
pickup    unix  n - n 60    1 pickup
cleanup   unix  n - n -     0 cleanup
qmgr      unix  n - n 300   1 qmgr
rewrite   unix  - - n -     - trivial-rewrite
bounce    unix  - - n -     0 bounce
defer     unix  - - n -     0 bounce
trace     unix  - - n -     0 bounce
verify    unix  - - n -     1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -     - proxymap
proxywrite unix - - n -     1 proxymap
smtp      unix  - - n -     - smtp
relay     unix  - - n -     - smtp
showq     unix  n - n -     - showq
error     unix  - - n -     - error
retry     unix  - - n -     - error
discard   unix  - - n -     - discard
anvil     unix  - - n -     1 anvil
scache    unix  - - n -     1 scache
postlog   unix-dgram n - n - 1 postlogd
EOF
}

# pf_start: writes main.cf and master.cf (after pf_start_sink: they name its
# port), runs `postfix check` (which makes the queue tree) and `postfix
# start`, and returns once smtpd's port listens; PF_SMTP_PORT is that port.
pf_start() {
  [ -n "$PF_SINK_PORT" ] || { echo "pf_start: start the sink first" >&2; return 1; }
  for _ in 1 2 3; do
    PF_SMTP_PORT=$(pf_free_port) || return 1
    pf_write_config
    if ! postfix -c "$PF_CONF" check >>"$PF_DIR/postfix.log" 2>&1; then
      echo "pf_start: postfix check failed:" >&2
      tail -n 5 "$PF_DIR/postfix.log" "$PF_DIR/maillog" >&2
      return 1
    fi
    PF_STARTED=1
    if postfix -c "$PF_CONF" start >>"$PF_DIR/postfix.log" 2>&1 &&
      pf_poll 10 pf_listening "$PF_SMTP_PORT"; then
      return 0
    fi
    # Errors go to the maillog, not to stderr: a port taken since the probe
    # is worth another try, anything else is not.
    postfix -c "$PF_CONF" stop >>"$PF_DIR/postfix.log" 2>&1
    grep -q 'Address already in use' "$PF_DIR/maillog" || break
  done
  echo "pf_start: postfix did not start:" >&2
  tail -n 10 "$PF_DIR/maillog" >&2
  return 1
}

# pf_instance_pids: every live process of this instance (Postfix daemons
# inherit MAIL_CONFIG from master).
pf_instance_pids() {
  local e p
  [ -n "$PF_CONF" ] || return 0
  for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}
    p=${p%/environ}
    [ "$p" = "$$" ] && continue
    { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "MAIL_CONFIG=$PF_CONF" && echo "$p"
  done
  return 0
}

pf_gone() { ! kill -0 "$1" 2>/dev/null; }

# pf_stop: stops this Postfix instance; what master leaves behind gets TERM,
# then KILL, by PID. Returns 1 when a process survived.
pf_stop() {
  [ "$PF_STARTED" = 1 ] || return 0
  postfix -c "$PF_CONF" stop >>"$PF_DIR/postfix.log" 2>&1
  PF_STARTED=0
  local p sig left
  for sig in TERM KILL; do
    left=$(pf_instance_pids)
    [ -n "$left" ] || return 0
    for p in $left; do kill -"$sig" "$p" 2>/dev/null; done
    for p in $left; do pf_poll 3 pf_gone "$p"; done
  done
  [ -z "$(pf_instance_pids)" ]
}

# pf_reload: makes master reread main.cf (after postconf -c "$PF_CONF" -e ...).
pf_reload() { postfix -c "$PF_CONF" reload >>"$PF_DIR/postfix.log" 2>&1; }

# pf_set_milter SPEC: smtpd_milters = SPEC (empty: none) and a reload; new
# SMTP sessions use it (master restarts smtpd on its next use), sessions
# under way keep the old setting.
pf_set_milter() {
  PF_MILTER=$1
  postconf -c "$PF_CONF" -e "smtpd_milters = $1" >>"$PF_DIR/postfix.log" 2>&1 && pf_reload
}

# pf_milter_listening: the milter that smtpd_milters names accepts
# connections: its unix socket exists, or its TCP port listens.
pf_milter_listening() {
  local spec=${PF_MILTER-unix:$PF_MILTER_SOCKET}
  case $spec in
    unix:*) [ -S "${spec#unix:}" ] ;;
    inet:*) pf_listening "${spec##*:}" ;;
    *) return 1 ;;
  esac
}

# pf_milter_start CMD...: starts a milter that listens where smtpd_milters
# points (unix:$PF_MILTER_SOCKET, or PF_MILTER = inet:127.0.0.1:PORT), with
# umask 007, its stdout and stderr appended to PF_MILTER_LOG; returns once it
# accepts connections. A socket left by a killed milter is removed first, so
# the socket that appears is the new one.
pf_milter_start() {
  rm -f "$PF_MILTER_SOCKET"
  (
    umask 007
    exec "$@"
  ) >>"$PF_MILTER_LOG" 2>&1 &
  PF_MILTER_PID=$!
  # ready, or dead (then there is nothing to wait for)
  pf_milter_ready() { pf_milter_listening || ! kill -0 "$PF_MILTER_PID" 2>/dev/null; }
  pf_poll 20 pf_milter_ready
  if pf_milter_listening && kill -0 "$PF_MILTER_PID" 2>/dev/null; then return 0; fi
  echo "pf_milter_start: $1 does not listen on ${PF_MILTER-unix:$PF_MILTER_SOCKET}:" >&2
  tail -n 5 "$PF_MILTER_LOG" >&2
  pf_milter_stop KILL
  return 1
}

# pf_milter_stop [SIGNAL [TIMEOUT_S]]: sends SIGNAL (default TERM) to the
# milter, waits up to TIMEOUT_S (default 10; libmilter notices a stop only
# every 5 s), then KILLs it. PF_MILTER_STATUS is its exit status (128+N when
# killed by signal N). Returns 1 when it had to be KILLed after a TERM.
pf_milter_stop() {
  local sig=${1:-TERM} timeout=${2:-10} rc=0
  [ -n "$PF_MILTER_PID" ] || return 0
  kill -"$sig" "$PF_MILTER_PID" 2>/dev/null
  # bash reports a job killed by a signal ("Killed") on its stderr when it
  # reaps it, wherever that happens: hence the braces.
  if ! { pf_poll "$timeout" pf_gone "$PF_MILTER_PID"; } 2>/dev/null; then
    kill -KILL "$PF_MILTER_PID" 2>/dev/null
    rc=1
  fi
  PF_MILTER_STATUS=0
  { wait "$PF_MILTER_PID" || PF_MILTER_STATUS=$?; } 2>/dev/null
  PF_MILTER_PID=""
  return $rc
}

# pf_send FILE FROM TO [SWAKS_ARGS...]: one message (FILE as the whole DATA,
# LF or CRLF; swaks dot-stuffs and ends it) in one SMTP session. Returns
# swaks' status (0: accepted); the transcript is appended to PF_DIR/swaks.log.
pf_send() {
  local file=$1 from=$2 to=$3
  shift 3
  swaks --server "127.0.0.1:$PF_SMTP_PORT" --ehlo client.e2e.test --from "$from" \
    --to "$to" --data "@$file" --timeout 60 "$@" >>"$PF_DIR/swaks.log" 2>&1
}

# pf_sent RCPT: Postfix logged the message to RCPT as delivered to the sink.
pf_sent() {
  awk -v want="to=<$1>, relay=127.0.0.1[127.0.0.1]:$PF_SINK_PORT," \
    'index($0, want) && index($0, " status=sent ") { found = 1; exit }
     END { exit !found }' "$PF_DIR/maillog"
}

# pf_sink_file RCPT: the sink's file of the (one) message to RCPT.
pf_sink_file() {
  local f
  for f in "$PF_SINK_DIR"/*; do
    [ -f "$f" ] || continue
    # smtp-sink writes X-Rcpt-Args within its first few lines.
    if awk -v want="x-rcpt-args: <$(tr '[:upper:]' '[:lower:]' <<<"$1")>" \
      'FNR > 8 { exit } index(tolower($0), want) == 1 { found = 1; exit }
       END { exit !found }' "$f"; then
      echo "$f"
      return 0
    fi
  done
  return 1
}

# pf_wait_sent RCPT TIMEOUT_S: waits until the message to RCPT is at the
# sink and prints its file.
pf_wait_sent() {
  pf_poll "$2" pf_sent "$1" || return 1
  pf_sink_file "$1"
}

# pf_sink_count [SENDER]: messages at the sink (from SENDER only, when given).
pf_sink_count() {
  local files=("$PF_SINK_DIR"/*)
  [ -f "${files[0]}" ] || { echo 0; return 0; }
  if [ -z "${1:-}" ]; then
    echo "${#files[@]}"
    return 0
  fi
  awk -v want="X-Mail-Args: <$1>" 'FNR > 8 { nextfile }
    index($0, want) == 1 { n++; nextfile } END { print n + 0 }' "${files[@]}"
}

# pf_wait_sink_count N TIMEOUT_S [SENDER]: waits until at least N messages
# (from SENDER) are at the sink.
pf_wait_sink_count() {
  local n=$1 t=$2 sender=${3:-}
  pf_sink_has() { [ "$(pf_sink_count "$sender")" -ge "$n" ]; }
  pf_poll "$t" pf_sink_has
}

# pf_queued_count SENDER: messages from SENDER that Postfix accepted: the
# distinct queue ids qmgr logged with that envelope sender (a deferred message
# is logged again at each retry).
pf_queued_count() {
  awk -v want=": from=<$1>," 'index($0, want) && $0 ~ /postfix\/qmgr\[/ {
      id = $0; sub(/: from=<.*/, "", id); sub(/.* /, "", id); seen[id] = 1 }
    END { n = 0; for (i in seen) n++; print n }' "$PF_DIR/maillog"
}

# pf_headers FILE: the header block of FILE, continuation lines unfolded.
pf_headers() {
  awk '/^\r?$/ { exit }
    /^[ \t]/ { sub(/^[ \t]+/, " "); line = line $0; next }
    { if (line != "") print line; line = $0 }
    END { if (line != "") print line }' "$1" | tr -d '\r'
}

# pf_dump_logs: the maillog and the milter log, for a failure report.
pf_dump_logs() {
  [ -n "$PF_DIR" ] || return 0
  echo "----- maillog ($PF_DIR/maillog, last 200 lines; PF_KEEP=1 keeps the directory)"
  tail -n 200 "$PF_DIR/maillog" 2>/dev/null | cut -c1-400
  echo "----- milter log ($PF_MILTER_LOG, last 200 lines)"
  tail -n 200 "$PF_MILTER_LOG" 2>/dev/null | cut -c1-400
  echo "----- end of logs"
}

# pf_cleanup: stops the milter, Postfix and the sink by PID and removes
# PF_DIR (unless PF_KEEP=1). Safe to call twice and from a trap. Returns 1
# when a process could not be ended.
pf_cleanup() {
  local rc=0 p
  [ -n "$PF_DIR" ] || return 0
  pf_stop || rc=1
  pf_milter_stop KILL 5 || rc=1
  if [ -n "$PF_SINK_PID" ]; then
    kill -TERM "$PF_SINK_PID" 2>/dev/null
    { pf_poll 5 pf_gone "$PF_SINK_PID" || kill -KILL "$PF_SINK_PID"; } 2>/dev/null
    { wait "$PF_SINK_PID"; } 2>/dev/null
    PF_SINK_PID=""
  fi
  for p in $(pf_instance_pids); do
    echo "pf_cleanup: process $p of $PF_CONF survived" >&2
    rc=1
  done
  if [ "${PF_KEEP:-0}" = 1 ]; then
    echo "pf_cleanup: kept $PF_DIR" >&2
  else
    rm -rf "$PF_DIR"
  fi
  PF_DIR=""
  return $rc
}
