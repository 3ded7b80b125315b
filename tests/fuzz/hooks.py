"""Schemathesis hooks for the fuzzing run (tests/fuzz/run).

Every write gets a fresh Idempotency-Key, as a real client sends one per
request: keys generated from the schema repeat ("0", "00", ...), and a
repeated key with other parameters is rightly refused as reused.
"""

import uuid

import schemathesis


@schemathesis.hook
def map_headers(ctx, headers):
    if ctx.operation.method.upper() in ("POST", "PUT", "PATCH"):
        headers = dict(headers or {})
        for name in [name for name in headers if name.lower() == "idempotency-key"]:
            del headers[name]
        headers["Idempotency-Key"] = str(uuid.uuid4())
    return headers
