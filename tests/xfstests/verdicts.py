#!/usr/bin/env python3
# verdicts.py RESULT.XML: one line per test of an fstests xunit report,
# "TEST VERDICT SECONDS REASON" (VERDICT: pass, notrun or fail). fstests
# rewrites the report before every test, so an interrupted run keeps the
# verdicts of the tests that finished.
import re
import sys
import xml.etree.ElementTree as ET

try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    sys.exit(0)
for case in root.iter("testcase"):
    verdict, reason = "pass", ""
    skipped, failure = case.find("skipped"), case.find("failure")
    if skipped is not None:
        verdict, reason = "notrun", skipped.get("message", "")
    elif failure is not None:
        verdict, reason = "fail", failure.get("message", "")
    reason = re.sub(r"\s+", " ", reason).strip()
    print(case.get("name"), verdict, case.get("time", "0"), reason)
