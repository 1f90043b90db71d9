#!/usr/bin/env python3
"""An independent count of a manual's page-to-page links, against a wga crawl of it.

Reads every HTML file under ROOT with Python's html.parser (not wga's code), takes the href of
every <a> and <area> (and the first <base href>), resolves it against the page's URL as served
at ORIGIN, drops the fragment, keeps targets that are pages of the crawl (fetched with a 2xx
answer), drops self-links, and compares that set of (source, target) pairs with the anchor and
area links the store holds between the same pages.

    python3 bench/manual-links.py ROOT ORIGIN STORE.sqlite

Prints the counts and up to 10 pairs missing on either side; exits 1 if the store lacks any.
"""
import sqlite3
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin


class Hrefs(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.base = None
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "base" and self.base is None and attrs.get("href"):
            self.base = attrs["href"]
        elif tag in ("a", "area") and attrs.get("href") is not None:
            self.hrefs.append(attrs["href"])


def main():
    root, origin, store = Path(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3]
    db = sqlite3.connect(store)
    pages = {url for (url,) in db.execute("SELECT url FROM pages WHERE status >= 200 AND status < 300")}
    expected = set()
    for path in root.rglob("*.htm*"):
        url = origin + "/" + path.relative_to(root).as_posix()
        if url not in pages:
            continue
        parser = Hrefs()
        parser.feed(path.read_bytes().decode("utf-8", errors="replace"))
        base = urljoin(url, parser.base.strip()) if parser.base else url
        for href in parser.hrefs:
            target = urldefrag(urljoin(base, href.strip()))[0]
            if target in pages and target != url:
                expected.add((url, target))
    stored = set(
        db.execute(
            "SELECT s.url, t.url FROM links l JOIN pages s ON s.id = l.source JOIN pages t ON t.id = l.target "
            "WHERE l.kind IN (0, 3) AND s.status >= 200 AND s.status < 300 AND t.status >= 200 AND t.status < 300"
        )
    )
    missing = sorted(expected - stored)
    extra = sorted(stored - expected)
    print(f"{store}: {len(pages)} pages; html.parser finds {len(expected)} page-to-page links, the store holds {len(stored)}; missing {len(missing)}, extra {len(extra)}")
    for pair in missing[:10]:
        print("  missing", *pair)
    for pair in extra[:10]:
        print("  extra  ", *pair)
    sys.exit(1 if missing else 0)


main()
