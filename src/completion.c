/* src/completion.c — rtk --completion bash|zsh|fish: shell completion written from the applets' option tables. */
#include "config.h"
#include "completion.h"
#include "applet.h"
#include "lib/err.h"

#include <string.h>

/* What an option's argument is, from its table entry: its argname says FILE or DIR. */
enum completion_arg { ARG_NONE, ARG_FILE, ARG_DIR, ARG_OTHER };

static enum completion_arg arg_of(const struct rtk_opt *o)
{
	const char *a = o->argname;
	if (o->kind == RTK_OPT_KIND_BOOL)
		return ARG_NONE;
	if (!a)
		return ARG_OTHER;
	if (!strcmp(a, "DIR") || !strcmp(a, "FOLDER"))
		return ARG_DIR;
	if (!strncmp(a, "FILE", 4) || !strcmp(a, "PATH"))
		return ARG_FILE;
	return ARG_OTHER;
}

/* Calls FN for each long option of the applet's table, then of the common one. */
#define EACH_OPTION(a, common, o)                                                                          \
	for (int t_ = 0; t_ < 2; t_++)                                                                     \
		for (const struct rtk_opt *o = t_ ? (common) : (a)->options; o && o->kind != RTK_OPT_KIND_END; o++) \
			if (o->long_name)

/*
 * The commands an applet's usage lines start with: "iterate check [--project DIR]" gives check. A word
 * of lower-case letters right after the applet's name is a command; OPTIONS, FILE and [--x] are not.
 * Returns how many were put in CMD (each LEN[i] long), at most MAX, without repeats.
 */
static int commands_of(const struct rtk_applet *a, const char *cmd[], int len[], int max)
{
	int n = 0;
	for (int i = 0; a->usage[i] && n < max; i++) {
		const char *s = a->usage[i] + strlen(a->name), *e;
		bool dup = false;
		if (*s != ' ')
			continue;
		s++;
		e = s + strspn(s, "abcdefghijklmnopqrstuvwxyz-");
		if (e == s || *s == '-' || (*e && *e != ' '))
			continue;
		for (int j = 0; j < n; j++)
			dup |= len[j] == (int)(e - s) && !strncmp(cmd[j], s, (size_t)(e - s));
		if (!dup) {
			cmd[n] = s;
			len[n++] = (int)(e - s);
		}
	}
	return n;
}

/* TEXT inside a single-quoted shell word: each ' as '\'' (bash, zsh), or \' and \\ (fish). */
static void put_quoted(FILE *out, const char *text, bool fish)
{
	for (const char *p = text; *p; p++) {
		if (*p == '\'')
			fputs(fish ? "\\'" : "'\\''", out);
		else if (*p == '\\' && fish)
			fputs("\\\\", out);
		else
			fputc(*p, out);
	}
}

/* "--a --b": the applet's long options whose argument is WANT (any when WANT is -1). */
static void put_options(FILE *out, const struct rtk_applet *a, const struct rtk_opt *common, int want)
{
	const char *sep = "";
	EACH_OPTION(a, common, o) {
		if (want >= 0 && (int)arg_of(o) != want)
			continue;
		fprintf(out, "%s--%s", sep, o->long_name);
		sep = " ";
	}
}

static void put_commands(FILE *out, const struct rtk_applet *a, const char *sep)
{
	const char *cmd[6];
	int len[6], n = commands_of(a, cmd, len, 6);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%.*s", i ? sep : "", len[i], cmd[i]);
}

static bool has_commands(const struct rtk_applet *a)
{
	const char *cmd[6];
	int len[6];
	return commands_of(a, cmd, len, 6) > 0;
}

static void put_names(FILE *out, const char *prefix)
{
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++)
		fprintf(out, " %s%s", prefix, (*a)->name);
}

