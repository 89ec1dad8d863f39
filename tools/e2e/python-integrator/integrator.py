#!/usr/bin/env python3
"""An integrator's service for the Availability Platform, in Python 3.11 with the standard library only.

Written from docs/integrator-guide.md alone, as an organisation outside the platform's code base
would: it serves the calls the platform makes (spec 4.2), verifies both signature schemes on every
signed call with its own code, de-duplicates by event (the body's `eventId`, else `webhook-id`),
answers contact suggestions from a small in-memory list, and can register itself on its
organisation's company profile.

    python3 integrator.py --port 8080 --secret 'a-long-random-secret' \\
        --directory-url http://localhost:3001 --portal-token put_... --enable-suggestions

Every option can also come from the environment (see `--help`). Stdout carries one JSON object per
line: `listening`, then `registered` or `registration-failed`, so a program can follow along.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import signal
import socket
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE_SECONDS = 300
# Larger signature headers are refused unread, so the work per request stays bounded.
MAX_SIGNATURE_HEADER = 1024
MAX_BODY_BYTES = 1024 * 1024
HMAC_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
HMAC_ENTRY = re.compile(r"^hmac ([0-9a-f]{64})$")
UNIX_SECONDS = re.compile(r"^\d{1,12}$")
# A webhook's id as the platform forms it: `<eventId>:<organisationId>`. The ids of /test/auth
# (`test-...`) and /contact-suggestions (`suggest-...`) name no event.
WEBHOOK_ID = re.compile(r"^[A-Za-z0-9-]{1,64}:[A-Za-z0-9-]{1,64}$")

# A few contacts to suggest (spec 2.7, 2.8); a real service would search its own records.
CONTACTS = [
    {
        "name": "Grace Hopper",
        "emailAddress": "grace.hopper@python-integrator.example",
        "profileImageUrl": "https://python-integrator.example/images/grace.png",
        "ratings": [{"rating": 5, "ratingProvider": "Dock 4 night shift", "lastWorked": "2026-10-01"}],
    },
    {
        "name": "Alan Turing",
        "emailAddress": "alan.turing@python-integrator.example",
        "ratings": [{"rating": 4, "ratingProvider": "Cold store", "lastWorked": "2026-09-14T06:00:00Z"}],
    },
    {
        "name": "Katherine Johnson",
        "emailAddress": "katherine.johnson@python-integrator.example",
        "ratings": [],
    },
]


# ---------------------------------------------------------------------------------------------
# Verification (docs/integrator-guide.md, "Verifying a call"). Each returns None when the request
# verifies with any of the secrets, else a short reason. Nothing here raises for what a sender controls.


def verify_hmac(secrets, method, path_with_query, raw_body, headers, now=None):
    """The `hmac` scheme: `Timestamp` and `Authorization: hmac <hex>[, hmac <hex>]`."""
    timestamps = headers.get_all("Timestamp") or []
    authorizations = headers.get_all("Authorization") or []
    if len(timestamps) != 1 or not authorizations:
        return "missing Timestamp or Authorization"
    timestamp = timestamps[0]
    # A repeated Authorization header is one list, like the comma-separated form.
    authorization = ",".join(authorizations)
    if len(authorization) > MAX_SIGNATURE_HEADER or not HMAC_TIMESTAMP.match(timestamp):
        return "malformed Timestamp or Authorization"
    try:
        signed_at = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        return "malformed Timestamp"
    if abs((time.time() if now is None else now) - signed_at) > TOLERANCE_SECONDS:
        return "Timestamp more than 5 minutes from our clock"
    given = []
    for entry in authorization.split(","):
        match = HMAC_ENTRY.match(entry.strip())
        if match:
            given.append(bytes.fromhex(match.group(1)))
    if not given:
        return "no hmac entry in Authorization"
    message = f"{timestamp}\n{method.upper()}\n{path_with_query}\n".encode("utf-8") + raw_body
    return None if any_matches(secrets, message, given) else "hmac signature mismatch"


def verify_standard_webhook(secrets, raw_body, headers, now=None):
    """Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>[ v1,<base64>]`."""
    ids = headers.get_all("webhook-id") or []
    timestamps = headers.get_all("webhook-timestamp") or []
    signatures = headers.get_all("webhook-signature") or []
    if len(ids) != 1 or len(timestamps) != 1 or not signatures:
        return "missing webhook-id, webhook-timestamp or webhook-signature"
    webhook_id, timestamp = ids[0], timestamps[0]
    signature_list = " ".join(signatures)
    if len(signature_list) > MAX_SIGNATURE_HEADER or not UNIX_SECONDS.match(timestamp):
        return "malformed webhook-timestamp or webhook-signature"
    if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE_SECONDS:
        return "webhook-timestamp more than 5 minutes from our clock"
    given = []
    for entry in signature_list.split(" "):
        if entry.startswith("v1,"):
            try:
                given.append(base64.b64decode(entry[3:], validate=True))
            except (binascii.Error, ValueError):
                continue
    if not given:
        return "no v1 entry in webhook-signature"
    message = f"{webhook_id}.{timestamp}.".encode("utf-8") + raw_body
    return None if any_matches(secrets, message, given) else "webhook-signature mismatch"


def webhook_id_problem(headers):
    """None when the request carries one webhook-id of the platform's form, else why not."""
    ids = headers.get_all("webhook-id") or []
    if not ids:
        return "a webhook must carry a webhook-id header"
    if len(ids) != 1 or not WEBHOOK_ID.match(ids[0]):
        return "webhook-id must be one <eventId>:<organisationId>"
    return None


def deduplication_key(webhook_id, raw_body):
    """What tells a repeat from a new event: the signed body's `eventId` where there is one, else the
    webhook-id (`hmac` does not sign the id, so a replay could come with a new one)."""
    try:
        event_id = json.loads(raw_body.decode("utf-8")).get("eventId") if raw_body.lstrip().startswith(b"{") else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        event_id = None
    return f"event:{event_id}" if isinstance(event_id, str) and event_id else f"webhook:{webhook_id}"


def any_matches(secrets, message, given):
    """True if any given signature is the HMAC-SHA256 of `message` with any secret; compares every pair in constant time."""
    valid = False
    for secret in secrets:
        expected = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()
        for signature in given:
            # compare_digest is constant-time for equal lengths and False otherwise.
            if hmac.compare_digest(signature, expected):
                valid = True
    return valid


# ---------------------------------------------------------------------------------------------
# What the service received, for whoever runs it (and the platform's end-to-end test).


class Received:
    """Every call, and the webhooks acted on (once per event, however often delivered; see deduplication_key)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls = []
        self.webhooks = {}

    def record(self, call):
        with self.lock:
            self.calls.append(call)

    def first_delivery(self, key, call):
        """True the first time an event's key is seen (act on it); a repeat only counts a delivery."""
        with self.lock:
            known = self.webhooks.get(key)
            if known:
                known["deliveries"] += 1
                return False
            self.webhooks[key] = {
                "webhookId": call["webhookId"],
                "method": call["method"],
                "path": call["path"],
                "body": call["body"],
                "deliveries": 1,
            }
            return True

    def snapshot(self):
        with self.lock:
            return {"calls": list(self.calls), "webhooks": list(self.webhooks.values())}


class AnswerOrder:
    """Per (offer, worker), the highest answer sequence applied: a call with a lower or equal one is stale or a repeat."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latest = {}

    def apply(self, answer):
        """True when the answer is the newest seen for its recipient (apply it); False to acknowledge and drop it."""
        key = (answer["offerId"], answer["workerId"])
        sequence = answer.get("sequence")
        with self.lock:
            held = self.latest.get(key)
            if not isinstance(sequence, int) or isinstance(sequence, bool):
                # An answer recorded before answers were numbered: newest only if none numbered is held.
                return held is None
            if held is not None and sequence <= held:
                return False
            self.latest[key] = sequence
            return True


# ---------------------------------------------------------------------------------------------
# HTTP


class Integrator(BaseHTTPRequestHandler):
    # Keep-alive, as the platform's client expects; every answer carries a Content-Length.
    protocol_version = "HTTP/1.1"
    server_version = "PythonIntegrator/1.0"
    config = None  # set by serve()
    received = None
    answers = None

    def do_GET(self):
        self.handle_call()

    def do_POST(self):
        self.handle_call()

    def do_PUT(self):
        self.handle_call()

    def do_DELETE(self):
        self.handle_call()

    def handle_call(self):
        raw_body = self.read_body()
        if raw_body is None:
            return
        base = self.config.base_path
        # The route is matched on the path without the query; the signature covers both.
        path_only = self.path.split("?", 1)[0]
        if not path_only.startswith(base + "/"):
            return self.answer(404, {"error": "not found"})
        route = path_only[len(base):]
        method = self.command

        if method == "GET" and route == "/received":
            return self.received_list()
        if method == "GET" and route == "/test":
            # Spec 5.1: no authentication, only "are you there".
            self.received.record(self.call_record("test", raw_body, None, 200))
            return self.answer(200, {"ok": True})

        known = {
            ("GET", "/test/auth"): "test-auth",
            ("POST", "/offer/response"): "offer-response",
            ("POST", "/contact-suggestions"): "contact-suggestions",
        }
        name = known.get((method, route))
        worker_id = None
        if name is None and method == "GET" and route.startswith("/contact/new/") and route.count("/") == 3:
            name, worker_id = "contact-added", urllib.parse.unquote(route[len("/contact/new/"):])
        if name is None or (worker_id is not None and worker_id == ""):
            return self.answer(404, {"error": "not found"})

        # Verify before anything else, over the raw bytes and the request target as on the request line.
        secrets = self.config.secrets
        reasons = {
            "hmac": verify_hmac(secrets, method, self.path, raw_body, self.headers),
            "standardWebhooks": verify_standard_webhook(secrets, raw_body, self.headers),
        }
        verified = {scheme: reason is None for scheme, reason in reasons.items()}
        if not all(verified.values()):
            # Spec 5.3: only a verified request gets 200; the guide's status for the rest is 401.
            self.received.record(self.call_record(name, raw_body, reasons, 401))
            return self.answer(401, {"error": "signature did not verify", "reasons": {k: v for k, v in reasons.items() if v}})

        if name == "test-auth":
            self.received.record(self.call_record(name, raw_body, reasons, 200))
            return self.answer(200, {"ok": True})
        if name == "contact-suggestions":
            return self.suggest(raw_body, reasons)
        # A webhook without the platform's webhook-id cannot be told from a replay: refused.
        problem = webhook_id_problem(self.headers)
        if problem:
            self.received.record(self.call_record(name, raw_body, reasons, 400))
            return self.answer(400, {"error": problem})
        if name == "offer-response":
            return self.offer_response(raw_body, reasons)
        return self.contact_added(worker_id, raw_body, reasons)

    def offer_response(self, raw_body, reasons):
        try:
            answer = json.loads(raw_body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            answer = None
        expected = ["eventId", "offerId", "workerId", "response", "respondedAt"]
        if not isinstance(answer, dict) or not all(isinstance(answer.get(key), str) for key in expected):
            self.received.record(self.call_record("offer-response", raw_body, reasons, 400))
            return self.answer(400, {"error": "not a Worker Offer Response"})
        call = self.call_record("offer-response", raw_body, reasons, 204)
        call["duplicate"] = not self.received.first_delivery(deduplication_key(call["webhookId"], raw_body), call)
        # Calls may arrive out of order (a retry after a newer answer): an older answer is acknowledged, not applied.
        call["stale"] = not call["duplicate"] and not self.answers.apply(answer)
        self.received.record(call)
        # A repeat (retry, redelivery, replay) gets a 2xx too, but is not acted on twice.
        self.answer(204)

    def contact_added(self, worker_id, raw_body, reasons):
        call = self.call_record("contact-added", raw_body, reasons, 204)
        call["workerId"] = worker_id
        call["duplicate"] = not self.received.first_delivery(deduplication_key(call["webhookId"], raw_body), call)
        self.received.record(call)
        self.answer(204)

    def suggest(self, raw_body, reasons):
        try:
            search = json.loads(raw_body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            search = None
        emails = search.get("userEmailAddresses") if isinstance(search, dict) else None
        search_filter = search.get("filter") if isinstance(search, dict) else None
        if not isinstance(emails, list) or not all(isinstance(e, str) for e in emails) or not isinstance(search_filter, (str, type(None))):
            self.received.record(self.call_record("contact-suggestions", raw_body, reasons, 400))
            return self.answer(400, {"error": "not a contact suggestions request (spec 2.6)"})
        needle = (search_filter or "").strip().lower()
        found = [c for c in self.config.contacts if needle in c["name"].lower() or needle in c["emailAddress"].lower()]
        self.received.record(self.call_record("contact-suggestions", raw_body, reasons, 200))
        self.answer(200, found)

    def received_list(self):
        token = self.config.received_token
        given = self.headers.get("Authorization") or ""
        if not token:
            return self.answer(404, {"error": "not found"})
        if not hmac.compare_digest(given.encode("utf-8"), f"Bearer {token}".encode("utf-8")):
            return self.answer(401, {"error": "GET /received needs Authorization: Bearer <received token>"})
        self.answer(200, self.received.snapshot())

    def call_record(self, name, raw_body, reasons, status):
        return {
            "call": name,
            "method": self.command,
            "path": self.path,
            "status": status,
            "verified": {scheme: reason is None for scheme, reason in (reasons or {"hmac": "", "standardWebhooks": ""}).items()},
            "reasons": {scheme: reason for scheme, reason in (reasons or {}).items() if reason},
            "webhookId": self.headers.get("webhook-id"),
            "body": raw_body.decode("utf-8", errors="replace"),
            "receivedAt": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }

    def read_body(self):
        """The body's bytes exactly as sent (Content-Length or chunked), or None after answering 400/413."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks, size = [], 0
            while True:
                line = self.rfile.readline(100)
                try:
                    length = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    self.answer(400, {"error": "bad chunked body"}, close=True)
                    return None
                if length == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                size += length
                if size > MAX_BODY_BYTES:
                    self.answer(413, {"error": "body too large"}, close=True)
                    return None
                chunks.append(self.rfile.read(length))
                self.rfile.readline(3)
        length_header = self.headers.get("Content-Length") or "0"
        if not length_header.isdigit():
            self.answer(400, {"error": "bad Content-Length"}, close=True)
            return None
        length = int(length_header)
        if length > MAX_BODY_BYTES:
            self.answer(413, {"error": "body too large"}, close=True)
            return None
        return self.rfile.read(length) if length else b""

    def answer(self, status, payload=None, close=False):
        body = b"" if payload is None else json.dumps(payload).encode("utf-8")
        self.send_response(status)
        if payload is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if body:
            self.wfile.write(body)

    def log_message(self, format, *args):
        if self.config.verbose:
            sys.stderr.write("%s %s\n" % (self.address_string(), format % args))


class IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def serve(config):
    """Listens on the loopback addresses `localhost` may resolve to (127.0.0.1 and, where there is one, ::1)."""
    Integrator.config = config
    Integrator.received = Received()
    Integrator.answers = AnswerOrder()
    servers = []
    port = config.port
    addresses = [config.host]
    if config.host == "127.0.0.1" and socket.has_ipv6:
        addresses.append("::1")
    for host in addresses:
        server_class = IPv6Server if ":" in host else ThreadingHTTPServer
        try:
            server = server_class((host, port), Integrator)
        except OSError:
            if servers:
                continue  # no IPv6 loopback here
            raise
        server.daemon_threads = True
        port = server.server_address[1]  # port 0: the second address takes the port the first got
        servers.append(server)
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    return servers, port


# ---------------------------------------------------------------------------------------------
# Registering on the company profile (docs/integrator-guide.md, "Registering your service").


def portal_call(config, method, path, payload):
    """One call to contact-directory's portal API as the organisation's admin; (status, parsed body)."""
    request = urllib.request.Request(
        config.directory_url.rstrip("/") + path,
        method=method,
        data=json.dumps(payload).encode("utf-8"),
        headers={"Authorization": f"Bearer {config.portal_token}", "Content-Type": "application/json", "Accept": "application/json"},
    )
    context = ssl.create_default_context(cafile=config.ca_file) if config.directory_url.startswith("https:") else None
    try:
        # The platform calls /test and /test/auth (5 s each) before answering.
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            status, text = response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode("utf-8", errors="replace")
    try:
        return status, json.loads(text) if text else None
    except json.JSONDecodeError:
        return status, text


def register(config):
    """Saves our base URL and secret; the platform checks them by calling us before saving. True when saved."""
    try:
        status, body = portal_call(config, "PUT", "/portal/company-profile/webhook", {"baseUrl": config.public_url, "secret": config.secrets[0]})
        if status != 200:
            emit("registration-failed", status=status, body=body)
            return False
        profile = body
        if config.enable_suggestions:
            status, body = portal_call(config, "PUT", "/portal/company-profile/suggestions", {"enabled": True})
            if status != 200:
                emit("registration-failed", status=status, body=body, step="suggestions")
                return False
            profile = body
        emit("registered", status=200, profile=profile)
        return True
    except (urllib.error.URLError, OSError) as error:
        emit("registration-failed", error=str(error))
        return False


def emit(event, **fields):
    print(json.dumps({"event": event, **fields}), flush=True)


# ---------------------------------------------------------------------------------------------


def parse_args(argv):
    env = os.environ
    parser = argparse.ArgumentParser(description="An Availability Platform integrator, Python standard library only.")
    parser.add_argument("--port", type=int, default=int(env.get("PORT", "8080")), help="port to listen on, 0 for any (PORT; 8080)")
    parser.add_argument("--host", default=env.get("INTEGRATOR_HOST", "127.0.0.1"), help="address to listen on (INTEGRATOR_HOST; 127.0.0.1, plus ::1 when there is one)")
    parser.add_argument("--base-path", default=env.get("INTEGRATOR_BASE_PATH", ""), help="path of the base URL, e.g. /hooks/v1 (INTEGRATOR_BASE_PATH)")
    parser.add_argument("--public-url", default=env.get("INTEGRATOR_PUBLIC_URL"), help="base URL the platform calls (INTEGRATOR_PUBLIC_URL; http://localhost:<port><base path>)")
    parser.add_argument("--secret", default=env.get("INTEGRATOR_SECRET"), help="shared secret; 'new,old' while rotating (INTEGRATOR_SECRET)")
    parser.add_argument("--directory-url", default=env.get("DIRECTORY_URL"), help="contact-directory's URL, to register (DIRECTORY_URL)")
    parser.add_argument("--portal-token", default=env.get("PORTAL_TOKEN"), help="an admin's portal token, to register (PORTAL_TOKEN)")
    parser.add_argument("--enable-suggestions", action="store_true", default=env.get("INTEGRATOR_SUGGESTIONS") == "true", help="switch contact suggestions on after registering (INTEGRATOR_SUGGESTIONS=true)")
    parser.add_argument("--received-token", default=env.get("RECEIVED_TOKEN"), help="serves GET <base path>/received to this bearer token (RECEIVED_TOKEN)")
    parser.add_argument("--contacts-file", default=env.get("INTEGRATOR_CONTACTS_FILE"), help="JSON array of contacts to suggest (spec 2.7)")
    parser.add_argument("--ca-file", default=env.get("DIRECTORY_CA_FILE"), help="CA bundle for an https directory URL")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    config = parser.parse_args(argv)
    secrets = [s.strip() for s in (config.secret or "").split(",") if s.strip()]
    if not secrets or any(not re.match(r"^[\x21-\x7e]{16,256}$", s) for s in secrets):
        parser.error("--secret (or INTEGRATOR_SECRET) must be 16-256 visible ASCII characters; two comma-separated while rotating")
    config.secrets = secrets
    config.base_path = "/" + config.base_path.strip("/") if config.base_path.strip("/") else ""
    if bool(config.directory_url) != bool(config.portal_token):
        parser.error("registering needs both --directory-url and --portal-token")
    config.contacts = CONTACTS
    if config.contacts_file:
        with open(config.contacts_file, encoding="utf-8") as file:
            config.contacts = json.load(file)
    return config


def main(argv=None):
    config = parse_args(sys.argv[1:] if argv is None else argv)
    servers, port = serve(config)
    # By host name, as a real integrator registers: the platform resolves it and checks the address.
    config.public_url = (config.public_url or f"http://localhost:{port}{config.base_path}").rstrip("/")
    emit("listening", port=port, baseUrl=config.public_url)
    if config.directory_url:
        register(config)

    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    while not stopped.wait(1):
        pass
    for server in servers:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    main()
