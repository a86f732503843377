#!/bin/bash
# tests/cli/html_report.sh — the --html reports in a real headless browser: the README's phase0 sample rendered,
# screenshotted at desk and phone width, its DOM checked against the JSON of the same run, and what the browser
# measures in frames of a phone's width (page width, drawn text size, chart labels' boxes) held to its limits
# (tests/tools/check_html.py).
. "$RTK_SRCDIR/tests/cli/lib.sh"

PY=/usr/bin/python3
CHECK="$PY $RTK_SRCDIR/tests/tools/check_html.py"
SAMPLE=${RTK_DATADIR:-$RTK_SRCDIR}/data/samples
OUT=$SCRATCH_ROOT/html
mkdir -p "$OUT" "$SCRATCH_ROOT/home"

# The browser is part of the test, not an option: bootstrap installs it, and without it this fails.
if ! command -v chromium >/dev/null; then
	fail "chromium is installed" "no chromium in PATH: run ./bootstrap (Debian package chromium)"
	finish
	exit
fi

# One headless chromium run with its own profile; its own group is killed however it ends (the hang
# guard only stops one that would never end), so no renderer outlives the test.
browse() {
	HOME=$SCRATCH_ROOT/home setsid timeout -k 5 "$HANG_GUARD" chromium --headless=new --no-sandbox --disable-gpu \
		--disable-dev-shm-usage --hide-scrollbars --no-first-run --user-data-dir="$SCRATCH_ROOT/home/profile" \
		"$@" 2>>"$SCRATCH_ROOT/chromium.log"
}

# PNG width and height from its header.
png_size() {
	$PY -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); print(*struct.unpack(">II", d[16:24])) if d[:8]==b"\x89PNG\r\n\x1a\n" else print("not a PNG")' "$1"
}

# --- phase0 on the sample the README's first command runs ---
report=$OUT/phase0.html
json=$OUT/phase0.json
testing "phase0 --html: writes the page, exit 0" \
	"$RTK phase0 --json --html '$report' '$SAMPLE/phase0.yaml' >'$json'; echo \$?; test -s '$report' && echo written" "0\nwritten\n"
conforms "phase0 --html: the JSON beside it still conforms" "$json" phase0
testing "phase0 --html: JSON unchanged by --html" \
	"$RTK phase0 --json '$SAMPLE/phase0.yaml' | cmp - '$json' && echo same" "same\n"
testing "phase0 --html: markdown unchanged by --html" \
	"cmp <($RTK phase0 '$SAMPLE/phase0.yaml') <($RTK phase0 --html x.html '$SAMPLE/phase0.yaml') && echo same" "same\n"
testing "phase0 --html: self-contained (no script, no external URL, charts sized by viewBox)" \
	"$CHECK static '$report' | sed 's/: .*//'" "ok\n"

browse --dump-dom "file://$report" >"$OUT/phase0.dom.html"
testing "browser: the DOM holds every chart with one mark per datum, verdicts and decision as in the JSON" \
	"$CHECK dom '$OUT/phase0.dom.html' '$json' | sed 's/: .*//'" "ok\n"

# The checker must see a chart go missing, a mark go missing, and a decision that says something else.
# P1's ROC, not P2's chart: P2 reads rtk's own history, which a tarball's build (make deb) may lack.
sed -e '/<figure class="chart" data-chart="p1-roc">/,/<\/figure>/d' "$OUT/phase0.dom.html" >"$OUT/no-chart.html"
testing "checker fails when a chart is missing" \
	"$CHECK dom '$OUT/no-chart.html' '$json'; echo \$?" "check_html: chart p1-roc is missing\n1\n"
$PY - "$OUT/phase0.dom.html" "$OUT/no-mark.html" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r'<rect class="mark bar"[^>]*>.*?</rect>', "", text, count=1, flags=re.S))
EOF
testing "checker fails when a mark is missing" \
	"$CHECK dom '$OUT/no-mark.html' '$json' | cut -c1-36; echo \${PIPESTATUS[0]}" "check_html: chart p1-reliability: ma\n1\n"
sed -e 's/class="decision-text">Nothing says KILL/class="decision-text">Everything passed/' "$OUT/phase0.dom.html" >"$OUT/bad-decision.html"
testing "checker fails when the decision differs from the JSON" \
	"$CHECK dom '$OUT/bad-decision.html' '$json' | cut -c1-34; echo \${PIPESTATUS[0]}" "check_html: decision text 'Everyth\n1\n"

# --- screenshots: a desk and a phone ---
browse --window-size=1280,2400 --screenshot="$OUT/phase0-1280.png" "file://$report" >/dev/null
browse --window-size=390,2400 --screenshot="$OUT/phase0-390.png" "file://$report" >/dev/null
testing "screenshot at 1280 px" "$(declare -f png_size); PY=$PY png_size '$OUT/phase0-1280.png'" "1280 2400\n"
testing "screenshot at 390 px" "$(declare -f png_size); PY=$PY png_size '$OUT/phase0-390.png'" "390 2400\n"
check "screenshots are not blank (over 40 kB each)" \
	test "$(stat -c %s "$OUT/phase0-1280.png")" -gt 40000 -a "$(stat -c %s "$OUT/phase0-390.png")" -gt 40000

