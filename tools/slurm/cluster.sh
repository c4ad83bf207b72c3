#!/usr/bin/env bash
# A throw-away one-node Slurm cluster on localhost, for trying the recipe in this folder and for
# CI (.ci/slurm.sh). Not for production: it runs every daemon as the calling user (root in CI).
#
#   tools/slurm/cluster.sh start [DIR]   # prints the line to eval: export SLURM_CONF=DIR/slurm.conf
#   tools/slurm/cluster.sh stop  [DIR]
#   tools/slurm/cluster.sh status [DIR]
#
# DIR (default $S2S_SLURM_DIR, else ${TMPDIR:-/tmp}/s2s-slurm) holds everything: the munge key
# and socket, slurm.conf, the controller's state, slurmd's spool, pid files and logs. Nothing
# outside DIR is written, so a Slurm or munge already installed on the machine is left alone
# (different socket, different ports: $S2S_SLURM_PORT and the next one, default 16817/16818).
#
# Works in a container without systemd: the daemons are started directly, with
# proctrack/linuxproc and task/none so that no cgroup is needed, no accounting database.
# `stop` cancels the jobs of this cluster (their processes would otherwise outlive slurmd), then
# ends exactly the daemons whose pid files are in DIR, and keeps DIR (its logs are evidence).
#
# Needs: apt-get install -y slurm-wlm munge   (Debian bookworm: Slurm 22.05, munge 0.5.15)
set -euo pipefail

action=${1:-}
dir=${2:-${S2S_SLURM_DIR:-${TMPDIR:-/tmp}/s2s-slurm}}
port=${S2S_SLURM_PORT:-16817}
node=localhost
# How long start waits for the node to come up, and stop for jobs and daemons to end.
wait_s=${S2S_SLURM_WAIT:-60}

die() { echo "cluster.sh: $*" >&2; exit 1; }

# The pid in a pid file if that process is still the daemon named (a stale file after a crash
# or a reboot may name an unrelated process that reused the pid), else nothing.
live_pid() {
  local file=$1 name=$2 pid
  [ -s "$file" ] || return 0
  # (The daemon may remove its pid file right now, while it exits.)
  pid=$(tr -dc '0-9' 2> /dev/null < "$file" || true)
  [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] || return 0
  [ "$(cat "/proc/$pid/comm" 2> /dev/null)" = "$name" ] || return 0
  # A zombie has ended; it waits for its parent (init, here) to reap it.
  [ "$(awk '{print $3}' "/proc/$pid/stat" 2> /dev/null)" = Z ] || echo "$pid"
  return 0
}

start() {
  for tool in munged mungekey slurmctld slurmd sinfo; do
    command -v "$tool" > /dev/null || die "$tool not found: apt-get install -y slurm-wlm munge"
  done
  if [ -n "$(live_pid "$dir/run/slurmctld.pid" slurmctld)" ]; then
    die "a cluster is already running in $dir (stop it first: $0 stop $dir)"
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)  # absolute: the daemons chdir
  # munged wants its key folder private and its socket folder open to all (0755), and
  # neither writable by others.
  mkdir -p "$dir/munge" "$dir/run" "$dir/log" "$dir/state" "$dir/spool"
  chmod 0700 "$dir/munge"
  chmod 0755 "$dir" "$dir/run"
  [ -s "$dir/munge/munge.key" ] || mungekey --create --keyfile="$dir/munge/munge.key"
  chmod 0600 "$dir/munge/munge.key"

  local cpus
  cpus=$(nproc)
  cat > "$dir/slurm.conf" <<EOF