static void print_bash(FILE *out, const struct rtk_opt *common)
{
	fprintf(out, "# bash completion for rtk, written by 'rtk --completion bash' (rtk %s) from the applets' option tables.\n"
		     "# Load it with: source <(rtk --completion bash). make install puts it where bash-completion looks.\n\n"
		     "# _rtk_spec APPLET: sets opts (its long options), cmds (the commands its usage lines start with)\n"
		     "# and files, dirs, args (the options whose argument is a file, a folder, anything else).\n"
		     "_rtk_spec()\n{\n\tcase $1 in\n", PACKAGE_VERSION);
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++) {
		fprintf(out, "\t%s)\n\t\topts='", (*a)->name);
		put_options(out, *a, common, -1);
		fputs("'\n\t\tcmds='", out);
		put_commands(out, *a, " ");
		fputs("'\n\t\tfiles='", out);
		put_options(out, *a, common, ARG_FILE);
		fputs("'\n\t\tdirs='", out);
		put_options(out, *a, common, ARG_DIR);
		fputs("'\n\t\targs='", out);
		put_options(out, *a, common, ARG_OTHER);
		fputs("'\n\t\t;;\n", out);
	}
	fputs("\t*) return 1 ;;\n\tesac\n}\n\n"
	      "# _rtk_words WORDS: those of WORDS that start with the word under the cursor.\n"
	      "_rtk_words()\n{\n\tCOMPREPLY=($(compgen -W \"$1\" -- \"$cur\"))\n}\n\n"
	      "# _rtk_paths -f|-d: file or folder names that start with the word under the cursor (spaces kept).\n"
	      "_rtk_paths()\n{\n\tlocal IFS=$'\\n'\n\tcompopt -o filenames 2>/dev/null\n"
	      "\tCOMPREPLY=($(compgen \"$1\" -- \"$cur\"))\n}\n\n"
	      "_rtk()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= name=${COMP_WORDS[0]##*/} applet first i\n"
	      "\tlocal opts cmds files dirs args\n"
	      "\tCOMPREPLY=()\n"
	      "\t(( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\t# bash splits --option=value at the '=': the value belongs to the option before it.\n"
	      "\tif [[ $cur == = ]]; then\n\t\tcur=\n"
	      "\telif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then\n\t\tprev=${COMP_WORDS[COMP_CWORD-2]}\n\tfi\n"
	      "\tif [[ $name == rtk-?* ]]; then\n\t\tapplet=${name#rtk-} first=1\n\telse\n"
	      "\t\tif (( COMP_CWORD == 1 )); then\n\t\t\t_rtk_words \"", out);
	put_names(out, "");
	fputs(" help --list --install --version --help --completion\"\n\t\t\treturn 0\n\t\tfi\n"
	      "\t\tapplet=${COMP_WORDS[1]} first=2\n"
	      "\t\tcase $applet in\n"
	      "\t\thelp) (( COMP_CWORD == 2 )) && _rtk_words \"", out);
	put_names(out, "");
	fputs("\"; return 0 ;;\n"
	      "\t\t--completion) (( COMP_CWORD == 2 )) && _rtk_words 'bash zsh fish'; return 0 ;;\n"
	      "\t\t--install) if [[ $cur == -* ]]; then _rtk_words -s; else _rtk_paths -d; fi; return 0 ;;\n"
	      "\t\t-*) return 0 ;;\n\t\tesac\n\tfi\n"
	      "\t_rtk_spec \"$applet\" || return 0\n"
	      "\tif (( COMP_CWORD > first )) && [[ $prev == --?* ]]; then\n"
	      "\t\tif [[ \" $files \" == *\" $prev \"* ]]; then _rtk_paths -f; return 0; fi\n"
	      "\t\tif [[ \" $dirs \" == *\" $prev \"* ]]; then _rtk_paths -d; return 0; fi\n"
	      "\t\t[[ \" $args \" == *\" $prev \"* ]] && return 0\n\tfi\n"
	      "\tif [[ $cur == -* ]]; then\n\t\t_rtk_words \"$opts\"\n"
	      "\telif [[ -n $cmds ]]; then\n"
	      "\t\t# An applet with commands (iterate check): the command once, then only options.\n"
	      "\t\tfor ((i = first; i < COMP_CWORD; i++)); do\n"
	      "\t\t\t[[ \" $cmds \" == *\" ${COMP_WORDS[i]} \"* ]] && return 0\n\t\tdone\n"
	      "\t\t_rtk_words \"$cmds\"\n"
	      "\telse\n\t\t_rtk_paths -f\n\tfi\n\treturn 0\n}\n\n"
	      "complete -F _rtk rtk", out);
	put_names(out, "rtk-");
	fputc('\n', out);
}

