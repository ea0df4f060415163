"""A script's client of the HTTP API, as people write one (issue 39).

Run by Tests/XKCDServerTests/FormEncodedQueryTests.swift against a server on the fixture index:

    python3 form_encoded.py BASE_URL < cases.json

Each case of the JSON list on standard input is {"name", "method", "path", "params", "body"}.
The parameters are encoded by urllib.parse.urlencode, as Python's own client and `requests`
encode them: a space is `+`, a plus is `%2B`. Prints one JSON object: for each case, the address
sent, the status and the JSON answered (or the text, for a page).
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

# Only a guard against a hang: a busy 2-core machine is slow, never this slow.
HANG_GUARD = 120


def ask(base, case):
    address = base + case["path"]
    if case.get("params"):
        address += "?" + urllib.parse.urlencode(case["params"])
    body = case.get("body")
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(address, data=data, method=case["method"])
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=HANG_GUARD) as response:
            status, text = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read()
    answer = {"address": address[len(base):], "status": status}
    try:
        answer["json"] = json.loads(text)
    except ValueError:
        answer["text"] = text.decode()
    return answer


def main():
    base = sys.argv[1].rstrip("/")
    cases = json.load(sys.stdin)
    json.dump({case["name"]: ask(base, case) for case in cases}, sys.stdout)


if __name__ == "__main__":
    main()
