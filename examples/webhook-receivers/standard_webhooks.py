#!/usr/bin/env python3
"""A webhook receiver in plain Python (standard library only), written from the Standard Webhooks
spec as a receiver in any language would: no SDK, nothing to install.

    WEBHOOK_SECRET=whsec_... python3 standard_webhooks.py [PORT]

It listens on 127.0.0.1:PORT (default 3000; 0 picks a free port), verifies each POST's
webhook-id, webhook-timestamp and webhook-signature with the endpoint's secret, answers 204 to a
verified delivery and 400 to anything else, and prints one JSON line per request on stdout.
WEBHOOK_SECRET may hold several secrets separated by spaces (during a rotation).
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 5 * 60


class VerificationError(Exception):
    pass


def verify(secrets, headers, body):
    """Returns the event a delivery carries, or raises VerificationError. `body` is the raw bytes."""
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise VerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    if not timestamp.isdigit():
        raise VerificationError("webhook-timestamp is not unix seconds")
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        raise VerificationError("webhook-timestamp is more than 5 minutes from now")
    signed = f"{msg_id}.{timestamp}.".encode() + body
    for secret in secrets:
        # The key is the bytes the secret spells in base64, after its whsec_ prefix.
        key = base64.b64decode(secret.removeprefix("whsec_"))
        expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        for versioned in signatures.split(" "):
            version, _, signature = versioned.partition(",")
            if version == "v1" and hmac.compare_digest(signature, expected):
                return json.loads(body)
    raise VerificationError("no signature matches")


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            event = verify(SECRETS, self.headers, body)
        except (VerificationError, ValueError) as e:
            print(json.dumps({"verified": False, "error": str(e)}), flush=True)
            self.send_response(400)
            self.end_headers()
            return
        # Act on it here, once per webhook-id: the same delivery can come again.
        print(json.dumps({"verified": True, "webhookId": self.headers["webhook-id"], "id": event["id"], "event": event["event"]}), flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    SECRETS = os.environ.get("WEBHOOK_SECRET", "").split()
    if not SECRETS:
        sys.exit("Set WEBHOOK_SECRET to the endpoint's whsec_... secret")
    server = HTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 3000), Receiver)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/", file=sys.stderr, flush=True)
    server.serve_forever()