# --- the same sections from the three applets on their own ---
testing "calibrate --html: its section, charts as in its JSON" \
	"cd '$OUT' && $RTK calibrate --json --group-by agent --html c.html '$SAMPLE/calibration.jsonl' >c.json && $CHECK static c.html >/dev/null && $CHECK dom c.html c.json | sed 's/: .*//'" "ok\n"
testing "board-history --html: its section, charts as in its JSON" \
	"cd '$OUT' && $RTK board-history --json --html b.html '$SAMPLE/board.jsonl' >b.json && $CHECK static b.html >/dev/null && $CHECK dom b.html b.json | sed 's/: .*//'" "ok\n"
# A throwaway repository with one revert, so bucket 3 has a share to draw.
bash "$RTK_SRCDIR/tests/fixtures/git-history-repo.sh" message-revert "$SCRATCH_ROOT/repo" >/dev/null 2>&1
testing "git-history --html: its section, charts as in its JSON" \
	"cd '$OUT' && $RTK git-history --json --repo '$SCRATCH_ROOT/repo' --html g.html >g.json && $CHECK static g.html >/dev/null && $CHECK dom g.html g.json | sed 's/: .*//'; jq .buckets.n g.json" "ok\n1\n"

# --- a phone's width, measured by the browser in a test-only page of frames ---
# measure_wrapper OUT.html PAGE@WIDTH...: each report (beside OUT.html) in a frame WIDTH px wide; once all have
# loaded, the page's script writes what the browser measured in each into it, for --dump-dom and check_html.py:
# the width the page needed, and every chart's <text> with its box and its size as drawn (font size times the
# SVG's scale), the boxes of its threshold line, and the size of every other visible text. The reports themselves
# hold no script.
measure_wrapper() {
	local out=$1 f
	shift
	{
		echo '<!DOCTYPE html><html><body style="margin:0">'
		for f; do
			echo "<iframe data-frame=\"$f\" src=\"${f%@*}\" style=\"display:block;width:${f##*@}px;height:844px;border:0\"></iframe>"
		done
		cat <<'EOF'
<script>
function measureFrame(frame) {
	var doc = frame.contentDocument, win = frame.contentWindow, root = doc.documentElement;
	var out = { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, charts: [], texts: [] };
	function box(r) { return [r.left, r.top, r.right, r.bottom]; }
	doc.querySelectorAll('figure.chart').forEach(function (fig) {
		var svg = fig.querySelector('svg');
		var chart = { chart: fig.getAttribute('data-chart'), box: box(svg.getBoundingClientRect()), rules: [], texts: [] };
		svg.querySelectorAll('.rule-line').forEach(function (l) { chart.rules.push(box(l.getBoundingClientRect())); });
		svg.querySelectorAll('text').forEach(function (t) {
			var m = t.getScreenCTM();
			chart.texts.push({ text: t.textContent, box: box(t.getBoundingClientRect()),
				px: parseFloat(win.getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) });
		});
		out.charts.push(chart);
	});
	var walk = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT), node;
	while ((node = walk.nextNode())) {
		var el = node.parentElement;
		if (!node.data.trim() || el.closest('svg') || !el.getClientRects().length) continue;
		out.texts.push({ text: node.data.trim().slice(0, 40), px: parseFloat(win.getComputedStyle(el).fontSize) });
	}
	return out;
}
window.addEventListener('load', function () {
	document.querySelectorAll('iframe').forEach(function (f) {
		var pre = document.createElement('pre');
		pre.className = 'measured';
		pre.setAttribute('data-frame', f.getAttribute('data-frame'));
		pre.textContent = JSON.stringify(measureFrame(f));
		document.body.appendChild(pre);
	});
});
</script></body></html>
EOF
	} >"$out"
}
# measure NAME PAGE@WIDTH...: the wrapper $OUT/NAME.html, and the browser's DOM of it in $OUT/NAME.dom.html.
measure() {
	measure_wrapper "$OUT/$1.html" "${@:2}"
	browse --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom "file://$OUT/$1.html" >"$OUT/$1.dom.html"
}

# The four reports at a phone's width; the phase0 report also on a small phone, a phone on its side (where two
# charts once shared a row at 8 px text) and a desk. P2's chart in phase0 reads rtk's own history, g.html's a
# fixture repository; P2's and P3's rates have a threshold line crossing their rows. Thresholds mid-chart and near
# its right end move the threshold's label to the chart's edge and to the left of its line.
for p in 0.5 0.9; do
	"$RTK" board-history --kill-below $p --html "$OUT/b$p.html" "$SAMPLE/board.jsonl" >/dev/null
