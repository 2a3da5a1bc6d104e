# Drives psql in a pseudo-terminal to exercise its tab completion against the server: waits (bounded)
# for the prompt, types "SELECT * FROM poi<TAB>" (a table name psql completes from the catalog), then
# " WHERE xc<TAB>" (a column name), finishes the statement and runs it, and quits.
# Arguments: psql's path, the server's port, a home directory. Prints what the terminal showed, then a
# summary line: PROMPT <bool> TABLE <bool> COLUMN <bool> RAN <bool>.
import os, pty, sys, time, select
psql, port, home = sys.argv[1], sys.argv[2], sys.argv[3]
pid, fd = pty.fork()
if pid == 0:
    os.environ["HOME"] = home
    os.environ["TERM"] = "xterm"
    os.environ["PAGER"] = "cat"
    os.environ["INPUTRC"] = "/dev/null"
    os.execv(psql, [psql, "-X", "-h", "127.0.0.1", "-p", port, "-U", "tandem", "-d", "tandem"])
out = b""
def read_until(marker, timeout):
    """Reads the terminal until marker appears after the reads so far, for at most timeout seconds."""
    global out
    start = len(out)
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
            if marker in out[start:]:
                return True
    return False
prompt = read_until(b"tandem=", 30)
os.write(fd, b"SELECT * FROM poi\t")
table = read_until(b"nts ", 15)
os.write(fd, b"WHERE xc\t")
column = read_until(b"oord ", 15)
os.write(fd, b"= 1;\r")
ran = read_until(b"row", 15)
os.write(fd, b"\\q\r")
read_until(b"never printed", 2)
try:
    os.kill(pid, 9)
except ProcessLookupError:
    pass
os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace"))
print("\nPROMPT", prompt, "TABLE", table, "COLUMN", column, "RAN", ran)
