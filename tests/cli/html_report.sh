#!/bin/bash
# tests/cli/html_report.sh — the --html reports in a real headless browser: the README's phase0 sample rendered,
# screenshotted at desk and phone width, its DOM checked against the JSON of the same run (tests/tools/check_html.py).
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

# --- a phone's width: the page fits 390 px, measured by the browser in a test-only frame ---
overflow_wrapper() {
	cat >"$2" <<EOF
<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="$1" style="width:390px;height:844px;border:0"></iframe>
<script>
document.getElementById('f').addEventListener('load', function () {
	var d = this.contentDocument.documentElement;
	document.body.setAttribute('data-scroll-width', d.scrollWidth);
	document.body.setAttribute('data-client-width', d.clientWidth);
});
</script></body></html>
EOF
}
overflow_wrapper phase0.html "$OUT/wrap.html"
browse --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom "file://$OUT/wrap.html" >"$OUT/wrap.dom.html"
testing "390 px: no horizontal overflow" "$CHECK overflow '$OUT/wrap.dom.html' | sed 's/: .*//'" "ok\n"
sed -e 's|<main>|<main><div style="width:700px">wide</div>|' "$report" >"$OUT/wide.html"
overflow_wrapper wide.html "$OUT/wrap-wide.html"
browse --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom "file://$OUT/wrap-wide.html" >"$OUT/wrap-wide.dom.html"
testing "390 px: the overflow check sees a page that is too wide" \
	"$CHECK overflow '$OUT/wrap-wide.dom.html' >/dev/null; echo \$?" "1\n"

# --- the same sections from the three applets on their own ---
testing "calibrate --html: its section, charts as in its JSON" \
	"$RTK calibrate --json --group-by agent --html c.html '$SAMPLE/calibration.jsonl' >c.json && $CHECK static c.html >/dev/null && $CHECK dom c.html c.json | sed 's/: .*//'" "ok\n"
testing "board-history --html: its section, charts as in its JSON" \
	"$RTK board-history --json --html b.html '$SAMPLE/board.jsonl' >b.json && $CHECK static b.html >/dev/null && $CHECK dom b.html b.json | sed 's/: .*//'" "ok\n"
# A throwaway repository with one revert, so bucket 3 has a share to draw.
bash "$RTK_SRCDIR/tests/fixtures/git-history-repo.sh" message-revert "$SCRATCH_ROOT/repo" >/dev/null 2>&1
testing "git-history --html: its section, charts as in its JSON" \
	"$RTK git-history --json --repo '$SCRATCH_ROOT/repo' --html g.html >g.json && $CHECK static g.html >/dev/null && $CHECK dom g.html g.json | sed 's/: .*//'; jq .buckets.n g.json" "ok\n1\n"

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