/* An _arguments description: [ and ] quoted with a backslash, inside single quotes. */
static void put_zsh_help(FILE *out, const char *help)
{
	fputc('[', out);
	for (const char *p = help; *p; p++) {
		if (*p == '[' || *p == ']')
			fputc('\\', out);
		if (*p == '\'')
			fputs("'\\''", out);
		else
			fputc(*p, out);
	}
	fputc(']', out);
}

static void print_zsh(FILE *out, const struct rtk_opt *common)
{
	fputs("#compdef rtk", out);
	put_names(out, "rtk-");
	fprintf(out, "\n# zsh completion for rtk, written by 'rtk --completion zsh' (rtk %s) from the applets' option tables.\n"
		     "# Load it with: source <(rtk --completion zsh) after compinit, or save it as _rtk in a folder of $fpath.\n",
		PACKAGE_VERSION);
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++) {
		fputs("\n_rtk_", out);
		for (const char *p = (*a)->name; *p; p++)
			fputc(*p == '-' ? '_' : *p, out);
		fputs("()\n{\n\t_arguments -s -S", out);
		EACH_OPTION(*a, common, o) {
			enum completion_arg arg = arg_of(o);
			fprintf(out, " \\\n\t\t'%s--%s%s", o->kind == RTK_OPT_KIND_LIST ? "*" : "", o->long_name,
				arg == ARG_NONE ? "" : "=");
			put_zsh_help(out, o->help ? o->help : "");
			if (arg != ARG_NONE)
				fprintf(out, ":%s:%s", o->argname ? o->argname : "VALUE",
					arg == ARG_FILE ? "_files" : arg == ARG_DIR ? "_files -/" : " ");
			fputc('\'', out);
		}
		if (has_commands(*a)) {
			fputs(" \\\n\t\t'1:command:(", out);
			put_commands(out, *a, " ");
			fputs(")'", out);
		} else
			fputs(" \\\n\t\t'*:file:_files'", out);
		fputs("\n}\n", out);
	}
	fputs("\n_rtk()\n{\n\tlocal -a applets\n\tapplets=(", out);
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++) {
		fprintf(out, "\n\t\t'%s:", (*a)->name);
		put_quoted(out, (*a)->summary, false);
		fputc('\'', out);
	}
	fputs("\n\t)\n"
	      "\tif [[ $service == rtk-?* ]]; then\n\t\t_rtk_${${service#rtk-}//-/_}\n\t\treturn\n\tfi\n"
	      "\tif (( CURRENT == 2 )); then\n"
	      "\t\tif [[ $PREFIX == -* ]]; then\n\t\t\tcompadd -- --list --install --version --help --completion\n"
	      "\t\telse\n\t\t\t_describe -t applets 'rtk applet' applets\n\t\t\tcompadd help\n\t\tfi\n\t\treturn\n\tfi\n"
	      "\tlocal applet=$words[2]\n"
	      "\tcase $applet in\n"
	      "\thelp) (( CURRENT == 3 )) && _describe -t applets 'rtk applet' applets; return ;;\n"
	      "\t--completion) (( CURRENT == 3 )) && compadd bash zsh fish; return ;;\n"
	      "\t--install) [[ $PREFIX == -* ]] && compadd -- -s || _files -/; return ;;\n"
	      "\tesac\n"
	      "\t(( $+functions[_rtk_${applet//-/_}] )) || return 1\n"
	      "\tshift words\n\t(( CURRENT-- ))\n"
	      "\t_rtk_${applet//-/_}\n}\n\n"
	      "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n\t_rtk \"$@\"\nelse\n\tcompdef _rtk rtk", out);
	put_names(out, "rtk-");
	fputs("\nfi\n", out);
}

