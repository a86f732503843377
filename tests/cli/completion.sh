#!/usr/bin/env bash
# tests/cli/completion.sh — rtk --completion bash|zsh|fish: each script loaded in its own shell, completing
# applet names, each applet's long options (as its --help lists them), file and folder names where an
# option takes a FILE or DIR, iterate's commands, and rtk-APPLET.
. "$RTK_SRCDIR/tests/cli/lib.sh"

testing "an unknown shell is a usage error" "$RTK --completion tcsh 2>&1; echo \$?" \
	"rtk: --completion takes bash, zsh or fish, not 'tcsh'\n2\n"
testing "no shell is a usage error" "$RTK --completion 2>&1; echo \$?" "rtk: --completion takes bash, zsh or fish\n2\n"
testing "rtk --help names --completion" "$RTK --help | grep -c -e '--completion bash|zsh|fish'" "1\n"

# comp WORDS...: the bash completion of a command line whose last word is under the cursor, one a line, as
# bash's programmable completion calls _rtk: COMP_WORDS, COMP_CWORD and COMP_LINE set; in a fresh bash.
comp() {
	bash --norc --noprofile -c 'source <("$RTK" --completion bash) || exit 1
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_rtk "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' comp "$@"
}
export -f comp
export SCRATCH_ROOT
files='touch rep.txt report.svg && mkdir repdir &&'

testing "bash: applet names after rtk" "comp rtk ca" "calibrate\ncapture\n"
testing "bash: rtk's own options" "comp rtk --v" "--version\n"
testing "bash: an applet's options" "comp rtk calibrate --s" "--svg\n--skip-invalid\n"
testing "bash: the options every applet takes" "comp rtk validate --js" "--json\n"
testing "bash: file names after an option taking a FILE" "$files comp rtk calibrate --svg rep | sort" \
	"rep.txt\nrepdir\nreport.svg\n"
testing "bash: file names after --option=" "$files comp rtk calibrate --svg = rep | sort" "rep.txt\nrepdir\nreport.svg\n"
testing "bash: file names keep their spaces" "touch 'a b.svg' && comp rtk calibrate --svg a" "a b.svg\n"
testing "bash: folder names only after an option taking a DIR" "$files comp rtk iterate --project rep" "repdir\n"
testing "bash: nothing after an option taking a number" "$files comp rtk calibrate --high ''" "\n"
testing "bash: file names as operands" "$files comp rtk calibrate repo" "report.svg\n"
testing "bash: iterate's commands, from its usage lines" "comp rtk iterate ''" "check\nrun\nwake\nstatus\nwatch\n"
testing "bash: iterate's commands by prefix" "comp rtk iterate w" "wake\nwatch\n"
testing "bash: one command only" "comp rtk iterate run ''" "\n"
testing "bash: options after the command" "comp rtk iterate run --pro" "--project\n--progress\n"
testing "bash: rtk-APPLET completes the applet" "comp rtk-iterate s" "status\n"
testing "bash: rtk-APPLET by its path" "comp /usr/bin/rtk-calibrate --h" "--high\n--html\n--help\n"
testing "bash: help APPLET" "comp rtk help ri" "risk-floor\n"
testing "bash: --completion SHELL" "comp rtk --completion ''" "bash\nzsh\nfish\n"
testing "bash: --install DIR takes folders" "$files comp rtk --install re" "repdir\n"
testing "bash: complete names rtk and every rtk-APPLET" \
	"bash --norc -c 'source <($RTK --completion bash) && complete -p rtk \$($RTK --list | sed s/^/rtk-/)' | grep -c '^complete -F _rtk rtk'" \
	"$(($("$RTK" --list | wc -l) + 1))\n"
# One source of truth: each applet's completed options are exactly the long options its --help lists.
for a in $("$RTK" --list); do
	want=$("$RTK" "$a" --help | grep -o -e '^  *\(-[a-zA-Z], \)*--[a-z][a-z-]*' | grep -o -e '--.*' | sort)
	got=$(comp rtk "$a" -- | sort)
	if [ "$want" = "$got" ]; then pass "bash: rtk $a -- completes the options of rtk $a --help"
	else fail "bash: rtk $a -- completes the options of rtk $a --help" "--help:" "$want" "completed:" "$got"; fi
done

