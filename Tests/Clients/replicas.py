"""Two read-only replicas of one index behind nginx, under load (issue 39).

Run by Tests/CLITests/ReplicaTests.swift:

    python3 replicas.py XKCD_SEARCH WORK_DIR SERVER_MD

WORK_DIR holds `index.sqlite`, the fixture index, and is this run's own. The script copies it
to two replicas, `r1/index.sqlite` and `r2/index.sqlite`, each served by `xkcd-search serve
--read-only`, and runs nginx in front of them with the configuration docs/server.md (SERVER_MD)
gives. Four threads ask nginx all along, then:

1. replica 1 is killed (SIGKILL), in the middle of the load;
2. a new index (the same comics, and #327 a favourite tagged `published`) is published to both
   replicas as docs/server.md says: `.backup` beside the served file, then renamed over it;
3. replica 1 is started again.

Every step waits for answers, never for a time. Prints one JSON object: how many answers, the
failures, whether any answer after the first from the new file still came from the old one, and
what each replica answers at the end. Exits 0 when it could run the steps; the test judges.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

BINARY, WORK, SERVER_MD = sys.argv[1], sys.argv[2], sys.argv[3]
# Only a guard against a hang: a busy 2-core machine is slow, never this slow.
HANG_GUARD = 300
THREADS = 4
# Answers to wait for between steps: enough that each step happens under load.
ANSWERS_PER_STEP = 60


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url):
    """(status, body) of a GET; status 0 when nothing answered."""
    try:
        with urllib.request.urlopen(url, timeout=HANG_GUARD) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError as error:
        return 0, str(error).encode()


def serve(directory, port):
    """Starts a replica and waits for its "serving" line."""
    process = subprocess.Popen(
        [BINARY, "serve", "--db", os.path.join(directory, "index.sqlite"), "--read-only",
         "--port", str(port), "--deadline", "600"],
        stdout=subprocess.PIPE, stderr=open(os.path.join(directory, "serve.log"), "ab"), text=True)
    line = process.stdout.readline()
    if not line.startswith("serving "):
        raise SystemExit(f"replica in {directory} did not start: {line!r}")
    return process


def publish(source, directory):
    """docs/server.md's publication: a consistent copy beside the served file, renamed over it."""
    target = os.path.join(directory, "index.sqlite")
    subprocess.run(["sqlite3", source, f".backup {target}.new"], check=True)
    os.rename(target + ".new", target)


def nginx_configuration(front, first, second):
    """The nginx block of docs/server.md with this run's ports, inside a main configuration."""
    text = open(SERVER_MD).read()
    block = re.search(r"```nginx\n(.*?)```", text, re.S).group(1)
    block = block.replace("127.0.0.1:8081", f"127.0.0.1:{first}").replace("127.0.0.1:8082", f"127.0.0.1:{second}")
    block = block.replace("listen 8080;", f"listen 127.0.0.1:{front};")
    temp = os.path.join(WORK, "nginx")
    return f"""daemon off;
pid {temp}/nginx.pid;
error_log {temp}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
{block}
}}
"""


class Load:
    """Threads asking nginx until stopped; each answer is recorded in the order it came."""

    def __init__(self, base):
        self.base = base
        self.answers = []  # (status, from the new file)
        self.failures = []
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.stopping = threading.Event()
        # Daemons: a step that never happens ends the script, not waits for them.
        self.threads = [threading.Thread(target=self.ask, args=(n,), daemon=True) for n in range(THREADS)]

    def ask(self, n):
        paths = ["/api/favourites", "/api/search?q=bobby+tables", "/api/comics/327", "/healthz"]
        turn = n
        while not self.stopping.is_set():
            path = paths[turn % len(paths)]
            turn += 1
            status, body = get(self.base + path)
            is_new = None
            if path == "/api/favourites" and status == 200:
                is_new = b'"published"' in body
            with self.changed:
                self.answers.append((status, is_new))
                if status != 200:
                    self.failures.append(f"{path}: {status} {body[:200]!r}")
                self.changed.notify_all()

    def wait_for(self, what, condition):
        with self.changed:
            if not self.changed.wait_for(lambda: condition(self.answers), timeout=HANG_GUARD):
                raise SystemExit(f"never happened: {what}")

    def wait_for_more(self, count):
        with self.lock:
            target = len(self.answers) + count
        self.wait_for(f"{target} answers", lambda answers: len(answers) >= target)


def main():
    source = os.path.join(WORK, "index.sqlite")
    replicas = [os.path.join(WORK, "r1"), os.path.join(WORK, "r2")]
    for directory in replicas:
        os.makedirs(directory)
        publish(source, directory)
    newer = os.path.join(WORK, "newer.sqlite")
    subprocess.run(["sqlite3", source, f".backup {newer}"], check=True)
    subprocess.run([BINARY, "fav", "add", "327", "published", "--db", newer], check=True, stdout=subprocess.DEVNULL)

    ports = [free_port(), free_port()]
    front = free_port()
    servers = [serve(directory, port) for directory, port in zip(replicas, ports)]
    os.makedirs(os.path.join(WORK, "nginx"))
    configuration = os.path.join(WORK, "nginx", "nginx.conf")
    with open(configuration, "w") as file:
        file.write(nginx_configuration(front, *ports))
    nginx = subprocess.Popen([shutil.which("nginx") or "/usr/sbin/nginx", "-p", os.path.join(WORK, "nginx"), "-c", configuration],
                             stderr=open(os.path.join(WORK, "nginx", "stderr.log"), "wb"))
    base = f"http://127.0.0.1:{front}"
    load = None
    try:
        # nginx is up when it answers: until then a connection is refused.
        while get(base + "/healthz")[0] != 200:
            time.sleep(0.02)  # between polls only: the wait is for nginx's answer
            if nginx.poll() is not None:
                raise SystemExit("nginx did not start: " + open(os.path.join(WORK, "nginx", "stderr.log")).read())
        load = Load(base)
        for thread in load.threads:
            thread.start()
        load.wait_for_more(ANSWERS_PER_STEP)

        servers[0].send_signal(signal.SIGKILL)
        servers[0].wait()
        load.wait_for_more(ANSWERS_PER_STEP)

        for directory in replicas:
            publish(newer, directory)
        load.wait_for("an answer from the new file", lambda answers: any(new for _, new in answers))
        load.wait_for_more(ANSWERS_PER_STEP)

        servers[0] = serve(replicas[0], ports[0])
        load.wait_for_more(ANSWERS_PER_STEP)
        load.stopping.set()
        for thread in load.threads:
            thread.join()

        marks = [new for _, new in load.answers if new is not None]
        first_new = marks.index(True)
        direct = [get(f"http://127.0.0.1:{port}/api/favourites") for port in ports]
        print(json.dumps({
            "answers": len(load.answers),
            "failures": load.failures,
            "oldAfterNew": marks[first_new:].count(False),
            "oldBeforeNew": first_new,
            "replicasServeTheNewFile": [status == 200 and b'"published"' in body for status, body in direct],
        }))
    finally:
        if load:
            load.stopping.set()
        nginx.send_signal(signal.SIGQUIT)
        nginx.wait()
        for server in servers:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                server.wait()


if __name__ == "__main__":
    main()
