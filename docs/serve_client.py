#!/usr/bin/env python3
"""serve_client.py - a client of `arena serve` (docs/serve.md), standard
library only.

As a library:

    from serve_client import Client
    c = Client("http://127.0.0.1:8080", token=None)
    batch = c.submit([{"task": "c2c/saxpy",
                       "sources": {"kernel.c": open("kernel.c").read()}}])
    for answer in c.events(batch["batch"]):      # as each one is answered
        print(answer["id"], answer["result"]["status"])

As a command (one request, prints its result):

    python3 docs/serve_client.py http://127.0.0.1:8080 c2c/saxpy kernel.c
    python3 docs/serve_client.py unix:/run/arena.sock c2c/saxpy kernel.c --quick

The token, when the service has one, comes from $ARENA_SERVE_TOKEN or
--token-file.  Every error the service sends is raised as ServeError with
its HTTP status, the field at fault and the message.
"""
import http.client
import json
import os
import socket
import sys
import time
import urllib.parse


class ServeError(Exception):
    def __init__(self, status, field, message, retry_after=None):
        super().__init__("%d %s: %s" % (status, field or "-", message))
        self.status, self.field, self.message = status, field, message
        self.retry_after = retry_after


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


class Client:
    def __init__(self, url, token=None, timeout=60):
        self.url, self.token, self.timeout = url, token, timeout

    def _conn(self):
        if self.url.startswith("unix:"):
            return _UnixConnection(self.url[5:], self.timeout)
        u = urllib.parse.urlsplit(self.url)
        return http.client.HTTPConnection(u.hostname, u.port or 80,
                                          timeout=self.timeout)

    def _headers(self):
        h = {"Content-Type": "application/json"}
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        return h

    def request(self, method, path, body=None):
        """(status, headers, parsed JSON) of one request; raises
        ServeError for any status >= 400."""
        c = self._conn()
        try:
            data = None if body is None else (
                body if isinstance(body, bytes) else json.dumps(body).encode())
            try:
                c.request(method, path, body=data, headers=self._headers())
            except (BrokenPipeError, ConnectionResetError):
                pass  # refused before the whole body was read (401, 413)
            r = c.getresponse()
            raw = r.read()
        finally:
            c.close()
        try:
            doc = json.loads(raw) if raw else None
        except ValueError:
            doc = None
        if r.status >= 400:
            e = (doc or {}).get("error", {}) if isinstance(doc, dict) else {}
            ra = r.getheader("Retry-After")
            raise ServeError(r.status, e.get("field"),
                             e.get("message", raw[:200].decode(errors="replace")),
                             int(ra) if ra else None)
        return r.status, r, doc

    def health(self):
        return self.request("GET", "/v1/health")[2]

    def submit(self, items, client_key=None, retries=20):
        """Queues a batch; waits and retries while the queue is full
        (429, Retry-After) or the service is draining (503)."""
        body = {"items": items}
        if client_key:
            body["client_key"] = client_key
        for _ in range(retries):
            try:
                return self.request("POST", "/v1/batches", body)[2]
            except ServeError as e:
                if e.status not in (429, 503) or not e.retry_after:
                    raise
                time.sleep(e.retry_after)
        raise ServeError(429, None, "the queue stayed full")

    def batch(self, batch_id):
        return self.request("GET", "/v1/batches/" + batch_id)[2]

    def result(self, request_id):
        return self.request("GET", "/v1/results/" + request_id)[2]

    def events(self, batch_id):
        """Yields each answered request of the batch (answers already
        given first), until every one is answered."""
        c = self._conn()
        c.request("GET", "/v1/batches/%s/events" % batch_id,
                  headers=self._headers())
        r = c.getresponse()
        if r.status >= 400:
            doc = json.loads(r.read() or b"{}")
            c.close()
            e = doc.get("error", {})
            raise ServeError(r.status, e.get("field"), e.get("message"))
        event = None
        try:
            for line in r:
                line = line.decode().rstrip("\r\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "result":
                    yield json.loads(line[6:])
                elif line.startswith("data: ") and event == "end":
                    return
        finally:
            c.close()

    def wait(self, batch_id, poll_s=0.5):
        """Polls until every request of the batch is answered; returns the
        batch."""
        while True:
            b = self.batch(batch_id)
            if b["done"] == b["total"]:
                return b
            time.sleep(poll_s)


def main(argv):
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("url")
    p.add_argument("task")
    p.add_argument("files", nargs="+", help="the task's editable files")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--priority", type=int, default=0)
    p.add_argument("--token-file")
    a = p.parse_args(argv)
    token = os.environ.get("ARENA_SERVE_TOKEN")
    if a.token_file:
        token = open(a.token_file).readline().strip()
    c = Client(a.url, token)
    sources = {os.path.basename(f): open(f).read() for f in a.files}
    b = c.submit([{"task": a.task, "sources": sources, "quick": a.quick,
                   "priority": a.priority}])
    for answer in c.events(b["batch"]):
        print(json.dumps(answer["result"] if answer["result"] else
                         {"error": answer["error"]}, indent=1))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ServeError as e:
        print("serve_client: %s" % e, file=sys.stderr)
        sys.exit(1)
