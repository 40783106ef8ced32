#!/usr/bin/env python3
"""tests/e2e/html_numbers.py - reads the numbers a page shows back from the
DOM a browser built (chromium --dump-dom) and checks each against the JSON
it was drawn from.

usage: html_numbers.py DOM JSON MIN_TAGS           (a run's or a compare page)
       html_numbers.py --index DOM STORE MIN_TAGS  (the store's index page)

Every element with data-k="POINTER" (an RFC 6901 pointer, engine/src/report/
html.h) holds a number as shown: "1.2346x" (the multiplication sign),
"66.7%", "$0.2500", "12.5 s", or a dash for null.  The shown value must
equal the JSON's value rounded to the digits shown.  On the index page a
row's data-run names the run whose summary.json its pointers address.
Prints one line per mismatch; exits 1 on any, or when fewer than MIN_TAGS
numbers were tagged.
"""
import json
import os
import re
import sys
from html.parser import HTMLParser


class Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []      # (run, pointer, text)
        self.stack = []      # open elements: (tag, pointer or None)
        self.run = None
        self.text = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr":
            self.run = a.get("data-run")
        ptr = a.get("data-k")
        self.stack.append((tag, ptr))
        if ptr is not None:
            self.text = []

    def handle_endtag(self, tag):
        while self.stack:
            t, ptr = self.stack.pop()
            if ptr is not None:
                self.found.append((self.run, ptr, "".join(self.text)))
                self.text = None
            if t == tag:
                break

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)


def resolve(doc, ptr):
    cur = doc
    for tok in ptr.split("/")[1:]:
        tok = tok.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, list):
            cur = cur[int(tok)]
        elif isinstance(cur, dict) and tok in cur:
            cur = cur[tok]
        else:
            raise KeyError(ptr)
    return cur


def check(found, doc_of, min_tags):
    bad = 0
    for run, ptr, text in found:
        shown = text.strip()
        try:
            want = resolve(doc_of(run), ptr)
        except (KeyError, IndexError, ValueError):
            print(f"{run or ''}{ptr}: shown {shown!r}, not in the JSON")
            bad += 1
            continue
        if shown in ("\u2013", "-"):
            if want is not None:
                print(f"{run or ''}{ptr}: shown as none, JSON holds {want!r}")
                bad += 1
            continue
        m = re.search(r"-?\d+(\.(\d+))?", shown)
        if not m or not isinstance(want, (int, float)) or isinstance(want, bool):
            print(f"{run or ''}{ptr}: shown {shown!r}, JSON holds {want!r}")
            bad += 1
            continue
        value = float(m.group(0))
        decimals = len(m.group(2) or "")
        expect = want * 100 if "%" in shown else want
        if abs(value - expect) > 0.5 * 10 ** -decimals + 1e-9 * abs(expect):
            print(f"{run or ''}{ptr}: shown {shown!r}, JSON holds {want!r}")
            bad += 1
    print(f"{len(found)} tagged numbers checked, {bad} mismatch(es)")
    if len(found) < min_tags:
        print(f"expected at least {min_tags} tagged numbers")
        return 1
    return 1 if bad else 0


def main(argv):
    if argv[1] == "--index":
        dom, store, min_tags = argv[2], argv[3], int(argv[4])
        cache = {}

        def doc_of(run):
            if run not in cache:
                with open(os.path.join(store, "runs", run,
                                       "summary.json")) as f:
                    cache[run] = json.load(f)
            return cache[run]
    else:
        dom, js, min_tags = argv[1], argv[2], int(argv[3])
        with open(js) as f:
            doc = json.load(f)

        def doc_of(run):
            return doc
    p = Tags()
    with open(dom, encoding="utf-8") as f:
        p.feed(f.read())
    return check(p.found, doc_of, min_tags)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
