#!/usr/bin/env bash
# tests/cli/names.sh — the names check of HACKING.md's "Names" tables: the built librtk.a and the headers
# pass, and each kind of offence (an export without its module's prefix, another module's longer
# prefix, an object with no row, a header type or macro without the prefix) fails with file and name.
. "$(dirname "$0")/lib.sh"
RTK_BUILDDIR=${RTK_BUILDDIR:-$(dirname "$RTK")}
check_names="python3 $RTK_SRCDIR/tests/tools/check_names.py"
export RTK_SRCDIR RTK_BUILDDIR

testing "the built librtk.a and the headers follow HACKING.md's names table" \
	"$check_names $RTK_SRCDIR $RTK_BUILDDIR/src/librtk.a | sed 's/[0-9]* objects and [0-9]* headers/N objects and N headers/'; echo \$?" \
	"names: N objects and N headers follow HACKING.md's \"Names\" table\n0\n"

# bad_object NAME SYMBOL...: a scratch copy lib.a of librtk.a whose member NAME.o (new or replacing
# the real one) exports only the given functions.
bad_object() {
	local name=$1 sym
	shift
	cp "$RTK_BUILDDIR/src/librtk.a" lib.a && chmod u+w lib.a && : > "$name.c" || return
	for sym; do printf 'int %s(void);\nint %s(void) { return 0; }\n' "$sym" "$sym" >> "$name.c"; done
	${CC:-cc} -c -o "$name.o" "$name.c" && ar r lib.a "$name.o" 2>/dev/null
}
# copy_tree: a scratch copy of the parts the check reads (writable, also under distcheck), for an offence
# in the sources.
copy_tree() {
	mkdir -p tree && cp -r "$RTK_SRCDIR/src" "$RTK_SRCDIR/applets" "$RTK_SRCDIR/HACKING.md" tree/ &&
		chmod -R u+w tree && find tree -name '*.o' -delete
}
export -f bad_object copy_tree

testing "an export without its module's prefix fails" \
	"bad_object jsonv jv_parse rtk_jsonv_parse && $check_names $RTK_SRCDIR lib.a; echo \$?" \
	"src/lib/jsonv.o: jv_parse: lib/jsonv exports must start with rtk_jsonv_ (HACKING.md \"Names\")\n1\n"

testing "an export with another module's longer prefix fails" \
	"bad_object board board_import_csv && $check_names $RTK_SRCDIR lib.a; echo \$?" \
	"src/board/board.o: board_import_csv: board_import_ names belong to board/board_import, not board/board (HACKING.md \"Names\")\n1\n"

testing "the listed exceptions pass, and only in their module" \
	"bad_object git2api git_clone rtk_fail && $check_names $RTK_SRCDIR lib.a; echo \$?" \
	"src/git/git2api.o: rtk_fail: git/git2api exports must start with git2api_ (HACKING.md \"Names\")\n1\n"

testing "an object with no row in the table fails" \
	"copy_tree && touch tree/src/lib/newpart.c && bad_object newpart rtk_newpart_x && $check_names tree lib.a; echo \$?" \
	"src/lib/newpart.o: lib/newpart has no row in HACKING.md's \"Names\" table\n1\n"

testing "an object with no source fails" \
	"bad_object nosource nosource_x && $check_names $RTK_SRCDIR lib.a; echo \$?" \
	"nosource.o: no source for it in src/ and applets/ (nosource.c)\n1\n"

testing "a header's type, typedef, macro and enum constant without the prefix fail" \
	"copy_tree && printf 'struct jv;\\ntypedef int jv_fn(void);\\n#define JV_MAX 1\\nenum { RTK_JSONV_A, JV_B };\\n' >> tree/src/lib/jsonv.h && $check_names tree $RTK_BUILDDIR/src/librtk.a; echo \$?" \
	"src/lib/jsonv.h: struct jv: lib/jsonv types must start with rtk_jsonv_ (or be rtk_jsonv) (HACKING.md \"Names\")
src/lib/jsonv.h: typedef jv_fn: lib/jsonv types must start with rtk_jsonv_ (or be rtk_jsonv) (HACKING.md \"Names\")
src/lib/jsonv.h: JV_MAX: lib/jsonv macros and enum constants must start with RTK_JSONV_ (HACKING.md \"Names\")
src/lib/jsonv.h: JV_B: lib/jsonv macros and enum constants must start with RTK_JSONV_ (HACKING.md \"Names\")\n1\n"

finish
