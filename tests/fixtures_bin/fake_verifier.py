#!/usr/bin/env python3
"""A stand-in model for ``audit --deep``: it really reads the verify task it is given.

From the prompt on stdin it takes the claims (the JSON between ``=== BEGIN CLAIMS ===``
and ``=== END CLAIMS ===``) and each file's source section (``=== BEGIN <file> ===`` ...
``=== END <file> ===``). A claim whose backticked code occurs in its file's section is
"supported" (its quote is that source line), one whose file's section lacks it is "refuted",
one whose file is not shown is "unclear". So the verdicts depend on what the prompt carried.

It answers the way chat models do, with prose around a fenced JSON array. FAKE_VERIFIER_MODE:
  judge    (default) as above
  draft    a first array judging everything "unclear", then "on reflection" the real one
  partial  leave the last claim out
  edn      EDN-ish verdicts (":refuted") and string ids, plus two malformed entries
  lines    one JSON object per line, no array
FAKE_VERIFIER_PROMPT: a file to write the prompt to.
Only the standard library.
"""

import json
import os
import re
import sys


def sections(prompt):
    found = {}
    for match in re.finditer(r"^=== BEGIN (.+?) ===\n(.*?)^=== END \1 ===$", prompt, re.M | re.S):
        found[match[1]] = match[2]
    return found


def judge(claim, shown):
    code = re.findall(r"`([^`]+)`", claim.get("cited_evidence") or "")
    source = shown.get(claim.get("file"))
    if source is None or not code:
        return {"id": claim["id"], "verdict": "unclear", "why": "no source shown", "quote": None}
    for line in source.splitlines():
        text = re.sub(r"^\s*\d+  ", "", line)  # the prompt numbers its lines
        if code[0].strip() in text:
            return {"id": claim["id"], "verdict": "supported", "why": "the line is there",
                    "quote": text.strip()}
    return {"id": claim["id"], "verdict": "refuted", "why": f"no {code[0]!r} in the source",
            "quote": None}


def main():
    prompt = sys.stdin.read()
    if os.environ.get("FAKE_VERIFIER_PROMPT"):
        with open(os.environ["FAKE_VERIFIER_PROMPT"], "w", encoding="utf-8") as handle:
            handle.write(prompt)
    shown = sections(prompt)
    claims = json.loads(shown.pop("CLAIMS"))
    verdicts = [judge(claim, shown) for claim in claims]
    mode = os.environ.get("FAKE_VERIFIER_MODE", "judge")
    if mode == "partial":
        verdicts = verdicts[:-1]
    if mode == "edn":
        verdicts = [{**v, "id": str(v["id"]), "verdict": ":" + v["verdict"]} for v in verdicts]
        verdicts += [{"id": 0}, {"verdict": "supported"}]
    if mode == "lines":
        print("\n".join(json.dumps(v) for v in verdicts))
        return 0
    print("I read each claim against the source and tried to refute it.\n")
    if mode == "draft":
        draft = [{"id": v["id"], "verdict": "unclear"} for v in verdicts]
        print("First pass:\n" + json.dumps(draft) + "\n\nOn reflection, the final answer:")
    print("```json\n" + json.dumps(verdicts, indent=2) + "\n```")
    print("\nClaims marked refuted cite code [that is] not in the file.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
