"""Checks the HTTP API against its OpenAPI document (Sources/XKCDServer/Resources/openapi.json).

    check-openapi.py document < openapi.json
        Validates the document as OpenAPI 3.1 (openapi-spec-validator); prints "ok" or the problem.
    check-openapi.py exchanges openapi.json
        Reads exchanges from standard input, one JSON object a line: {"method", "path", "query",
        "status", "headers": {name: value}, "body": base64}. For each it prints one line: "ok", or
        what of the answer the document does not allow (openapi-core). An answer to a route the
        document does not name must be a 404 or 405 with the document's Error body.

The route tests (Tests/XKCDServerTests) run it with the tests' Python (make test-venv).
"""

import base64
import json
import sys

import jsonschema
from openapi_core import OpenAPI
from openapi_core.templating.paths.exceptions import OperationNotFound, PathNotFound
from openapi_core.testing import MockRequest, MockResponse
from openapi_spec_validator import validate


def one_line(problem):
    text = str(problem)
    # openapi-core's schema errors hold the reasons beneath.
    for reason in getattr(problem, "schema_errors", None) or []:
        text += f": {reason.message} at {'/'.join(map(str, reason.absolute_path)) or 'the top'}"
    cause = problem.__cause__
    if cause is not None:
        for reason in getattr(cause, "schema_errors", None) or []:
            text += f": {reason.message} at {'/'.join(map(str, reason.absolute_path)) or 'the top'}"
        if not getattr(cause, "schema_errors", None):
            text += f": {cause}"
    return " ".join(text.split())


def check_exchange(openapi, error_schema, exchange):
    headers = exchange["headers"]
    body = base64.b64decode(exchange["body"])
    content_type = headers.get("content-type", "")
    request = MockRequest("http://127.0.0.1", exchange["method"].lower(), exchange["path"],
                          args=exchange.get("query") or {})
    response = MockResponse(body, status_code=exchange["status"], headers=headers,
                            content_type=content_type.split(";")[0])
    if exchange["method"] == "OPTIONS":
        return "ok"  # a CORS preflight, answered by the middleware for every route: not an operation
    try:
        openapi.validate_response(request, response)
    except (PathNotFound, OperationNotFound) as problem:
        if exchange["status"] not in (404, 405):
            return f"{exchange['status']} for a route the document does not name ({type(problem).__name__})"
        try:
            jsonschema.validate(json.loads(body), error_schema)
        except (ValueError, jsonschema.ValidationError) as invalid:
            return "not the document's Error: " + " ".join(str(invalid).split()[:40])
    except Exception as problem:  # every other failure of the answer, worded by openapi-core
        return one_line(problem)
    return "ok"


def main():
    if sys.argv[1:] == ["document"]:
        try:
            validate(json.load(sys.stdin))
        except Exception as problem:
            print(one_line(problem))
            return
        print("ok")
        return
    if len(sys.argv) != 3 or sys.argv[1] != "exchanges":
        sys.exit("usage: check-openapi.py document | exchanges openapi.json")
    with open(sys.argv[2]) as file:
        document = json.load(file)
    openapi = OpenAPI.from_dict(document)
    error_schema = dict(document["components"]["schemas"]["Error"])
    for line in sys.stdin:
        try:
            verdict = check_exchange(openapi, error_schema, json.loads(line))
        except Exception as problem:
            verdict = "unreadable exchange: " + one_line(problem)
        print(verdict, flush=True)


main()
