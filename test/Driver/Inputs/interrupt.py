"""Interrupts shardc while it runs the host compiler and checks what it left.

usage: interrupt.py SHARDC MODEL WORKDIR SIGNAL fake|real

Runs `SHARDC MODEL -o WORKDIR/exe` with TMPDIR=WORKDIR/tmp (empty, private)
and, for `fake`, CXX set to a compiler that records its pid and sleeps (so
the signal surely arrives during the compile); for `real`, the host
compiler (through ccache when present, told to recompile) on a program large
enough to still be compiling well after half a second (5,000 concatenations
take 2.4 s to compile and link on a quiet 2-core machine; 2,000 took 1.2 s,
which a signal sent a second in could miss). Sends SIGNAL (INT, TERM, HUP) to shardc once the
compile has started, then prints one line each: how shardc ended, what is
left in TMPDIR, and whether a compiler process of this run survived."""
import os
import signal
import subprocess
import sys
import time

shardc, model, work, signame, mode = sys.argv[1:6]
tmp = os.path.join(work, "tmp")
os.makedirs(tmp, exist_ok=True)
assert not os.listdir(tmp), "TMPDIR is not empty before the run"
env = dict(os.environ, TMPDIR=tmp)
started = os.path.join(work, "started")
if mode == "fake":
    cc = os.path.join(work, "slowcc")
    with open(cc, "w") as f:
        f.write("#!/bin/sh\necho $$ >> %s\nexec sleep 600\n" % started)
    os.chmod(cc, 0o755)
    env.update(CXX=cc, SHARDC_NO_CCACHE="1")
else:
    # ccache hits since the driver compiles on relative names: make it
    # compile again, or the run ends before the signal.
    env.update(CCACHE_RECACHE="1")



def default_signals():
    # lit's workers ignore SIGINT, and an ignored signal stays ignored in
    # children: give shardc the dispositions of a terminal's foreground job.
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


proc = subprocess.Popen([shardc, model, "-o", os.path.join(work, "exe")],
                        env=env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE, preexec_fn=default_signals)


def compilers():
    """Processes of this run's host compile: their TMPDIR is inside `tmp`."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == proc.pid:
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                if ("TMPDIR=" + tmp + "/").encode() in f.read():
                    pids.append(int(pid))
        except OSError:
            pass
    return pids


deadline = time.time() + 120
while time.time() < deadline:
    if mode == "fake" and os.path.exists(started):
        break
    if mode == "real" and compilers():
        time.sleep(0.5)  # into cc1plus
        break
    if proc.poll() is not None:
        sys.exit("shardc ended before the compile started: %s" %
                 proc.stderr.read().decode())
    time.sleep(0.05)
else:
    sys.exit("the compile did not start")
sig = getattr(signal, "SIG" + signame)
proc.send_signal(sig)
try:
    proc.wait(timeout=30)
except subprocess.TimeoutExpired:
    proc.kill()
    sys.exit("shardc did not end within 30 s of SIG" + signame)
rc = proc.returncode
print("shardc: %s" % ("killed by SIG" + signal.Signals(-rc).name[3:]
                      if rc < 0 else "exit %d" % rc))
time.sleep(0.2)
left = []
for root, dirs, files in os.walk(tmp):
    left += [os.path.relpath(os.path.join(root, n), tmp) for n in dirs + files]
print("left in TMPDIR: %s" % (" ".join(sorted(left)) or "nothing"))
print("compilers alive: %d" % len(compilers()))
print("executable written: %s" % os.path.exists(os.path.join(work, "exe")))
