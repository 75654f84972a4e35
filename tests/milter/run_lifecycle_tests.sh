#!/usr/bin/env bash
# run_lifecycle_tests.sh MILTER DICT: the daemon's life around the messages.
#   - SIGHUP reloads: a changed config is taken (log "reloaded"), a bad one is
#     refused with one line and the daemon goes on answering;
#   - SIGTERM with a message in flight: the message still gets its headers,
#     the daemon exits 0 after it, and a stop with nothing in flight takes
#     well under libmilter's 5 s poll;
#   - daemon mode: detaches, writes the pid file, a second start is refused
#     (exit 1) without taking the first one's socket, a start that fails
#     (no dictionary) exits 1 naming the reason;
#   - as root with [milter] user/group: runs as that user, the socket belongs
#     to it with socket_mode;
#   - under a Type=notify service manager (NOTIFY_SOCKET, here a datagram
#     socket of our own): READY=1 once listening, RELOADING=1 then READY=1
#     around each reload (taken or refused), STOPPING=1 at SIGTERM.
# Exit status: 0 passed, 1 failed, 77 skipped (no miltertest).
set -uo pipefail

if ! command -v miltertest >/dev/null 2>&1; then
  echo "SKIP: miltertest is not installed (Debian package miltertest)"
  exit 77
fi

milter=$1
dict=$2
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
pass() { echo "PASS: $*"; }

# config NAME SOCKET [EXTRA...]: a config file with a store of its own.
config() {
  local name=$1 sock=$2
  shift 2
  mkdir -p "$work/$name"
  chmod 777 "$work/$name"
  {
    printf '[langid]\ndictionary = "%s"\n' "$dict"
    printf '[store]\npath = "%s/%s/mailwave.db"\n' "$work" "$name"
    printf '[milter]\nsocket = "unix:%s"\n' "$sock"
    for line in "$@"; do printf '%s\n' "$line"; done
  } >"$work/$name.toml"
}

