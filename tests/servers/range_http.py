#!/usr/bin/env python3
"""A small HTTP server for the remote tests: serves the files below ROOT, honours single
`Range: bytes=A-B` requests (206 + Content-Range), and logs every request.

usage: range_http.py ROOT [--no-range] [--no-etag] [--tls CERT KEY]

Prints `PORT <n>` on its first line (it binds 127.0.0.1, port 0). Directories answer 404 (as
S3 prefixes do). Every reply of a file carries a strong ETag (its inode, size and modification
time: a file replaced, even by one of the same size, gets another) and a request whose
`If-Match` names none of the file's ETags answers 412 Precondition Failed; `--no-etag`: no
ETags, `If-Match` ignored (as plain servers). Special paths:

  GET  /__log      the requests so far, one JSON object per line (method, path, range,
                   status, bytes sent)
  POST /__reset    forget the log
  POST /__control  a JSON object changing the behaviour of the next requests:
                   {"fail": N}       the next N requests answer 503
                   {"delay": S}      every request waits S seconds first
                   {"truncate": N}   the next N replies send half of their body, then close
                   {"status": [N, C]} the next N requests answer status C (403, 404, ...)
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.abspath(sys.argv[1])
NO_RANGE = "--no-range" in sys.argv
NO_ETAG = "--no-etag" in sys.argv
LOCK = threading.Lock()
LOG = []
STATE = {"fail": 0, "delay": 0.0, "truncate": 0, "status": [0, 0]}


def take(name):
    with LOCK:
        if STATE[name] > 0:
            STATE[name] -= 1
            return True
    return False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, status, nbytes):
        with LOCK:
            LOG.append({"method": self.command, "path": self.path,
                        "range": self.headers.get("Range"), "status": status,
                        "if_match": self.headers.get("If-Match"),
                        "bytes": nbytes})

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n) if n else b""
        if self.path == "/__reset":
            with LOCK:
                LOG.clear()
            return self.reply(200)
        if self.path == "/__control":
            ctl = json.loads(data or b"{}")
            with LOCK:
                for k, v in ctl.items():
                    STATE[k] = v
            return self.reply(200)
        self.reply(405)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        if self.path == "/__log":
            with LOCK:
                body = "".join(json.dumps(e) + "\n" for e in LOG).encode()
            return self.reply(200, body)
        delay = STATE["delay"]
        if delay:
            time.sleep(delay)
        if take("fail"):
            self.record(503, 0)
            return self.reply(503, b"try again")
        with LOCK:
            n, code = STATE["status"]
            if n > 0:
                STATE["status"] = [n - 1, code]
        if n > 0:
            self.record(code, 0)
            return self.reply(code, b"refused")
        path = os.path.join(ROOT, self.path.split("?", 1)[0].lstrip("/"))
        path = os.path.abspath(path)
        if not path.startswith(ROOT) or not os.path.isfile(path):
            self.record(404, 0)
            return self.reply(404, b"not found")
        try:
            f = open(path, "rb")
        except OSError:
            self.record(404, 0)
            return self.reply(404, b"not found")
        with f:
            return self.send_file(f)

    def send_file(self, f):
        st = os.fstat(f.fileno())
        size = st.st_size
        etag = '"%x-%x-%x"' % (st.st_ino, size, st.st_mtime_ns)
        headers = [] if NO_ETAG else [("ETag", etag)]
        cond = self.headers.get("If-Match")
        if cond and not NO_ETAG:
            tags = [t.strip() for t in cond.split(",")]
            if "*" not in tags and etag not in tags:
                self.record(412, 0)
                return self.reply(412, b"precondition failed", headers)
        rng = self.headers.get("Range")
        status, (a, b) = 200, (0, size - 1)
        if rng and not NO_RANGE and rng.startswith("bytes="):
            a, _, b = rng[6:].partition("-")
            a = int(a)
            b = min(int(b) if b else size - 1, size - 1)
            if a >= size:
                self.record(416, 0)
                return self.reply(416, b"", [("Content-Range", "bytes */%d" % size)])
            status = 206
            headers.append(("Content-Range", "bytes %d-%d/%d" % (a, b, size)))
        f.seek(a)
        body = f.read(b - a + 1)
        if take("truncate"):
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.record(status, len(body) // 2)
            self.close_connection = True
            return
        self.record(status, len(body) if self.command == "GET" else 0)
        self.reply(status, body, headers)


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    if "--tls" in sys.argv:
        import ssl
        i = sys.argv.index("--tls")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[i + 1], sys.argv[i + 2])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print("PORT %d" % srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
