#!/usr/bin/python3
"""Every relative link of the project's Markdown pages leads somewhere.

    doc_links.py SOURCE_DIR

The pages: README.md and every *.md under docs/, analysis/, experiments/, slurm-jobs/, bench/,
scripts/ and tests/. A link [text](target) whose target is not a URL must name a file or folder
that exists (relative to the page), and its #anchor, if any, one of the target page's headings,
spelled as GitHub spells it: lower case, punctuation other than '-' and '_' dropped, spaces made
'-', and '-1', '-2', ... added to repeated headings. Links inside code (fenced blocks and `...`)
are text, not links.

First it checks itself on hand-made pages (a good link, a missing file, a missing anchor, a
repeated heading), then the project's pages. Prints one line per broken link, exits 1 if any.
"""
import os
import re
import sys
import tempfile

DIRS = ("docs", "analysis", "experiments", "slurm-jobs", "bench", "scripts", "tests")


def slug(heading):
    h = heading.strip().lower().replace("`", "")
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def strip_code(text):
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path, cache):
    if path not in cache:
        seen, out = {}, set()
        in_code = False
        for line in open(path, encoding="utf-8"):
            if line.startswith("```"):
                in_code = not in_code
                continue
            m = None if in_code else re.match(r"^#{1,6} (.*)", line)
            if m:
                s = slug(m.group(1))
                if s in seen:
                    seen[s] += 1
                    s = "%s-%d" % (s, seen[s])
                else:
                    seen[s] = 0
                out.add(s)
        cache[path] = out
    return cache[path]


def check(pages):
    bad, cache = [], {}
    for page in pages:
        text = strip_code(open(page, encoding="utf-8").read())
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            to = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(to):
                bad.append("%s: %s: no such file" % (page, target))
            elif anchor and to.endswith(".md") and anchor not in anchors(to, cache):
                bad.append("%s: %s: no such heading in %s" % (page, target, to))
    return bad


def pages_of(src):
    pages = [os.path.join(src, "README.md")]
    for d in DIRS:
        for root, dirs, files in os.walk(os.path.join(src, d)):
            dirs[:] = sorted(x for x in dirs if not x.startswith("."))
            pages += [os.path.join(root, f) for f in sorted(files) if f.endswith(".md")]
    return [p for p in pages if os.path.isfile(p)]


def self_test():
    with tempfile.TemporaryDirectory() as t:
        a, b = os.path.join(t, "a.md"), os.path.join(t, "b.md")
        with open(b, "w", encoding="utf-8") as f:
            f.write("# Top\n## The `x.c` part (2026-12-07)\n## Same\n## Same\n```\n# not a heading\n```\n")
        with open(a, "w", encoding="utf-8") as f:
            f.write("[ok](b.md#the-xc-part-2026-12-07) [ok](b.md#same-1) [ok](#local) [url](https://x/y)\n"
                    "[gone](c.md) [anchor](b.md#nope) [code heading](b.md#not-a-heading) `[in code](d.md)`\n"
                    "# Local\n")
        bad = check([a])
        want = ["c.md: no such file", "b.md#nope: no such heading", "b.md#not-a-heading: no such heading"]
        if len(bad) != len(want) or any(w not in x for w, x in zip(want, bad)):
            sys.exit("doc_links: the self-test found %r, expected %r" % (bad, want))


def main():
    self_test()
    pages = pages_of(sys.argv[1])
    if len(pages) < 10:
        sys.exit("doc_links: found only %d pages under %s" % (len(pages), sys.argv[1]))
    bad = check(pages)
    for line in bad:
        print(line)
    print("doc_links: %d pages, %d broken links" % (len(pages), len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
