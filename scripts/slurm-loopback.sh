#!/usr/bin/env bash
# A real two-node Slurm on 127.0.0.1 for the tests of XyClaw's Slurm provider (issue 33):
# Debian's slurm-wlm (22.05) and munge, one slurmctld and two `slurmd -N n1|n2` with their own
# ports, 8 GPU GRES per node backed by character devices made with mknod (no GPU is needed),
# and two unprivileged users: xyclaw-slurm (whom XyClaw logs in as over SSH) and xyclaw-other
# (the colleague whose jobs XyClaw must never show or touch).
#
#   scripts/slurm-loopback.sh start    install what is missing, start what is not running
#   scripts/slurm-loopback.sh status   exit 0 when both nodes answer, else 1
#   scripts/slurm-loopback.sh stop     stop the daemons this script started
#
# Idempotent and quick when already up (one `sinfo`). Needs root (CI runs as root); as
# another user it says what is missing and exits 1. Everything lives in $XYCLAW_SLURM_DIR
# (default /var/tmp/xyclaw-slurm); the ports are not Slurm's defaults so a site's Slurm on the
# same machine is left alone.
set -euo pipefail

DIR=${XYCLAW_SLURM_DIR:-/var/tmp/xyclaw-slurm}
CONF=$DIR/slurm.conf
CTLD_PORT=${XYCLAW_SLURM_PORT:-16817}
USERS=(xyclaw-slurm xyclaw-other)
export SLURM_CONF=$CONF

say() { echo "slurm-loopback: $*" >&2; }

running() {  # both nodes registered and free to take jobs
  [ -f "$CONF" ] || return 1
  local states
  states=$(timeout 10 sinfo --noheader --Node --format='%N %t' 2>/dev/null | sort -u) || return 1
  echo "$states" | grep -Eq '^n1 (idle|mix|alloc|comp)$' &&
    echo "$states" | grep -Eq '^n2 (idle|mix|alloc|comp)$'
}

install() {
  local missing=()
  for pkg in slurm-wlm munge; do
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)" = installed ] ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  }
}

users() {
  for user in "${USERS[@]}"; do
    id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
    # no password, but not locked: sshd without PAM refuses even a key to a locked account
    [ "$(passwd -S "$user" | cut -d' ' -f2)" != L ] || usermod -p '*' "$user"
  done
}

start_munge() {
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
  [ -f /etc/munge/munge.key ] || { mungekey --create >/dev/null 2>&1 || create-munge-key -f; }
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  if ! munge -n >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged --force 9>&-  # not the start lock: a daemon would hold it
    for _ in $(seq 50); do munge -n >/dev/null 2>&1 && return 0; sleep 0.1; done
    say "munged did not start"
    return 1
  fi
}

write_conf() {
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/dev"
  chmod 0755 "$DIR"
  for i in 0 1 2 3 4 5 6 7; do
    [ -e "$DIR/dev/nvidia$i" ] || mknod "$DIR/dev/nvidia$i" c 1 3  # /dev/null's numbers
  done
  chmod 0666 "$DIR"/dev/nvidia*
  cat >"$CONF" <<EOF
ClusterName=xyclaw-loopback
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=1
MinJobAge=30
ReturnToService=1
JobRequeue=1
SlurmdParameters=config_overrides
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((CTLD_PORT + 1)) CPUs=2 RealMemory=1000 Gres=gpu:a800:8 State=UNKNOWN
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((CTLD_PORT + 2)) CPUs=2 RealMemory=1000 Gres=gpu:a800:8 State=UNKNOWN
PartitionName=gpu Nodes=n1,n2 Default=YES MaxTime=60 DefaultTime=10 State=UP
PartitionName=short Nodes=n1 MaxTime=5 State=UP
EOF
  cat >"$DIR/gres.conf" <<EOF
NodeName=n1 Name=gpu Type=a800 File=$DIR/dev/nvidia[0-7]
NodeName=n2 Name=gpu Type=a800 File=$DIR/dev/nvidia[0-7]
EOF
}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

start() {
  [ "$(id -u)" -ne 0 ] || users
  if running && id xyclaw-other >/dev/null 2>&1 && [ "$(id -u)" -ne 0 ]; then
    return 0
  fi
  if running && id xyclaw-other >/dev/null 2>&1; then
    # up: only a changed configuration (a newer version of this script) is applied
    cp "$CONF" "$CONF.was" && cp "$DIR/gres.conf" "$DIR/gres.conf.was"
    write_conf
    if ! cmp -s "$CONF" "$CONF.was" || ! cmp -s "$DIR/gres.conf" "$DIR/gres.conf.was"; then
      scontrol reconfigure >/dev/null
    fi
    rm -f "$CONF.was" "$DIR/gres.conf.was"
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    say "needs root to install and start Slurm (run: sudo $0 start)"
    return 1
  fi
  install
  users
  start_munge
  write_conf
  alive "$DIR/slurmctld.pid" || slurmctld -f "$CONF" 9>&-
  for node in n1 n2; do
    alive "$DIR/slurmd-$node.pid" || slurmd -f "$CONF" -N "$node" 9>&-
  done
  for _ in $(seq 150); do
    if running; then
      scontrol update NodeName=n1,n2 State=RESUME >/dev/null 2>&1 || true
      return 0
    fi
    # a node left DOWN or DRAIN by a test of an earlier run comes back
    sinfo --noheader --Node --format='%N %t' 2>/dev/null | grep -Eq ' (down|drain|drng)' &&
      scontrol update NodeName=n1,n2 State=RESUME >/dev/null 2>&1 || true
    sleep 0.2
  done
  say "the nodes did not come up; see $DIR/log"
  sinfo --Node >&2 || true
  return 1
}

stop() {
  for pid in "$DIR"/slurmd-n1.pid "$DIR"/slurmd-n2.pid "$DIR"/slurmctld.pid; do
    alive "$pid" && kill "$(cat "$pid")"
  done
  return 0
}

case "${1:-start}" in
  start)
    # test workers (pytest-xdist) may start it at the same moment: one at a time
    if [ "$(id -u)" -eq 0 ]; then
      mkdir -p "$DIR"
      exec 9>"$DIR/start.lock"
      flock 9
    fi
    start
    ;;
  status) running ;;
  stop) stop ;;
  conf) echo "$CONF" ;;
  *) echo "usage: $0 start|status|stop|conf" >&2; exit 2 ;;
esac
