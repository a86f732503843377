#!/usr/bin/python3
# tests/tools/check_html.py — checks an rtk --html report against the JSON of the same run: every chart the
# data calls for is there with one mark per datum, each verdict and the decision say what the JSON says.
#
#   check_html.py static REPORT.html              the file: no script, no external URL, charts sized by viewBox
#   check_html.py dom PAGE.html RESULT.json       the page (a browser's --dump-dom, or the file): charts and words
#   check_html.py overflow WRAPPER-DOM.html       each report fits the width of its frame
#   check_html.py text WRAPPER-DOM.html           no text drawn smaller than 11 px, in a chart or out of one
#   check_html.py labels WRAPPER-DOM.html         no chart's words overlap, cross its threshold line or leave it
#
# A WRAPPER-DOM is a browser's --dump-dom of the test-only page html_report.sh makes: reports in frames of given
# widths, and what the browser measured in each written into it by its script (<pre class="measured">, JSON).
#
# Exit 0 when it holds, 1 with one line per problem otherwise.
import html.parser
import json
import re
import sys


class Page(html.parser.HTMLParser):
    """Figures with their marks and captions, verdicts by section, the decision text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.figures = []      # [name, {mark kind: count}, caption]
        self.verdicts = {}     # applet -> data-status of its section's verdict
        self.decision = None
        self.stack = []        # open elements: (tag, attrs)
        self.applet = None
        self.capture = None    # "caption" or "decision" while inside one

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag not in ("circle", "rect", "path", "line", "polyline", "br", "meta", "img", "input"):
            self.stack.append(tag)
        if tag == "section" and "data-applet" in a:
            self.applet = a["data-applet"]
        if tag == "figure" and "chart" in classes:
            self.figures.append([a.get("data-chart"), {}, ""])
        if "mark" in classes and self.figures:
            for kind in classes:
                if kind != "mark":
                    self.figures[-1][1][kind] = self.figures[-1][1].get(kind, 0) + 1
        if tag == "div" and "verdict" in classes and self.applet:
            self.verdicts[self.applet] = a.get("data-status")
        if tag == "figcaption":
            self.capture = "caption"
        if tag == "span" and "decision-text" in classes:
            self.capture = "decision"
            self.decision = ""

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in ("figcaption", "span"):
            self.capture = None
        if tag == "section":
            self.applet = None
        if self.stack and tag == self.stack[-1]:
            self.stack.pop()

    def handle_data(self, data):
        if self.capture == "caption" and self.figures:
            self.figures[-1][2] += data
        elif self.capture == "decision":
            self.decision += data


def shares(items):
    """Marks of a share chart: a bar per share with a value, an error bar per one with an interval too."""
    bars = [i for i in items if i.get("rate", i.get("share")) is not None]
    errs = [i for i in bars if i.get("ci") and None not in i["ci"]]
    return {"bar": len(bars), "errorbar": len(errs)}


def expected_charts(result):
    """chart name -> {mark kind: count}, from one applet's result."""
    schema = result["schema"]
    if schema == "rtk.calibrate.v1":
        bins = [b for b in result["overall"]["calibration"]["reliability_table"] if not b["empty"] and b["accuracy"] is not None]
        return {
            "p1-reliability": {"bar": len(bins),
                               "errorbar": sum(1 for b in bins if None not in b["accuracy_ci"]),
                               "point": sum(1 for b in bins if b["mean_confidence"] is not None)},
            "p1-roc": {"line": 1 if result["overall"]["all"]["auc"] is not None else 0},
        }
    if schema == "rtk.git-history.v1":
        b = result["buckets"]
        return {"p2-buckets": shares([b["ci_bucket"], b["review_bucket"], b["reflection_bucket"]])}
    if schema == "rtk.board-history.v1":
        return {"p3-rates": shares([result["base_rate"], result["negative_rate"]]),
                "p3-sources": shares(result["by_source"])}
    raise SystemExit("check_html.py: no charts known for " + schema)


