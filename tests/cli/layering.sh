#!/usr/bin/env bash
# tests/cli/layering.sh — the include check of HACKING.md's table: the tree passes, and each kind of
# offence (lib reaching up, src including an applet, an applet including another, a folder with no
# row, a cross-folder include by bare name, a folder's headers including one another in a circle) fails
# with the file and line.
. "$(dirname "$0")/lib.sh"
check_layering="python3 $RTK_SRCDIR/tests/tools/check_layering.py"

testing "the tree follows HACKING.md's include table" \
	"$check_layering $RTK_SRCDIR | sed 's/[0-9]* files/N files/'; echo \$?" \
	"layering: N files follow HACKING.md's include table\n0\n"

# copy_tree: a scratch copy of the parts the check reads, for one deliberate offence each.
copy_tree() {
	mkdir -p tree && cp -r "$RTK_SRCDIR/src" "$RTK_SRCDIR/applets" "$RTK_SRCDIR/HACKING.md" tree/ &&
		find tree -name '*.o' -delete
}
export -f copy_tree
export RTK_SRCDIR

testing "lib/ including a cluster fails" \
	"copy_tree && sed -i '2i #include \"git/gitodb.h\"' tree/src/lib/err.c && $check_layering tree; echo \$?" \
	"src/lib/err.c:2: src/lib/ may not include src/git/gitodb.h (HACKING.md allows: lib)\n1\n"

testing "a cluster including one not in its row fails" \
	"copy_tree && sed -i '2i #include \"githistory/githistory.h\"' tree/src/board/board.c && $check_layering tree; echo \$?" \
	"src/board/board.c:2: src/board/ may not include src/githistory/githistory.h (HACKING.md allows: git lib)\n1\n"

testing "an engine including another engine fails" \
	"copy_tree && sed -i '2i #include \"loop/loop.h\"' tree/src/iterate/iterate_check.c && $check_layering tree; echo \$?" \
	"src/iterate/iterate_check.c:2: src/iterate/ may not include src/loop/loop.h (HACKING.md allows: agent exec git lib rules schema)\n1\n"

testing "the process layer reaching up to the agent layer fails" \
	"copy_tree && sed -i '2i #include \"agent/ratelimit.h\"' tree/src/exec/proc.c && $check_layering tree; echo \$?" \
	"src/exec/proc.c:2: src/exec/ may not include src/agent/ratelimit.h (HACKING.md allows: git lib)\n1\n"

testing "src/ including an applet fails" \
	"copy_tree && sed -i '2i #include \"../../applets/calibrate.c\"' tree/src/lib/out.c && $check_layering tree; echo \$?" \
	"src/lib/out.c:2: includes the applet file applets/calibrate.c; only src/ may be included\n1\n"

testing "an applet including another applet fails" \
	"copy_tree && sed -i '2i #include \"validate.c\"' tree/applets/calibrate.c && $check_layering tree; echo \$?" \
	"applets/calibrate.c:2: includes the applet file applets/validate.c; only src/ may be included\n1\n"

testing "a folder without a row in the table fails" \
	"copy_tree && mkdir tree/src/newpart && printf '#include \"lib/err.h\"\\\\n' > tree/src/newpart/x.c && $check_layering tree; echo \$?" \
	"src/newpart/x.c:1: folder src/newpart/ has no row in HACKING.md's include table\n1\n"

testing "an allowed folder named without its path fails" \
	"copy_tree && sed -i '2i #include \"../lib/strbuf.h\"' tree/src/board/board.c && $check_layering tree; echo \$?" \
	"src/board/board.c:2: include src/lib/strbuf.h by its path, as \"lib/strbuf.h\"\n1\n"

testing "an include that names no file fails" \
	"copy_tree && sed -i '2i #include \"nothere.h\"' tree/src/lib/err.c && $check_layering tree; echo \$?" \
	"src/lib/err.c:2: \"nothere.h\" is not a file of the tree\n1\n"

# githistory's layers: the walk including classify, which stands on blame, which stands on the walk.
testing "a folder's headers including one another in a circle fail" \
	"copy_tree && sed -i '/#include \"message.h\"/a #include \"classify.h\"' tree/src/githistory/walk.h && $check_layering tree; echo \$?" \
	"src/githistory/walk.h:6: include circle walk.h -> classify.h -> blame.h -> walk.h\n1\n"

finish
