#!/usr/bin/env python3
"""Renders an HTML report in headless Chromium (tools/cdp.py) to a PNG: the
README's picture of a real run (make report-picture TRACE=DIR).

usage: python3 tools/html-screenshot.py REPORT.html OUT.png [WIDTH [MAX_HEIGHT]]
Fails (exit 1) when the page logged an error or asked for anything but
itself: the picture is of the page as a user sees it, offline."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402


def main(argv):
    if len(argv) not in (3, 4, 5):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    html, png = argv[1], argv[2]
    width = int(argv[3]) if len(argv) > 3 else 1000
    max_height = int(argv[4]) if len(argv) > 4 else 4000
    browser = cdp.Browser()
    try:
        page = cdp.Page(browser)
        url = page.load(html)
        problems = page.problems()
        others = [u for u in page.requests() if u != url]
        if problems or others:
            print("html-screenshot: %s: %s" % (html, problems + others), file=sys.stderr)
            return 1
        height = page.screenshot(png, width, max_height)
    finally:
        browser.close()
    print("html-screenshot: %s (%d px wide, page %d px tall, cut at %d)" % (png, width, height, max_height))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