def check_dom(page_file, json_file):
    with open(json_file) as f:
        result = json.load(f)
    page = Page()
    with open(page_file, encoding="utf-8") as f:
        page.feed(f.read())
    problems = []
    applets = [result]
    if result["schema"] == "rtk.phase0.v1":
        applets = [x["result"] for x in result["experiments"].values() if "result" in x]
        want = result["decision"]["text"]
        if page.decision is None:
            problems.append("no decision text in the page")
        elif page.decision.strip() != want:
            problems.append("decision text %r, the JSON says %r" % (page.decision.strip(), want))
    expected = {}
    for r in applets:
        expected.update(expected_charts(r))
        applet = r["schema"][len("rtk."):-len(".v1")]
        if page.verdicts.get(applet) != r["verdict"]["status"]:
            problems.append("%s: verdict %s in the page, %s in the JSON" % (applet, page.verdicts.get(applet), r["verdict"]["status"]))
    found = {}
    for name, marks, caption in page.figures:
        if name in found:
            problems.append("chart %s appears twice" % name)
        found[name] = marks
        if not caption.strip():
            problems.append("chart %s has no caption" % name)
    for name, marks in expected.items():
        if name not in found:
            problems.append("chart %s is missing" % name)
            continue
        got = {k: v for k, v in found[name].items() if k in marks or v}
        want = {k: v for k, v in marks.items() if v}
        if {k: v for k, v in got.items() if v} != want:
            problems.append("chart %s: marks %s, the JSON calls for %s" % (name, got, want))
    for name in found:
        if name not in expected:
            problems.append("chart %s is not called for by the JSON" % name)
    return problems, "%d charts, %d marks" % (len(found), sum(sum(m.values()) for m in found.values()))


class Resources(html.parser.HTMLParser):
    """Elements and attributes through which a page could load or run something."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems = []
        self.svgs = 0
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "link", "iframe", "object", "embed", "img", "base"):
            self.problems.append("the report holds a <%s> element" % tag)
        for name, value in attrs:
            v = (value or "").strip().lower()
            if name.startswith("on"):
                self.problems.append("an event handler attribute %s" % name)
            if name in ("src", "href", "xlink:href", "srcset", "action"):
                self.problems.append("a %s attribute: %s" % (name, value))
            elif (v.startswith(("http:", "https:", "//", "data:", "javascript:"))
                  and not (name == "xmlns" and v == "http://www.w3.org/2000/svg")):
                self.problems.append("an external reference %s=%s" % (name, value))
        if tag == "svg":
            self.svgs += 1
            if "viewbox" not in a:
                self.problems.append("an svg without a viewBox")
            w = re.match(r"\d+", a.get("width") or "")
            if w and int(w.group(0)) > 390:
                self.problems.append("an svg %s px wide, wider than a phone" % w.group(0))
        self.in_style = tag == "style"

    def handle_endtag(self, tag):
        self.in_style = False

    def handle_data(self, data):
        if self.in_style and re.search(r"url\(|@import|https?:", data, re.I):
            self.problems.append("the style sheet loads something")


def check_static(report):
    with open(report, encoding="utf-8") as f:
        text = f.read()
    r = Resources()
    r.feed(text)
    if not r.svgs:
        r.problems.append("the report has no chart")
    return r.problems, "%d bytes, %d charts, nothing external" % (len(text), r.svgs)


# The smallest text a phone shows legibly: the smallest text styles of Apple's and Google's phone guides
# (Caption 2, Label Small) are 11 px; under it a chart's numbers need a zoom to read.
MIN_TEXT_PX = 11


class Measured(html.parser.HTMLParser):
    """frame name (PAGE@WIDTH) -> what the wrapper's script measured in it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.frames = {}
        self.frame = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "pre" and a.get("class") == "measured":
            self.frame = a.get("data-frame")
            self.frames[self.frame] = ""

    def handle_endtag(self, tag):
        if tag == "pre":
            self.frame = None

    def handle_data(self, data):
        if self.frame is not None:
            self.frames[self.frame] += data


