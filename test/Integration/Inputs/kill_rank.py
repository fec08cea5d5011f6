"""Kills one rank of a running multi-rank executable with SIGKILL (or stops
it with SIGSTOP: --stop) and checks that the job ends, with a line naming
the lost (or silent) rank, within 30 s.

  kill_rank.py MODEL NP RANK [--stop] -- ARGS...

Starts `mpirun --oversubscribe -np NP MODEL ARGS...` (ARGS should make it
run for a while: --benchmark with many iterations), waits until every rank
is running, kills the RANK-th child of mpirun, and prints:
  ended: yes|no, exit: non-zero|zero, seconds: <= 30|> 30, names rank: yes|no
"""
import os
import signal
import subprocess
import sys
import time

model, np_, victim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
stop = "--stop" in sys.argv[4:sys.argv.index("--")]
args = sys.argv[sys.argv.index("--") + 1:]
proc = subprocess.Popen(["mpirun", "--oversubscribe", "-np", str(np_), model] + args,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmd = f.read().split(b"\0")[0].decode()
        except OSError:
            continue
        if int(fields[1]) == pid and os.path.basename(cmd) == os.path.basename(model):
            out.append(int(entry))
    return sorted(out)


deadline = time.time() + 60
ranks = []
while time.time() < deadline and len(ranks) < np_:
    ranks = children(proc.pid)
    time.sleep(0.1)
if len(ranks) < np_:
    proc.kill()
    sys.exit("the ranks did not start: %s" % proc.communicate()[0])
time.sleep(1.0)  # let them get into their collectives
os.kill(ranks[victim], signal.SIGSTOP if stop else signal.SIGKILL)
start = time.time()
try:
    out, _ = proc.communicate(timeout=30)
    ended = True
except subprocess.TimeoutExpired:
    proc.kill()
    for pid in ranks:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    out, _ = proc.communicate()
    ended = False
took = time.time() - start
print("ended: %s" % ("yes" if ended else "no"))
print("exit: %s" % ("non-zero" if proc.returncode != 0 else "zero"))
print("seconds: %s" % ("<= 30" if took <= 30 else "> 30"))
named = "rank %d" % victim in out
print("names rank: %s" % ("yes" if named else "no"))
if not named:
    print(out)