# Written by tools/slurm/cluster.sh: a one-node test cluster, everything under $dir.
ClusterName=s2s-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/run/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/plugstack.conf
# No cgroups (containers, CI): processes are tracked through /proc parentage.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
# CPUs are the consumable: N one-CPU tasks run side by side on an N-CPU machine.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# Jobs may be requeued (sbatch --requeue is the default with this); a requeued job is
# eligible again after cred_expire (120 s unless AuthInfo says otherwise).
JobRequeue=1
# SIGTERM, then SIGKILL this many seconds later (the default is 30).
KillWait=10
ReturnToService=2
SlurmdParameters=config_overrides
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  : > "$dir/plugstack.conf"

  munged --socket="$dir/run/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" \
    || die "munged did not start (see $dir/log/munged.log)"
  # SLURM_CONF for the daemons' children (job steps inherit it) and for the commands below.
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" || die "slurmctld did not start (see $dir/log/slurmctld.log)"
  slurmd -f "$SLURM_CONF" -N "$node" || die "slurmd did not start (see $dir/log/slurmd.log)"

  local deadline=$((SECONDS + wait_s)) state=""
  while [ $SECONDS -lt $deadline ]; do
    state=$(sinfo -h -n "$node" -o %T 2> /dev/null || true)
    [ "$state" = idle ] && break
    sleep 1
  done
  if [ "$state" != idle ]; then
    echo "cluster.sh: node $node is '${state:-unreachable}' after ${wait_s}s; logs in $dir/log" >&2
    tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    stop
    exit 1
  fi
  echo "cluster.sh: one-node cluster up ($cpus CPUs, partition main) in $dir" >&2
  echo "export SLURM_CONF=$dir/slurm.conf"
}

# SIGTERM, then SIGKILL after a grace period, to one daemon named by its pid file.
end_daemon() {
  local file=$1 name=$2 pid deadline
  pid=$(live_pid "$file" "$name")
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2> /dev/null || true
  deadline=$((SECONDS + 15))
  while [ -n "$(live_pid "$file" "$name")" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if [ -n "$(live_pid "$file" "$name")" ]; then
    echo "cluster.sh: $name ($pid) ignored SIGTERM, killing it" >&2
    kill -KILL "$pid" 2> /dev/null || true
  fi
}

# The slurmstepd processes that this cluster's slurmd started: they carry its SLURM_CONF.
our_stepds() {
  local comm pid
  # /proc rather than pgrep: procps is not on every minimal system.
  for comm in /proc/[0-9]*/comm; do
    [ "$(cat "$comm" 2> /dev/null)" = slurmstepd ] || continue
    pid=${comm#/proc/}
    pid=${pid%/comm}
    if tr '\0' '\n' 2> /dev/null < "/proc/$pid/environ" | grep -qxF "SLURM_CONF=$dir/slurm.conf"; then
      echo "$pid"
    fi
  done
}

stop() {
  [ -d "$dir" ] || { echo "cluster.sh: no cluster in $dir" >&2; return 0; }
  dir=$(cd "$dir" && pwd)
  export SLURM_CONF="$dir/slurm.conf"
  if [ -n "$(live_pid "$dir/run/slurmctld.pid" slurmctld)" ]; then
    # Cancel this cluster's jobs and give slurmd time to end their processes.
    local ids
    mapfile -t ids < <(squeue -h -o %A 2> /dev/null || true)
    [ ${#ids[@]} -eq 0 ] || scancel --quiet --full "${ids[@]}" 2> /dev/null || true
    local deadline=$((SECONDS + wait_s))
    while [ -n "$(squeue -h -o %A 2> /dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
  fi
  local deadline=$((SECONDS + 15))
  while [ -n "$(our_stepds)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
  end_daemon "$dir/run/slurmd.pid" slurmd
  end_daemon "$dir/run/slurmctld.pid" slurmctld
  end_daemon "$dir/run/munged.pid" munged
  # Last resort: a job step whose slurmd is gone (its job processes go with it).
  local stray
  stray=$(our_stepds)
  if [ -n "$stray" ]; then
    echo "cluster.sh: killing leftover slurmstepd $stray" >&2
    # shellcheck disable=SC2086
    kill -KILL $stray 2> /dev/null || true
  fi
  echo "cluster.sh: stopped the cluster in $dir (logs kept in $dir/log)" >&2
}

status() {
  local name
  for name in munged slurmctld slurmd; do
    echo "$name: $(live_pid "$dir/run/$name.pid" "$name" | grep . || echo 'not running')"
  done
}

case "$action" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status [DIR]" >&2; exit 2 ;;
esac
