# tests/agents/clients.sh — how each real agent CLI is pointed at its scripted server, shared by probe.sh and check.sh.
# Sourced (bash). Every fact is in tests/agents/FINDINGS.md. For CLIENT in claude, codex, gemini:
#   client_server CLIENT              the server script of tests/servers/ that speaks its API
#   client_setup CLIENT DIR PORT RETRIES   writes the client's configuration under DIR (HOME is DIR/home,
#                                     Codex's CODEX_HOME DIR/codex); RETRIES caps the client's own retries
#                                     (empty: its defaults)
#   client_env CLIENT DIR PORT RETRIES     prints the NAME=VALUE words of its environment (env -i then these)
# Claude Code retries 429, 529 and even 401 ten times (about 3 minutes): CLAUDE_CODE_MAX_RETRIES caps it.
# Codex: request_max_retries and stream_max_retries in the provider table. Gemini: general.maxAttempts in
# settings.json (1: one request; it cannot go below a 5 s wait per retry). Gemini's session cleanup is off
# (general.sessionRetention.enabled false): on by default, it deletes a conversation that was resumed in a
# later minute than it began as soon as another session starts in the project (FINDINGS.md, "Resuming").

client_server() {
	case $1 in
	claude) echo anthropic_server.py ;;
	codex) echo openai_responses_server.py ;;
	gemini) echo gemini_server.py ;;
	esac
}

client_setup() { # CLIENT DIR PORT RETRIES
	local client=$1 dir=$2 port=$3 retries=$4
	mkdir -p "$dir/home"
	case $client in
	codex)
		mkdir -p "$dir/codex"
		{
			cat <<EOF
# CODEX_HOME/config.toml: the scripted server as the only model provider.
model = "gpt-5.5"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "danger-full-access"

# Without this, codex exec waits ~5 s at exit (analytics it cannot send).
[analytics]
enabled = false

[model_providers.scripted]
name = "scripted"
base_url = "http://127.0.0.1:$port/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
EOF
			[ -z "$retries" ] || printf 'request_max_retries = %s\nstream_max_retries = %s\n' "$retries" "$retries"
		} >"$dir/codex/config.toml" ;;
	gemini)
		mkdir -p "$dir/home/.gemini"
		local attempts=
		[ -z "$retries" ] || attempts=", \"maxAttempts\": $((retries + 1))"
		echo "{\"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}, \"privacy\": {\"usageStatisticsEnabled\": false}," \
			"\"general\": {\"sessionRetention\": {\"enabled\": false}$attempts}}" >"$dir/home/.gemini/settings.json" ;;
	esac
}

client_env() { # CLIENT DIR PORT RETRIES
	local client=$1 dir=$2 port=$3 retries=$4
	case $client in
	claude)
		echo "HOME=$dir/home IS_SANDBOX=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1"
		echo "ANTHROPIC_BASE_URL=http://127.0.0.1:$port ANTHROPIC_API_KEY=sk-ant-test"
		[ -z "$retries" ] || echo "CLAUDE_CODE_MAX_RETRIES=$retries" ;;
	codex) echo "HOME=$dir/home CODEX_HOME=$dir/codex OPENAI_API_KEY=sk-test" ;;
	gemini) echo "HOME=$dir/home GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$port GEMINI_API_KEY=test-gemini-key" ;;
	esac
}
