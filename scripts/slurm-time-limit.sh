#!/bin/bash
# The time-limit check of docs/hpc.md on a local Slurm: an `sbatch --time=1`
# of a fit that needs about three minutes must end before its limit with
# the JSON (status "deadline" or "interrupted"), exit status 143 and a
# checkpoint; the resume must end bitwise where an uninterrupted fit does.
# Needs slurm-wlm and munge (scripts/deps.sh) and a running Slurm:
#   /work/shared/tools/slurm-local/start.sh; export SLURM_CONF=/tmp/slurm-local/slurm.conf
# Run from the repository root after `make build`: scripts/slurm-time-limit.sh [N]
# (N, the data's size, 9000 by default: a fit of two to three minutes on 2 quiet
# cores, 3.4 s an evaluation (5000 now converges in 23 s, inside the limit);
# the first evaluation must end within the minute).
set -euo pipefail
command -v sbatch >/dev/null || { echo "no sbatch: apt-get install slurm-wlm munge, then start a Slurm" >&2; exit 2; }
N=${1:-9000}
BIN=$(pwd)/bin/exageostat
W=$(mktemp -d /tmp/exageostat-slurm-XXXX)
cd "$W"
"$BIN" simulate --n "$N" --seed 5 --out d.csv >/dev/null 2>&1
cat > fit.sbatch <<SB
#!/bin/bash
cd $W
$BIN fit --data d.csv --workers 2 --json r.json -v
echo \$? > status
SB
t0=$(date +%s)
job=$(sbatch --parsable --time=1 --cpus-per-task=2 --output="$W/job.out" fit.sbatch)
echo "job $job submitted with --time=1 in $W"
while squeue -h -j "$job" 2>/dev/null | grep -q .; do sleep 2; done
t1=$(date +%s)
status=$(cat status 2>/dev/null || echo none)
jstatus=$(python3 -c 'import json; print(json.load(open("r.json"))["status"])' 2>/dev/null || echo none)
evals=$(python3 -c 'import json; print(json.load(open("r.json"))["evaluations"])' 2>/dev/null || echo 0)
echo "the job ran $((t1 - t0)) s; exit status $status; JSON status $jstatus after $evals evaluations; checkpoint: $(ls r.ckpt 2>/dev/null || echo none)"
grep -E "deadline|interrupted|SIGTERM" job.out || true
[ "$status" = 143 ] && { [ "$jstatus" = deadline ] || [ "$jstatus" = interrupted ]; } && [ -f r.ckpt ] || { echo FAIL; exit 1; }
"$BIN" fit --data d.csv --workers 2 --json resumed.json --resume r.ckpt -q >/dev/null
"$BIN" fit --data d.csv --workers 2 --json full.json --checkpoint none -q >/dev/null
python3 - <<PY
import json
r, f = json.load(open("resumed.json")), json.load(open("full.json"))
same = r["theta"] == f["theta"] and r["loglik"] == f["loglik"] and r["evaluations"] == f["evaluations"]
print("resumed: l %r theta %r after %d (%d replayed); uninterrupted: l %r theta %r after %d: %s" % (
    r["loglik"], r["theta"], r["evaluations"], r["replayed_evaluations"], f["loglik"], f["theta"], f["evaluations"],
    "bitwise the same" if same else "DIFFERENT"))
raise SystemExit(0 if same else 1)
PY
echo PASS