/* One applet's lines: for rtk APPLET (SUB) or for rtk-APPLET, the name make install puts in bindir. */
static void print_fish_applet(FILE *out, const struct rtk_applet *a, const struct rtk_opt *common, bool sub)
{
	char who[64], when[96] = "", seen[96] = "";
	snprintf(who, sizeof(who), "rtk%s%s", sub ? "" : "-", sub ? "" : a->name);
	if (sub) {
		snprintf(seen, sizeof(seen), "__fish_seen_subcommand_from %s; and ", a->name);
		snprintf(when, sizeof(when), " -n '__fish_seen_subcommand_from %s'", a->name);
	}
	EACH_OPTION(a, common, o) {
		enum completion_arg arg = arg_of(o);
		fprintf(out, "complete -c %s%s -l %s%s -d '", who, when, o->long_name,
			arg == ARG_FILE ? " -r -F" : arg == ARG_DIR ? " -x -a '(__fish_complete_directories)'" : arg == ARG_OTHER ? " -x" : "");
		put_quoted(out, o->help ? o->help : "", true);
		fputs("'\n", out);
	}
	if (has_commands(a)) {
		fprintf(out, "complete -c %s%s -f\n", who, when);
		fprintf(out, "complete -c %s -n '%snot __fish_seen_subcommand_from ", who, seen);
		put_commands(out, a, " ");
		fputs("' -a '", out);
		put_commands(out, a, " ");
		fputs("'\n", out);
	} else if (sub)
		fprintf(out, "complete -c %s%s -F\n", who, when);
}

static void print_fish(FILE *out, const struct rtk_opt *common)
{
	static const char *const top[][2] = {
		{ "list", "print every applet name" },
		{ "install", "a link to rtk per applet in DIR (-s: symbolic)" },
		{ "version", "print the version" },
		{ "help", "a summary of the applets" },
		{ "completion", "print the completion script of a shell" },
	};
	fprintf(out, "# fish completion for rtk, written by 'rtk --completion fish' (rtk %s) from the applets' option tables.\n"
		     "# Load it with: rtk --completion fish | source, or save it as ~/.config/fish/completions/rtk.fish.\n"
		     "complete -c rtk -f\n",
		PACKAGE_VERSION);
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		fprintf(out, "complete -c rtk -n __fish_use_subcommand -l %s%s -d '%s'\n", top[i][0],
			!strcmp(top[i][0], "install")      ? " -x -a '(__fish_complete_directories)'"
			: !strcmp(top[i][0], "completion") ? " -x -a 'bash zsh fish'"
							   : "",
			top[i][1]);
	fputs("complete -c rtk -n __fish_use_subcommand -a help -d 'an applet'\\''s usage and options'\n", out);
	fputs("complete -c rtk -n '__fish_seen_subcommand_from help' -a '", out);
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++)
		fprintf(out, "%s%s", a == rtk_applet_all ? "" : " ", (*a)->name);
	fputs("'\n", out);
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++) {
		fprintf(out, "\n# %s\ncomplete -c rtk -n __fish_use_subcommand -a %s -d '", (*a)->name, (*a)->name);
		put_quoted(out, (*a)->summary, true);
		fputs("'\n", out);
		print_fish_applet(out, *a, common, true);
		print_fish_applet(out, *a, common, false);
	}
}

int rtk_completion_print(FILE *out, const char *shell, const struct rtk_opt *common)
{
	if (shell && !strcmp(shell, "bash"))
		print_bash(out, common);
	else if (shell && !strcmp(shell, "zsh"))
		print_zsh(out, common);
	else if (shell && !strcmp(shell, "fish"))
		print_fish(out, common);
	else
		return rtk_fail(RTK_EXIT_USAGE, "--completion takes bash, zsh or fish%s%s%s", shell ? ", not '" : "",
				shell ? shell : "", shell ? "'" : "");
	return 0;
}