def measured(wrapper_dom):
    """[(frame name, measurements)], or a problem when no frame reported."""
    page = Measured()
    with open(wrapper_dom, encoding="utf-8") as f:
        page.feed(f.read())
    if not page.frames:
        return [], ["the frames reported nothing (did the reports load?)"]
    return [(name, json.loads(text)) for name, text in page.frames.items()], []


def check_overflow(wrapper_dom):
    frames, problems = measured(wrapper_dom)
    for name, m in frames:
        if m["scrollWidth"] > m["clientWidth"]:
            problems.append("%s: the page is %s px wide, more than its %s px"
                            % (name, m["scrollWidth"], m["clientWidth"]))
    return problems, ", ".join("%s %s px wide" % (name, m["scrollWidth"]) for name, m in frames)


def smallest(texts):
    return min(texts, key=lambda t: t["px"])


def least_px(texts):
    return "%.1f px" % smallest(texts)["px"] if texts else "none"


def check_text(wrapper_dom):
    """A chart's words at their drawn size (font size times the SVG's scale), and the page's own words."""
    frames, problems = measured(wrapper_dom)
    least = []
    for name, m in frames:
        groups = [("chart " + c["chart"], c["texts"]) for c in m["charts"]] + [("the page's text", m["texts"])]
        for where, texts in groups:
            small = [t for t in texts if t["px"] < MIN_TEXT_PX]
            if small:
                t = smallest(small)
                problems.append("%s: %s: %d words under %d px, the smallest %.1f px: %r"
                                % (name, where, len(small), MIN_TEXT_PX, t["px"], t["text"]))
        svg = [t for c in m["charts"] for t in c["texts"]]
        least.append("%s %s in charts, %s in text" % (name, least_px(svg), least_px(m["texts"])))
    return problems, "smallest: " + "; ".join(least)


def overlap(a, b, slack=0.5):
    """Boxes [left, top, right, bottom] sharing more than slack px both ways (touching is not overlapping)."""
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def inside(a, outer, slack=0.5):
    return (a[0] >= outer[0] - slack and a[1] >= outer[1] - slack
            and a[2] <= outer[2] + slack and a[3] <= outer[3] + slack)


def check_labels(wrapper_dom):
    """In each chart, the boxes the browser gave its <text> elements and its threshold line segments."""
    frames, problems = measured(wrapper_dom)
    labels = charts = 0
    for name, m in frames:
        for c in m["charts"]:
            charts += 1
            texts = c["texts"]
            labels += len(texts)
            where = "%s: chart %s" % (name, c["chart"])
            for i, t in enumerate(texts):
                for u in texts[i + 1:]:
                    if overlap(t["box"], u["box"]):
                        problems.append("%s: %r overlaps %r" % (where, t["text"], u["text"]))
                # A line's box has no width: widen it by its stroke (1.5 units) either side.
                if any(overlap(t["box"], [r[0] - 1, r[1], r[2] + 1, r[3]], 0) for r in c["rules"]):
                    problems.append("%s: %r is under the threshold line" % (where, t["text"]))
                if not inside(t["box"], c["box"]):
                    problems.append("%s: %r reaches outside the chart" % (where, t["text"]))
    return problems, "%d words in %d charts, none overlapping, under a threshold line or outside" % (labels, charts)


def main(argv):
    if len(argv) == 3 and argv[1] == "static":
        problems, summary = check_static(argv[2])
    elif len(argv) == 4 and argv[1] == "dom":
        problems, summary = check_dom(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] in ("overflow", "text", "labels"):
        problems, summary = {"overflow": check_overflow, "text": check_text, "labels": check_labels}[argv[1]](argv[2])
    else:
        sys.stderr.write(__doc__ if __doc__ else "usage: check_html.py static|dom|overflow|text|labels FILE [JSON]\n")
        return 2
    for p in problems:
        print("check_html: " + p)
    if not problems:
        print("ok: " + summary)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
