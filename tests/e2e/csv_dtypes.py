#!/usr/bin/env python3
"""tests/e2e/csv_dtypes.py - summary.csv against its documented types.

usage: csv_dtypes.py DOCS_RESULTS_MD SUMMARY_CSV SUMMARY_JSON [--finished]

Reads the column table of docs/results.md ("## summary.csv": | column |
type | meaning |) and checks that:
  - the CSV's header is exactly the documented columns, in order;
  - every cell of every row is empty or a value of its column's type
    (string; float: a decimal; int: an integer; bool: true or false) -
    with Python's csv module, always;
  - with pandas (when it imports): read with the documented dtypes
    (string, float64, Int64 / int64 for Attempt, boolean), every column
    has exactly that dtype, and the numbers equal summary.json's; with
    --finished (no pending row) pandas' own inference, without dtype=,
    gives bool for Compiled/Correct and int64 for the counts.
Prints what it checked; exits 1 on the first violation.
"""
import csv
import json
import re
import sys

PANDAS = {"string": "string", "float": "float64", "int": "Int64",
          "bool": "boolean"}
PATTERN = {"float": r"-?\d+(\.\d+)?", "int": r"-?\d+", "bool": r"true|false"}


def documented(md):
    text = open(md, encoding="utf-8").read()
    sec = text[text.index("## summary.csv"):text.index("## summary.json")]
    cols = []
    for line in sec.splitlines():
        m = re.match(r"\| `([^`]+)` \| (string|float|int|bool) \|", line)
        if m:
            cols.append((m.group(1), m.group(2)))
    if not cols:
        sys.exit("no column table in docs/results.md's summary.csv section")
    return cols


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main(argv):
    md, path, js = argv[1], argv[2], argv[3]
    finished = "--finished" in argv
    cols = documented(md)
    names = [c for c, _ in cols]
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if rows[0] != names:
        fail(f"header {rows[0]} is not the documented columns {names}")
    cells = 0
    for i, row in enumerate(rows[1:], 1):
        if len(row) != len(cols):
            fail(f"row {i} has {len(row)} cells, not {len(cols)}")
        for (name, typ), v in zip(cols, row):
            if v == "" or typ == "string":
                continue
            if not re.fullmatch(PATTERN[typ], v):
                fail(f"row {i}, {name}: {v!r} is not a {typ}")
            cells += 1
    print(f"csv: {len(rows) - 1} rows, {cells} typed cells, every one of "
          f"its documented type")
    try:
        import pandas as pd
    except ImportError:
        print("pandas is not installed: checked with the csv module only")
        return 0
    dtypes = {n: PANDAS[t] for n, t in cols}
    dtypes["Attempt"] = "int64"        # never empty
    df = pd.read_csv(path, dtype=dtypes, keep_default_na=False,
                     na_values=[""])
    for n, want in dtypes.items():
        if str(df[n].dtype) != want:
            fail(f"pandas reads {n} as {df[n].dtype}, documented {want}")
    doc = json.load(open(js))
    for i, t in enumerate(doc["tasks"]):
        r = df.iloc[i]
        if r["Task Name"] != t["task"] or int(r["Attempt"]) != t["attempt"]:
            fail(f"row {i} is {r['Task Name']}#{r['Attempt']}, "
                 f"summary.json says {t['task']}#{t['attempt']}")
        for col, key in (("Score", "score"), ("Reward", "reward"),
                         ("Speedup", "speedup")):
            a, b = r[col], t[key]
            if (b is None) != bool(pd.isna(a)):
                fail(f"row {i} {col}: {a} vs summary.json {b}")
            if b is not None and abs(a - b) > 5e-5:
                fail(f"row {i} {col}: {a} vs summary.json {b}")
        for col, key in (("Compiled", "compiled"), ("Correct", "correct")):
            a, b = r[col], t[key]
            if (b is None) != bool(pd.isna(a)) or (b is not None and
                                                   bool(a) != b):
                fail(f"row {i} {col}: {a} vs summary.json {b}")
        c = t["costs"]
        if c is not None:
            if int(r["Turns"]) != c["turns"]:
                fail(f"row {i} Turns: {r['Turns']} vs {c['turns']}")
            if (c["cost_usd"] is None) != bool(pd.isna(r["Cost USD"])):
                fail(f"row {i} Cost USD: {r['Cost USD']} vs {c['cost_usd']}")
    print(f"pandas {pd.__version__}: the documented dtypes hold for "
          f"{len(df)} rows and match summary.json")
    if finished:
        plain = pd.read_csv(path, keep_default_na=False, na_values=[""])
        for n in ("Compiled", "Correct"):
            if str(plain[n].dtype) != "bool":
                fail(f"default read: {n} is {plain[n].dtype}, not bool")
        for n in ("Pairs", "Attempt", "Turns", "Input Tokens",
                  "Output Tokens"):
            if str(plain[n].dtype) != "int64":
                fail(f"default read: {n} is {plain[n].dtype}, not int64")
        print("pandas without dtype=: bool and int64 where nothing is "
              "missing")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
