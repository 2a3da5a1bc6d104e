# Drives pgcli in a pseudo-terminal: waits (bounded) for its prompt, lists the tables with \dt, quits.
# Arguments: the server's port, a home directory for pgcli's configuration and history.
import os, pty, sys, time, select
port = sys.argv[1]
home = sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.environ["HOME"] = home
    os.environ["TERM"] = "xterm"
    os.environ["XDG_CONFIG_HOME"] = home
    os.execvp("pgcli", ["pgcli", "-h", "127.0.0.1", "-p", port, "-U", "tandem", "-d", "tandem", "--less-chatty", "--no-password"])
out = b""
def read_until(marker, timeout):
    global out
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            out += chunk
            if marker in out:
                return True
    return False
ok = read_until(b"tandem>", 60)
os.write(fd, b"\\dt\r")
ok2 = read_until(b"SELECT 1", 30)
# let the completion refresher finish its catalog reads before quitting
read_until(b"never printed", 5)
os.write(fd, b"\x04")
read_until(b"Goodbye", 10)
try:
    os.kill(pid, 9)
except ProcessLookupError:
    pass
os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace"))
print("\nPROMPT", ok, "LISTED", ok2)