done
measure wrap phase0.html@390 c.html@390 b.html@390 g.html@390 b0.5.html@390 b0.9.html@390 \
	phase0.html@360 phase0.html@600 phase0.html@1280
testing "390 px (360, 600, 1280): no horizontal overflow" "$CHECK overflow '$OUT/wrap.dom.html' | sed 's/: .*//'" "ok\n"
testing "390 px (360, 600, 1280): no text under 11 px, in a chart (as drawn) or out of one" \
	"$CHECK text '$OUT/wrap.dom.html' | sed 's/: .*//'" "ok\n"
testing "390 px (360, 600, 1280): no chart's words overlap, sit under its threshold line or leave it" \
	"$CHECK labels '$OUT/wrap.dom.html' | sed 's/: .*//'" "ok\n"

# Each check must see what it is for: a page too wide; words drawn at 8 px by an SVG and by the page; words on
# one another, a threshold line through words, words cut off at the chart's edge. Each is the real report with
# one thing added.
sed -e 's|<main>|<main><div style="width:700px">wide</div>|' "$report" >"$OUT/wide.html"
sed -e 's|<main>|<main><figure class="chart" data-chart="tiny"><svg viewBox="0 0 366 30"><text x="4" y="20" font-size="8">drawn at 8 px</text></svg><figcaption style="font-size:8px">a caption at 8 px</figcaption></figure>|' \
	"$report" >"$OUT/tiny.html"
sed -e 's|<main>|<main><figure class="chart" data-chart="crowded"><svg viewBox="0 0 366 60"><line class="rule-line" x1="100" y1="0" x2="100" y2="60"/><text x="4" y="20" font-size="14">a label</text><text x="30" y="24" font-size="14">another</text><text x="4" y="50" font-size="14">under the line</text><text x="320" y="50" font-size="14">off the edge</text></svg><figcaption>crowded</figcaption></figure>|' \
	"$report" >"$OUT/crowded.html"
measure broken wide.html@390 tiny.html@390 crowded.html@390
testing "390 px: the overflow check sees a page that is too wide" \
	"$CHECK overflow '$OUT/broken.dom.html'; echo \$?" "check_html: wide.html@390: the page is 712 px wide, more than its 390 px\n1\n"
testing "390 px: the text check sees words drawn at 8 px, in an SVG and out of one" \
	"$CHECK text '$OUT/broken.dom.html'; echo \$?" \
	"check_html: tiny.html@390: chart tiny: 1 words under 11 px, the smallest 8.0 px: 'drawn at 8 px'\ncheck_html: tiny.html@390: the page's text: 1 words under 11 px, the smallest 8.0 px: 'a caption at 8 px'\n1\n"
testing "390 px: the label check sees words on one another, under a threshold line, or cut off" \
	"$CHECK labels '$OUT/broken.dom.html'; echo \$?" \
	"check_html: crowded.html@390: chart crowded: 'a label' overlaps 'another'\ncheck_html: crowded.html@390: chart crowded: 'under the line' is under the threshold line\ncheck_html: crowded.html@390: chart crowded: 'off the edge' reaches outside the chart\n1\n"

# Text from the data is untrusted: a source or title can never open a tag.
evil='<script>alert(1)</script>\" onload=\"x'
testing "board-history --html: data escaped" \
	"printf '{\"type\":\"task\",\"id\":\"t1\",\"completed_at\":\"2020-01-01T00:00:00Z\",\"completion\":\"completed\",\"source\":\"%s\"}\n' '$evil' >in.jsonl
	 $RTK board-history --html b.html in.jsonl >/dev/null && $CHECK static b.html | sed 's/: .*//'; grep -c '&lt;script&gt;alert(1)&lt;/script&gt;&quot; onload=&quot;x' b.html" "ok\n2\n"

# --- errors: a clear line, exit 1, and no file, whole or partial ---
testing "--html into a missing folder: one-line error, exit 1" \
	"$RTK phase0 --html no/such/dir/r.html '$SAMPLE/phase0.yaml' 2>&1 >/dev/null | sed 's/: [^:]*\$//'; echo \${PIPESTATUS[0]}; ls no 2>&1 | wc -l" \
	"rtk phase0: no/such/dir/r.html\n1\n1\n"
testing "--html onto a folder: exit 1, no temporary file left" \
	"mkdir d; $RTK calibrate --html d '$SAMPLE/calibration.jsonl' >out 2>err; echo \$?; wc -l <err; ls -A d . | grep -v '^\\(d\\|out\\|err\\|\\.:\\|d:\\|\\)\$' | wc -l; test -s out || echo 'no stdout'" \
	"1\n1\n0\nno stdout\n"

# The pictures a person looks at: kept when asked (RTK_HTML_KEEP=DIR).
if [ -n "${RTK_HTML_KEEP:-}" ]; then
	mkdir -p "$RTK_HTML_KEEP" && cp "$OUT"/phase0.html "$OUT"/phase0-*.png "$RTK_HTML_KEEP"/
fi
finish
