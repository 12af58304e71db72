#!/usr/bin/env python3
"""Print an overlay file as one commit of the patch series has it.

Usage: series-file.py FILE [TAG...]

Lines between "// patch: TAG" and "// patch: end" belong to the commit of
patches/series that enables TAG (a "+TAG" among its paths): they are kept
only if TAG is given. Lines between "// patch: !TAG" and "// patch: end" are
what that commit replaces: comments in the file ("// " + code), given as code
only if TAG is not given. The fence lines themselves are always dropped, so
with every tag the output is the file as the kernel builds it, less its
fences and what they replaced.
"""
import re
import sys

FENCE = re.compile(r"^\s*// patch: (\S+)\s*$")


def strip(text, tags):
    out, block, skipped = [], None, False
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        m = FENCE.match(line)
        if m:
            tag = m.group(1)
            if tag == "end":
                if block is None:
                    sys.exit(f"{sys.argv[1]}:{n}: 'patch: end' outside a block")
                block = None
            else:
                if block is not None:
                    sys.exit(f"{sys.argv[1]}:{n}: nested 'patch: {tag}'")
                block = tag
            continue
        if block is not None and block.startswith("!"):
            if block[1:] in tags:
                skipped = True
                continue
            m = re.match(r"^(\s*)// ?(.*)$", line, re.S)
            if not m:
                sys.exit(f"{sys.argv[1]}:{n}: a line of 'patch: {block}' is not a comment")
            out.append(m.group(1) + m.group(2))
            skipped = False
        elif block is None or block in tags:
            # A dropped block leaves no blank line doubled or before a closing brace.
            if skipped and out and not out[-1].strip() and (not line.strip() or line.lstrip().startswith("}")):
                out.pop()
            out.append(line)
            skipped = False
        else:
            skipped = True
    if block is not None:
        sys.exit(f"{sys.argv[1]}: 'patch: {block}' not closed")
    while skipped and out and not out[-1].strip():
        out.pop()
    return "".join(out)


def tags_of(text):
    return sorted({m.group(1).lstrip("!") for m in map(FENCE.match, text.splitlines()) if m} - {"end"})


if __name__ == "__main__":
    if sys.argv[1] == "--tags":
        print("\n".join(t for f in sys.argv[2:] for t in tags_of(open(f).read())))
    else:
        sys.stdout.write(strip(open(sys.argv[1]).read(), set(sys.argv[2:])))
