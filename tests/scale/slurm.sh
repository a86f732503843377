#!/usr/bin/env bash
# tests/scale/slurm.sh — examples/scale/slurm-phase0.sbatch on a real single-node Slurm cluster (Debian's
# munge, slurmctld and slurmd, configured and started here in a folder of their own, stopped on exit): the
# 4-task array over tests/fixtures/org.sh, then slurm-merge.sbatch after it, equal to one-process phase0.
# Needs root (the daemons run as root, SlurmUser=root); `make check-scale` runs it.
set -u
if [ "$(id -u)" != 0 ]; then
	echo "tests/scale/slurm.sh: needs root: it starts munged, slurmctld and slurmd itself (make check-scale runs as root in CI)" >&2
	exit 1
fi
for tool in munged munge slurmctld slurmd sbatch scontrol sinfo squeue scancel jq python3; do
	command -v "$tool" >/dev/null || {
		echo "tests/scale/slurm.sh: $tool is missing: ./bootstrap --tests installs munge, slurmctld, slurmd and slurm-client" >&2
		exit 1
	}
done
. "$RTK_SRCDIR/tests/scale/lib.sh"

# munged wants every folder above its socket searchable by all and its key readable by it alone.
CLUSTER=$(mktemp -d "${TMPDIR:-/tmp}/rtk-slurm.XXXXXX")
chmod 755 "$CLUSTER"
mkdir -m 755 "$CLUSTER/run" && mkdir -m 700 "$CLUSTER/munge" "$CLUSTER/state" "$CLUSTER/spool"
DAEMONS=()
# Every Slurm command here, scancel on the way out included, talks to this cluster only.
export SLURM_CONF=$CLUSTER/slurm.conf

# Everything started here is stopped, on success and on failure alike: our jobs cancelled, then the
# daemons (started in the foreground, so their ids are ours) ended and waited for.
stop_cluster() {
	if [ ${#DAEMONS[@]} -gt 0 ]; then
		scancel --quiet --user=root 2>/dev/null
		for _ in $(seq 1 60); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 1
		done
		kill "${DAEMONS[@]}" 2>/dev/null
		wait "${DAEMONS[@]}" 2>/dev/null
	fi
	rm -rf "$CLUSTER" "$SCRATCH_ROOT"
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM HUP

# The cluster's logs, for a case that failed.
cluster_logs() {
	local log
	for log in "$CLUSTER"/*.log "$CLUSTER"/*.out; do
		echo "== $log"
		tail -n 20 "$log"
	done
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

head -c 1024 /dev/urandom >"$CLUSTER/munge/munge.key"
chmod 400 "$CLUSTER/munge/munge.key"
munged --foreground --socket="$CLUSTER/run/munge.sock" --key-file="$CLUSTER/munge/munge.key" \
	--log-file="$CLUSTER/munged.log" --pid-file="$CLUSTER/run/munged.pid" --seed-file="$CLUSTER/munge/seed" >"$CLUSTER/munged.out" 2>&1 &
DAEMONS+=($!)

# No cgroup plugin anywhere (this runs in containers): processes tracked by /proc, tasks not bound, no
# accounting. The ports are free ones, so a Slurm already on the machine is left alone.
cat >"$SLURM_CONF" <<EOF
ClusterName=rtk-check
SlurmctldHost=localhost
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$CLUSTER/run/munge.sock
StateSaveLocation=$CLUSTER/state
SlurmdSpoolDir=$CLUSTER/spool
SlurmctldPidFile=$CLUSTER/run/slurmctld.pid
SlurmdPidFile=$CLUSTER/run/slurmd.pid
SlurmctldLogFile=$CLUSTER/slurmctld.log
SlurmdLogFile=$CLUSTER/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
DependencyParameters=kill_invalid_depend
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

daemons_alive() { kill -0 "${DAEMONS[@]}" 2>/dev/null; }
# up CHECK: waits until CHECK passes, or a daemon has exited (then it never will): the hang guard of
# tests/cli/lib.sh is the only time limit.
up() { eventually eval "$1 || ! daemons_alive" && $1; }
munge_up() { munge -S "$CLUSTER/run/munge.sock" -n 2>/dev/null | unmunge -S "$CLUSTER/run/munge.sock" >/dev/null 2>&1; }
node_idle() { [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ]; }

started=false
if up munge_up; then
	slurmctld -D -i -f "$SLURM_CONF" >"$CLUSTER/slurmctld.out" 2>&1 &
	DAEMONS+=($!)
	slurmd -D -N localhost -f "$SLURM_CONF" >"$CLUSTER/slurmd.out" 2>&1 &
	DAEMONS+=($!)
	up node_idle && started=true
fi
if $started; then
	pass "a single-node cluster: munged, slurmctld and slurmd up, node localhost idle"
else
	fail "a single-node cluster: munged, slurmctld and slurmd up, node localhost idle" "$(cluster_logs)"
	finish
	exit 1
fi

# The examples as a user runs them, from the folder holding phase0.yaml: the array, then the merge job
# after it, as the comment in slurm-phase0.sbatch says (--wait here, to read the results back; the
# timeout is the hang guard).
EX=$RTK_SRCDIR/examples/scale
PATH="$(dirname "$RTK"):$PATH"
export PATH
cd "$ORG" || exit 1
# sbatch --wait returns 0 for a job cancelled before it ran (a dependency never satisfied), so each job's
# tasks are read back: all COMPLETED with exit code 0.
completed_tasks() {
	scontrol -o show job "$1" 2>/dev/null | grep -c 'JobState=COMPLETED .*ExitCode=0:0'
}
job=$(timeout "$HANG_GUARD" sbatch --parsable --wait --array=0-3 "$EX/slurm-phase0.sbatch")
job=${job%%;*}
testing "sbatch --wait --array=0-3 slurm-phase0.sbatch: four tasks COMPLETED, exit code 0" \
	"echo $(completed_tasks "$job")" '4\n'
merge_job=$(timeout "$HANG_GUARD" sbatch --parsable --wait --dependency="afterok:$job" "$EX/slurm-merge.sbatch")
merge_job=${merge_job%%;*}
testing "sbatch --dependency=afterok:JOBID slurm-merge.sbatch: COMPLETED, exit code 0" \
	"echo $(completed_tasks "$merge_job")" '1\n'
if [ "$TESTS_FAILED" != 0 ]; then
	echo "the jobs' output:"
	tail -n 5 phase0-*.log merge-*.log 2>/dev/null
	cluster_logs
fi
pooled_checks "slurm" "$ORG"/piece-*.json
same_as_one_process "slurm: the merged JSON is the one-process rtk phase0 --json" "$ORG/phase0.json"
same_as_one_process "slurm: the merged markdown is the one-process rtk phase0" "$ORG/phase0.md"
finish
