#!/bin/sh
# scripts/install-agents.sh - installs the agent CLIs arena drives, at the
# versions its launchers were tested with, from the npm registry
# (`make install-agents`).
#
#   scripts/install-agents.sh [claude] [codex] [gemini]    (default: all three)
#
# Prefix: $ARENA_AGENTS_PREFIX, else /opt/arena-agents as root, else
# ~/.local/share/arena/agents.  The launchers look there (node_modules/.bin)
# after $ARENA_<CLI>_BIN and PATH, so nothing needs to be added to PATH.
# A CLI already installed at the pinned version is left alone (and not
# started), so this is cheap to run every time.  Needs Node.js >= 20 and npm.
#
# Cursor's CLI is not on npm: install it with the vendor's script
# (`curl https://cursor.com/install -fsS | bash`, into ~/.local/bin) where
# that site is reachable, then `cursor-agent login` or CURSOR_API_KEY.
set -eu

CLAUDE_VERSION=2.1.332     # @anthropic-ai/claude-code (bin claude)
CODEX_VERSION=0.171.0      # @openai/codex (bin codex)
GEMINI_VERSION=0.61.0      # @google/gemini-cli (bin gemini)

if [ -n "${ARENA_AGENTS_PREFIX:-}" ]; then
	prefix=$ARENA_AGENTS_PREFIX
elif [ "$(id -u)" = 0 ]; then
	prefix=/opt/arena-agents
else
	prefix=$HOME/.local/share/arena/agents
fi

command -v npm >/dev/null 2>&1 || {
	echo "install-agents: npm is missing; install Node.js >= 20 with npm" >&2
	exit 1
}
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$node_major" -ge 20 ] || {
	echo "install-agents: Node.js >= 20 is needed (found $(node --version 2>/dev/null || echo none))" >&2
	exit 1
}

want=${*:-claude codex gemini}
specs=""
installing=""
for w in $want; do
	case $w in
	claude) pkg=@anthropic-ai/claude-code; v=$CLAUDE_VERSION ;;
	codex) pkg=@openai/codex; v=$CODEX_VERSION ;;
	gemini) pkg=@google/gemini-cli; v=$GEMINI_VERSION ;;
	cursor)
		echo "install-agents: cursor-agent is not on npm; see the comment at the top of $0" >&2
		continue ;;
	*) echo "install-agents: unknown CLI '$w' (claude, codex, gemini)" >&2; exit 2 ;;
	esac
	have=$(node -p "require('$prefix/node_modules/$pkg/package.json').version" 2>/dev/null || true)
	if [ "$have" = "$v" ]; then
		echo "install-agents: $pkg@$v already in $prefix"
	else
		specs="$specs $pkg@$v"
		installing="$installing $w"
	fi
done
if [ -n "$specs" ]; then
	mkdir -p "$prefix"
	echo "install-agents: npm install$specs into $prefix"
	start=$(date +%s)
	# Claude Code's package declares node >= 22 (npm warns EBADENGINE),
	# but its postinstall places a native binary that runs on Node 20;
	# --version below checks it.
	npm install --prefix "$prefix" --no-audit --no-fund \
		--fetch-timeout=60000 --fetch-retries=1 \
		--loglevel=error $specs
	echo "install-agents: done in $(( $(date +%s) - start )) s"
fi
# Each CLI just installed must run (gemini's --version alone takes
# seconds, so the ones already there are not started again).
for w in $installing; do
	printf 'install-agents: %-7s %s\n' "$w" \
		"$("$prefix/node_modules/.bin/$w" --version 2>&1 | head -n 1)"
done
