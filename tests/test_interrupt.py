#!/usr/bin/env python3
"""Long runs: a progress line on a terminal (count, rate, ETA), none when
piped; Ctrl-C (SIGINT) stops cleanly with exit 130 and a message, bench
printing the rows that finished, and no leak under AddressSanitizer.
Usage: test_interrupt.py path/to/coalesce"""
import fcntl, os, pty, select, signal, struct, subprocess, sys, tempfile, termios, time

CO = sys.argv[1]
env = dict(os.environ, COALESCE_CACHE_DIR=tempfile.mkdtemp())
failed = 0


def check(ok, what, out):
    global failed
    if not ok:
        failed += 1
        print("FAIL", what, "\n--- output:\n" + out[-3000:])
    else:
        print("ok  ", what)


def read_for(fd, seconds, out, until=None):
    """Read for `seconds`, or until the output holds `until` (a loaded machine is slow)."""
    end = time.time() + seconds
    while time.time() < end and not (until and until in b"".join(out)):
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return False
            if not data:
                return False
            out.append(data)
    return True


def on_tty(args, wait, until=None):
    """Run on a pseudo-terminal, SIGINT after `wait` s (or once `until` is printed, up to
    60 s); (exit code, output)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(CO, [CO] + args, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    out = []
    read_for(fd, 60 if until else wait, out, until)
    os.kill(pid, signal.SIGINT)
    t0 = time.time()
    while read_for(fd, 0.2, out) and time.time() - t0 < 30:
        if os.waitpid(pid, os.WNOHANG)[0]:
            break
    _, status = os.waitpid(pid, 0)
    read_for(fd, 0.1, out)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(out).decode(errors="replace")


LONG = [
    (["run", "collider", "--device", "c", "--balls", "10", "--steps", "100000000"], "step"),
    (["run", "raytrace", "--device", "c", "--width", "16", "--height", "16", "--frames", "100000"],
     "frame"),
    (["run", "boxfilter", "--device", "c", "--width", "1024", "--height", "768", "--radius", "300"],
     "pixel"),
]
for args, unit in LONG:
    code, out = on_tty(args, 2.0)
    name = " ".join(args)
    check(code == 130, f"{name}: exit 130 on Ctrl-C (got {code})", out)
    check(f" {unit} " in out and f"{unit}s/s" in out and "ETA" in out and "\r" in out,
          f"{name}: a progress line with {unit}s, rate and ETA", out)
    check("coalesce: interrupted" in out, f"{name}: says it was interrupted", out)
    check("Sanitizer" not in out, f"{name}: no sanitizer report (leak)", out)

# bench: the rows done so far are printed, as a table, before the message.
code, out = on_tty(["bench", "gemm", "--device", "c", "--size", "8,16,24,2000", "--reps", "1"],
                   4.0, until=b"m=24 n=24 k=24")
check(code == 130, f"bench: exit 130 on Ctrl-C (got {code})", out)
check("m=8 n=8 k=8" in out and "m=24 n=24 k=24" in out and " ok " in out,
      "bench: the rows that finished are printed", out)
check("coalesce: interrupted" in out and "Sanitizer" not in out, "bench: message, no leak", out)

# tune (on PoCL): a progress line with the count, the best so far and an ETA; Ctrl-C
# prints the search so far and leaves it, "interrupted", in the -o file.
if b"opencl:0" in subprocess.run([CO, "devices"], env=env, capture_output=True).stdout:
    path = os.path.join(env["COALESCE_CACHE_DIR"], "tune-int.json")
    code, out = on_tty(["tune", "gemm", "--device", "opencl", "--variant", "wpt", "--size", "64",
                        "--budget", "120", "--strategy", "random", "-o", path], 0,
                       until=b" ms (TS=")
    check(code == 130, f"tune: exit 130 on Ctrl-C (got {code})", out)
    check("tune gemm/wpt on opencl:0 (size=64): " in out and " candidates, best " in out
          and "(TS=" in out and "ETA" in out and "\r" in out,
          "tune: a progress line with the count, the best so far and an ETA", out)
    check("coalesce: interrupted: tuning gemm/wpt" in out and "<- best" in out
          and "Sanitizer" not in out, "tune: the search so far, the message, no leak", out)
    try:
        import json
        [r] = json.load(open(path))["results"]
        good = r["status"] == "interrupted" and len(r["candidates"]) >= 2 and not r["stored"]
    except (OSError, ValueError, KeyError) as e:
        good, r = False, e
    check(good, "tune -o interrupted: the search so far in the file", str(r))

# --json on a terminal: no progress line; what finished is still JSON.
code, out = on_tty(LONG[0][0] + ["--json"], 1.5)
check(code == 130 and "ETA" not in out and out.lstrip().startswith("{")
      and '"results": []' in out,
      f"--json on a terminal: no progress, exit 130 ({code})", out)

# Piped (not a terminal): nothing but the result, and SIGINT still stops it.
p = subprocess.Popen([CO] + LONG[0][0], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
time.sleep(4)  # past the start (probing every backend takes seconds on a loaded machine)
p.send_signal(signal.SIGINT)
out, err = p.communicate(timeout=30)
check(p.returncode == 130 and b"\r" not in err and b"ETA" not in err
      and err.startswith(b"coalesce: interrupted"),
      f"piped: exit 130 ({p.returncode}), one line, no progress", (out + err).decode())
sys.exit(1 if failed else 0)