wait_socket() {  # SOCKET PID
  for _ in $(seq 1 100); do
    [ -S "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

run_lua() {  # SOCKET SCRIPT [QID]  (SOCKET: a path, or inet:PORT@HOST)
  local out sock=$1
  [[ "$sock" == inet:* ]] || sock="unix:$sock"
  out=$(timeout 60 miltertest -D "sock=$sock" -D "dir=$here" -D "qid=${3:-Q1}" \
    -s "$here/lifecycle/$2" 2>&1)
  grep -q "miltertest: PASS" <<<"$out" && return 0
  echo "$out"
  return 1
}

# ---- reload (the daemon also reports to a service manager's NOTIFY_SOCKET)
notify=$work/notify.sock
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as out:
    while True:
        out.write(s.recv(4096).decode().replace("\n", " ") + "\n")
        out.flush()
' "$notify" "$work/notify.txt" &
pids+=("$!")
disown "$!"  # killed by cleanup, without the shell's "Killed" report
for _ in $(seq 1 50); do [ -S "$notify" ] && break; sleep 0.1; done
notified() {  # N PATTERN: the Nth notification matches PATTERN
  for _ in $(seq 1 50); do
    [ "$(wc -l <"$work/notify.txt" 2>/dev/null || echo 0)" -ge "$1" ] && break
    sleep 0.1
  done
  sed -n "$1p" "$work/notify.txt" 2>/dev/null | grep -qE "$2"
}
sock=$work/reload.sock
config reload "$sock" '[wave]' 'min_size = 5'
NOTIFY_SOCKET=$notify "$milter" -f -c "$work/reload.toml" 2>"$work/reload.log" &
pid=$!
pids+=("$pid")
wait_socket "$sock" "$pid" || fail "reload: no socket"
notified 1 "^READY=1 STATUS=listening on unix:$sock\$" &&
  pass "READY=1 to the service manager once listening" ||
  fail "no READY=1 notification: $(cat "$work/notify.txt" 2>/dev/null)"
sed -i 's/^min_size = 5/min_size = 7/' "$work/reload.toml"
kill -HUP "$pid"
for _ in $(seq 1 50); do grep -q "reloaded" "$work/reload.log" && break; sleep 0.1; done
grep -q "^mailwave-milter: reloaded $work/reload.toml$" "$work/reload.log" &&
  pass "SIGHUP reloads a good configuration" || fail "no 'reloaded' line"
sed -i 's/^\[milter\]$/[milter]\non_error = "reject"/' "$work/reload.toml"
kill -HUP "$pid"
for _ in $(seq 1 50); do grep -q "reload refused" "$work/reload.log" && break; sleep 0.1; done
want="mailwave-milter: reload refused: $work/reload.toml: milter.on_error: must be accept or tempfail; the running configuration stays"
grep -qxF "$want" "$work/reload.log" &&
  pass "SIGHUP refuses a bad configuration in one line" ||
  fail "a bad reload does not say: $want"
notified 2 "^RELOADING=1 MONOTONIC_USEC=[0-9]+ STATUS=reloading$" &&
  notified 3 "^READY=1 STATUS=reloaded$" &&
  notified 4 "^RELOADING=1 " &&
  notified 5 "^READY=1 STATUS=reload refused" &&
  pass "RELOADING=1, then READY=1, around a taken and a refused reload" ||
  fail "reload notifications: $(cat "$work/notify.txt")"
kill -0 "$pid" 2>/dev/null && run_lua "$sock" plain.lua AFTERHUP &&
  pass "the daemon answers after a refused reload" ||
  fail "the daemon does not answer after a refused reload"
grep -q "^mailwave-milter: AFTERHUP: language=" "$work/reload.log" ||
  fail "no log line for the message after the reloads"

# ---- stop with a message in flight, then a stop with none
run_lua "$sock" slow.lua >"$work/slow.out" 2>&1 &
lua=$!
# the message is open once its headers are in; the pause is 2 s
sleep 1
start=$(date +%s%N)
kill -TERM "$pid"
if wait "$lua"; then
  pass "a message in flight at SIGTERM is still tagged"
else
  fail "the message in flight failed: $(cat "$work/slow.out")"
fi
status=0
wait "$pid" || status=$?
[ "$status" = 0 ] && pass "exit 0 after the drain" || fail "exit $status after SIGTERM"
notified 6 "^STOPPING=1 STATUS=draining$" && pass "STOPPING=1 at SIGTERM" ||
  fail "no STOPPING=1 notification: $(cat "$work/notify.txt")"
grep -q "^mailwave-milter: stopping: 1 messages in flight$" "$work/reload.log" ||
  fail "the log does not say one message was in flight"
grep -q "^mailwave-milter: SLOW1: language=" "$work/reload.log" ||
  fail "no log line for the message in flight"

sed -i '/^on_error/d' "$work/reload.toml"
"$milter" -f -c "$work/reload.toml" 2>"$work/stop.log" &
pid=$!
pids+=("$pid")
wait_socket "$sock" "$pid" || fail "restart: no socket"
start=$(date +%s%N)
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ "$status" = 0 ] || fail "exit $status after SIGTERM with nothing in flight"
# libmilter alone waits for its 5 s poll to end.
[ "$ms" -lt 2000 ] && pass "an idle stop takes $ms ms" ||
  fail "an idle stop took $ms ms (libmilter's poll not woken)"

# ---- the same stop over TCP: the parked listener keeps the socket's family
port=""
for _ in $(seq 1 50); do
  p=$((20000 + RANDOM % 20000))
  if ! ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; then port=$p; break; fi
done
if [ -n "$port" ]; then
  config tcp "$work/unused.sock"
  sed -i "s|^socket = .*|socket = \"inet:$port@127.0.0.1\"|" "$work/tcp.toml"
  "$milter" -f -c "$work/tcp.toml" 2>"$work/tcp.log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 100); do
    ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
    sleep 0.1
  done
  run_lua "inet:$port@127.0.0.1" slow.lua >"$work/tcpslow.out" 2>&1 &
  lua=$!
  sleep 1
  kill -TERM "$pid"
  wait "$lua" && pass "TCP: a message in flight at SIGTERM is still tagged" ||
    fail "TCP: the message in flight failed: $(cat "$work/tcpslow.out")"
  status=0
  wait "$pid" || status=$?
  [ "$status" = 0 ] || fail "TCP: exit $status after SIGTERM"
  if ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then fail "TCP: port $port still listens"; fi
  "$milter" -f -c "$work/tcp.toml" 2>>"$work/tcp.log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 100); do
    ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
    sleep 0.1
  done
  sleep 1
  start=$(date +%s%N)
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  [ "$status" = 0 ] && [ "$ms" -lt 2000 ] && pass "TCP: an idle stop takes $ms ms" ||
    fail "TCP: idle stop: exit $status after $ms ms"
else
  echo "SKIP: TCP stop (no free port found)"
fi

# ---- daemon mode
sock=$work/daemon.sock
config daemon "$sock" "pid_file = \"$work/daemon.pid\""
"$milter" -c "$work/daemon.toml" >"$work/daemon.out" 2>&1
status=$?
[ "$status" = 0 ] || fail "daemon start: exit $status ($(cat "$work/daemon.out"))"
dpid=$(cat "$work/daemon.pid" 2>/dev/null)
if [ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null; then
  pids+=("$dpid")
  pass "detached, pid $dpid in the pid file"
else
  fail "no live pid in $work/daemon.pid"
fi
[ -S "$sock" ] || fail "daemon: no socket"
ino=$(stat -c %i "$sock")
out=$("$milter" -c "$work/daemon.toml" 2>&1)
status=$?
[ "$status" = 1 ] && grep -q "mailwave-milter $dpid is running" <<<"$out" &&
  pass "a second start is refused: $out" || fail "a second start: exit $status ($out)"
[ "$(stat -c %i "$sock" 2>/dev/null)" = "$ino" ] ||
  fail "the second start replaced the first one's socket"
run_lua "$sock" plain.lua DAEMON1 && pass "the daemon answers" || fail "the daemon does not answer"
kill -TERM "$dpid"
for _ in $(seq 1 50); do
  kill -0 "$dpid" 2>/dev/null || break
  state=$(awk '{print $3}' "/proc/$dpid/stat" 2>/dev/null)
  [ "$state" = Z ] && break
  sleep 0.1
done
[ ! -e "$work/daemon.pid" ] && pass "the pid file is gone after SIGTERM" ||
  fail "the pid file is still there after SIGTERM"

config nodict "$work/nodict.sock" "pid_file = \"$work/nodict.pid\""
sed -i "s|^dictionary = .*|dictionary = \"$work/absent.dict\"|" "$work/nodict.toml"
out=$("$milter" -c "$work/nodict.toml" 2>&1)
status=$?
[ "$status" = 1 ] && grep -q "absent.dict" <<<"$out" &&
  pass "a failed daemon start exits 1: $out" ||
  fail "a daemon start without a dictionary: exit $status ($out)"

# ---- privileges (root only, with the user nobody)
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && getent group nogroup >/dev/null; then
  sock=$work/priv.sock
  config priv "$sock" 'user = "nobody"' 'group = "nogroup"' 'socket_mode = "0660"'
  "$milter" -f -c "$work/priv.toml" 2>"$work/priv.log" &
  pid=$!
  pids+=("$pid")
  wait_socket "$sock" "$pid" || fail "priv: no socket"
  sleep 0.2
  who=$(ps -o user=,group= -p "$pid" | tr -s ' ')
  [ "$who" = "nobody nogroup" ] && pass "runs as nobody:nogroup" || fail "runs as '$who'"
  perm=$(stat -c '%A %U %G' "$sock")
  [ "$perm" = "srw-rw---- nobody nogroup" ] && pass "socket $perm" || fail "socket is $perm"
  # The socket is bound before privileges are dropped and the store is
  # opened after, so the store file may not exist yet (a sanitizer build
  # takes longer than the sleep above to load the dictionary first).
  for _ in $(seq 1 100); do
    [ -e "$work/priv/mailwave.db" ] && break
    sleep 0.1
  done
  owner=$(stat -c %U "$work/priv/mailwave.db" 2>/dev/null)
  [ "$owner" = nobody ] && pass "the store belongs to nobody" || fail "the store belongs to '$owner'"
  if grep -q "running as root" "$work/priv.log"; then fail "warned about root after dropping it"; fi
  kill -TERM "$pid"
  wait "$pid" || fail "priv: exit $? after SIGTERM"
else
  echo "SKIP: privilege drop (needs root and the user nobody)"
fi

if [ "$failed" != 0 ]; then
  for f in "$work"/*.log; do
    echo "--- $f"
    cat "$f"
  done
  exit 1
fi
exit 0