if command -v zsh >/dev/null; then
	"$RTK" --completion zsh >"$SCRATCH_ROOT/_rtk"
	check "zsh: the script parses" zsh -n "$SCRATCH_ROOT/_rtk"
	testing "zsh: sourced after compinit, it completes rtk and rtk-APPLET" \
		"zsh -f -c 'autoload -U compinit && compinit -u -D && source $SCRATCH_ROOT/_rtk && print -r -- \$_comps[rtk] \$_comps[rtk-iterate]'" \
		"_rtk _rtk\n"
	testing "zsh: one function per applet" \
		"zsh -f -c 'source $SCRATCH_ROOT/_rtk 2>/dev/null; print -l \${(k)functions[(I)_rtk_*]}' | sort" \
		"$("$RTK" --list | tr - _ | sed 's/^/_rtk_/' | sort)\n"
	# zc LINE: what zsh completes for LINE, sorted: an interactive zsh in a pseudo-terminal (zsh/zpty) loads
	# the script from its fpath as compinit does, gets LINE and a tab, and its compadd notes each match; a
	# Ctrl-U and a line saying it is done follow, and the terminal runs them only once the tab is done. The
	# tab waits until zsh is ready (zle drops what was typed while the set-up ran). Both waits give up only
	# after 600 s, a hang guard: a slow machine is waited for.
	mkdir "$SCRATCH_ROOT/zfp" && cp "$SCRATCH_ROOT/_rtk" "$SCRATCH_ROOT/zfp/_rtk"
	cat >"$SCRATCH_ROOT/drive.zsh" <<'ZSH'
zmodload zsh/zpty || exit 1
zpty z zsh -f -i
zpty -w z "PROMPT= ; bindkey -e; fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "compadd() { builtin compadd -O __m \"\$@\"; print -rl -- \"<m>\"\${^__m} >>${(q)2}; builtin compadd \"\$@\"; }"
zpty -w z "print '<ready>' >>${(q)2}"
for i in {1..6000}; do grep -q '<ready>' $2 2>/dev/null && break; sleep 0.1; done
zpty -n -w z "$3"$'\t'
zpty -w z $'\C-u'"print '<done>' >>${(q)2}"
for i in {1..6000}; do grep -q '<done>' $2 2>/dev/null && break; sleep 0.1; done
zpty -d z
ZSH
	zc() {
		zsh -f "$SCRATCH_ROOT/drive.zsh" "$SCRATCH_ROOT/zfp" "$PWD/zc.out" "$1"
		grep -q '<done>' zc.out || echo "zsh did not finish"
		sed -n 's/^<m>//p' zc.out | sort -u
	}
	export -f zc
	if zsh -f -c 'zmodload zsh/zpty' 2>/dev/null; then
		testing "zsh: applet names" "zc 'rtk ca'" "calibrate\ncapture\n"
		testing "zsh: an applet's options" "zc 'rtk calibrate --sv'" "--svg\n"
		testing "zsh: file names after an option taking a FILE" "$files zc 'rtk calibrate --svg rep'" "rep.txt\nrepdir\nreport.svg\n"
		testing "zsh: folder names after an option taking a DIR" "$files zc 'rtk iterate --project rep'" "repdir\n"
		testing "zsh: iterate's commands" "zc 'rtk iterate w'" "wake\nwatch\n"
		testing "zsh: rtk-APPLET" "zc 'rtk-iterate --proj'" "--project\n"
	else
		echo "SKIP: zsh has no zsh/zpty module; its completions are not run"
	fi
else
	echo "SKIP: zsh is not installed; its script is checked only for being written"
	check "zsh: a script is written" test -s <("$RTK" --completion zsh)
fi

if command -v fish >/dev/null; then
	"$RTK" --completion fish >"$SCRATCH_ROOT/rtk.fish"
	check "fish: the script parses" fish -n "$SCRATCH_ROOT/rtk.fish"
	# fc LINE: what fish completes for LINE, the candidates only.
	fc() {
		fish --no-config -c "source $SCRATCH_ROOT/rtk.fish; complete -C '$1'" | cut -f 1
	}
	export -f fc
	testing "fish: applet names" "fc 'rtk ca'" "calibrate\ncapture\n"
	testing "fish: an applet's options" "fc 'rtk calibrate --sv'" "--svg\n"
	testing "fish: file names after an option taking a FILE" "$files fc 'rtk calibrate --svg rep'" "rep.txt\nrepdir/\nreport.svg\n"
	testing "fish: folder names after an option taking a DIR" "$files fc 'rtk iterate --project rep'" "repdir/\n"
	testing "fish: iterate's commands" "fc 'rtk iterate w'" "wake\nwatch\n"
	testing "fish: rtk-APPLET" "fc 'rtk-iterate --proj'" "--project\n"
else
	echo "SKIP: fish is not installed; its script is checked only for being written"
	check "fish: a script is written" test -s <("$RTK" --completion fish)
fi
finish
