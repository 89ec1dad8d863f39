"""Checks this integrator's signature verification against requests the platform's own library signed.

Reads request blocks from standard input (`name`, `now <ms>`, `secret <s>`, `key <kid> <x>`, `method`,
`target`, `header <name>: <value>`, `body <base64>`, then `end`) and prints
`<name> hmac=<ok|fail> v1=<ok|fail> v1a=n/a` for each: `v1a` (ed25519) needs a library outside Python's
standard library, so this integrator does not verify it. Run by the platform's test suite
(tools/e2e/test/verification-recipes.spec.ts); the functions are the ones integrator.py serves with.
"""

import base64
import sys
from email.message import Message

from integrator import verify_hmac, verify_standard_webhook


def main():
    block = {"secrets": [], "headers": Message(), "body": b"", "now": 0, "method": "", "target": "", "name": ""}
    for line in sys.stdin.read().splitlines():
        word, _, rest = line.partition(" ")
        if word == "name":
            block["name"] = rest
        elif word == "now":
            block["now"] = int(rest) / 1000
        elif word == "secret":
            block["secrets"].append(rest)
        elif word in ("key",):
            continue
        elif word == "method":
            block["method"] = rest
        elif word == "target":
            block["target"] = rest
        elif word == "header":
            name, _, value = rest.partition(": ")
            block["headers"][name] = value  # Message keeps every value of a repeated header
        elif word == "body":
            block["body"] = base64.b64decode(rest)
        elif word == "end":
            hmac_problem = verify_hmac(block["secrets"], block["method"], block["target"], block["body"], block["headers"], now=block["now"])
            v1_problem = verify_standard_webhook(block["secrets"], block["body"], block["headers"], now=block["now"])
            print(f'{block["name"]} hmac={"fail" if hmac_problem else "ok"} v1={"fail" if v1_problem else "ok"} v1a=n/a')
            block = {"secrets": [], "headers": Message(), "body": b"", "now": 0, "method": "", "target": "", "name": ""}
        else:
            raise SystemExit(f"unknown line: {word}")


if __name__ == "__main__":
    main()
