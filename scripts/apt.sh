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

# suite_sources SUITE: the machine's own deb lines of its release (and of
# its -updates and -security suites), with SUITE in place of its codename.
# Unstable and experimental have no -updates or -security suites: only the
# release's own lines are taken for them.
suite_sources() {
	local own to=$1 only=0
	own=$(. /etc/os-release && echo "$VERSION_CODENAME")
	case $to in sid|unstable|experimental) only=1 ;; esac
	machine_sources deb | awk -v own="$own" -v to="$to" -v only=$only '
		{ for (i = 2; i <= NF; i++)
			if ($i ~ "^" own && (!only || $i == own)) { sub("^" own, to, $i); print; break } }' |
		sort -u > "${TMPDIR:-/tmp}/xenpmu-sources.$$"
	[ -s "${TMPDIR:-/tmp}/xenpmu-sources.$$" ] ||
		{ rm -f "${TMPDIR:-/tmp}/xenpmu-sources.$$"; die "no deb source for $own in /etc/apt to take $to from"; }
	cat "${TMPDIR:-/tmp}/xenpmu-sources.$$"
	rm -f "${TMPDIR:-/tmp}/xenpmu-sources.$$"
}

# apt_download SUITE DIR PKG...: download PKG (name or name=version) from
# SUITE, with the machine's own archive URIs, through a private apt state
# under $apt_dir (which checks every file against the signed index), into
# DIR, once: DIR/.complete marks a finished download.  Nothing is
# installed.
apt_download() {
	local suite=$1 dir=$2 own opts
	shift 2
	[ -f "$dir/.complete" ] && return 0
	mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" \
		 "$apt_dir/sources.list.d"
	suite_sources "$suite" > "$apt_dir/sources.list.tmp"
	mv "$apt_dir/sources.list.tmp" "$apt_dir/sources.list"
	opts=(-o Dir::State="$apt_dir/state" -o Dir::Cache="$apt_dir/cache"
	      -o Dir::Etc::SourceList="$apt_dir/sources.list"
	      -o Dir::Etc::SourceParts="$apt_dir/sources.list.d"
	      -o Dir::State::status=/dev/null -o APT::Sandbox::User=root -q)
	apt-get "${opts[@]}" update >&2 || die "private apt-get update for $suite failed"
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && apt-get "${opts[@]}" download "$@" >&2) ||
		die "apt-get download of $* from $suite failed"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

# apt_fetch_unpack SUITE WHAT VERSION DEST PKG...: PKG (name or
# name=version) from SUITE, downloaded once into $apt_dir/debs/WHAT-VERSION
# (apt_download) and unpacked with dpkg-deb into DEST, again only when
# VERSION changes (DEST/.xenpmu-version).  Nothing is installed.
apt_fetch_unpack() {
	local suite=$1 what=$2 version=$3 dest=$4 debs d
	shift 4
	debs=$apt_dir/debs/$what-$version
	if [ ! -f "$debs/.complete" ]; then
		step "$what: downloading $* from $suite through a private apt state in $apt_dir"
		apt_download "$suite" "$debs" "$@"
	fi
	[ "$(cat "$dest/.xenpmu-version" 2>/dev/null)" != "$version" ] || return 0
	rm -rf "$dest"
	mkdir -p "$dest"
	for d in "$debs"/*.deb; do
		dpkg-deb -x "$d" "$dest" || die "dpkg-deb -x $d failed"
	done
	echo "$version" > "$dest/.xenpmu-version"
}
