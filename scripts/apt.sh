# SPDX-License-Identifier: GPL-2.0
# apt helpers for the scripts that fetch through a private apt state
# (sourced, not run).

# machine_sources TYPE: one TYPE (deb or deb-src) line per (URI, suite,
# components) of the machine's own enabled Debian-style sources, one-line
# and deb822 format alike.
machine_sources() {
	local f type=$1
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		sed -n "s/#.*//; s/^[[:space:]]*deb[[:space:]]\\+\\(\\[[^]]*\\][[:space:]]\\+\\)\\?/$type \\1/p" "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v type="$type" '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && uris != "" && enabled != "no") {
				n = split(uris, u, " "); m = split(suites, s, " ")
				for (i = 1; i <= n; i++) for (j = 1; j <= m; j++)
					printf "%s %s%s %s %s\n", type, opts, u[i], s[j], comps
			}
			types = uris = suites = comps = opts = enabled = ""
		}
		/^[[:space:]]*#/ { next }
		/^[[:space:]]*$/ { flush(); next }
		{
			key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
			if (key == "types") types = $0
			else if (key == "uris") uris = $0
			else if (key == "suites") suites = $0
			else if (key == "components") comps = $0
			else if (key == "enabled") enabled = tolower($0)
			else if (key == "signed-by") opts = "[signed-by=" $0 "] "
		}
		END { flush() }' "$f"
	done
}
