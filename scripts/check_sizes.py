#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the sizes that keep rsim readable (docs/architecture.md, "Sizes"): no file in src/ or
shaders/ over 400 lines, no function there over 120 lines (tests and generated code aside).

Prints every file and function over its limit and exits 1 if there is one that is not in
KNOWN below with at most the size written there: those are the ones a restructuring still has
to split, and none may grow. CI runs it as a test ("sizes of files and functions").

  scripts/check_sizes.py [--root DIR] [--all]   --all: also list the known ones
"""
import argparse
import os
import re
import sys

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 120

# Over a limit today, to be split (issue 58); each may not grow past the size given.
KNOWN = {
}

CONTROL = {"if", "for", "while", "switch", "catch", "do", "else", "return", "sizeof", "alignof", "decltype",
           "static_assert", "requires", "noexcept"}
NOT_FUNCTIONS = re.compile(r"\b(class|struct|union|enum|namespace)\b[^()]*$")
QUALIFIERS = re.compile(r"\)\s*((const|noexcept|override|final|mutable|&|&&|volatile)\s*)*(->\s*[\w:<>,\s*&]+)?\s*$")


def strip(text):
    """`text` with comments, strings and character literals blanked, line ends kept."""
    out, k, n = [], 0, len(text)
    while k < n:
        c = text[k]
        if text.startswith("//", k):
            while k < n and text[k] != "\n":
                k += 1
        elif text.startswith("/*", k):
            end = text.find("*/", k + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", k, end))
            k = end
        elif c == 'R' and text.startswith('R"', k):
            delim_end = text.find("(", k + 2)
            delim = text[k + 2:delim_end]
            end = text.find(")" + delim + '"', delim_end)
            end = n if end < 0 else end + len(delim) + 2
            out.append('""' + "\n" * text.count("\n", k, end))
            k = end
        elif c == "'" and k > 0 and text[k - 1].isalnum():  # a digit separator: 1'000'000
            out.append(c)
            k += 1
        elif c in "\"'":
            j = k + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            k = j + 1
        else:
            out.append(c)
            k += 1
    return "".join(out)


def functions(text):
    """(name, first line, line count) of every function body in `text` (comments stripped)."""
    found, stack = [], []  # stack: (kind, start line, name) per open brace
    head_start = 0  # where the text before the next brace began (after ; { or })
    line = 1
    for k, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            head = text[head_start:k].strip()
            kind, name = "block", ""
            in_function = any(s[0] == "function" for s in stack)
            if not in_function and QUALIFIERS.search(head) and not NOT_FUNCTIONS.search(head) and "=" not in head.split("(")[0]:
                words = re.findall(r"[~\w:]+(?=\s*\()", head)
                callee = words[-1].split("::")[-1] if words else ""
                if words and callee not in CONTROL and not re.search(r"\]\s*(\([^)]*\))?\s*(mutable)?\s*$", head):
                    kind, name = "function", words[0] if words[0] not in CONTROL else callee
                    name = re.findall(r"([~\w:]+)\s*\(", head)[0]
            stack.append((kind, line - head.count("\n") if kind == "function" else line, name))
            head_start = k + 1
        elif c == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    found.append((name, start, line - start + 1))
            head_start = k + 1
        elif c == ";":
            head_start = k + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    over, known, checked = [], [], 0
    for top in ("src", "shaders"):
        for folder, _, names in os.walk(os.path.join(args.root, top)):
            for name in sorted(names):
                if not name.endswith((".h", ".cpp", ".glsl", ".comp", ".rgen", ".rchit", ".rmiss", ".rahit")):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, args.root)
                text = open(path, encoding="utf-8", errors="replace").read()
                checked += 1
                lines = text.count("\n") + (0 if text.endswith("\n") else 1)
                items = [(rel, lines, MAX_FILE_LINES)]
                items += [(f"{rel}: {f}() at line {start}", count, MAX_FUNCTION_LINES)
                          for f, start, count in functions(strip(text))]
                for what, size, limit in items:
                    if size <= limit:
                        continue
                    key = what.split(" at line ")[0]
                    allowed = KNOWN.get(key)
                    if allowed is not None and size <= allowed:
                        known.append(f"{what}: {size} lines (known, at most {allowed})")
                    else:
                        over.append(f"{what}: {size} lines, over {limit}" +
                                    (f" and over the {allowed} it had" if allowed else ""))
    for o in over:
        print("check_sizes:", o)
    if args.all:
        for k in known:
            print("check_sizes:", k)
    print(f"check_sizes: {checked} files checked, {len(over)} over their limits, {len(known)} known")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
