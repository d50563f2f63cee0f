# shellcheck shell=bash
# Lint: the lab's shell, Python and C code.

# Every shell script in the repository (the results excepted), found by
# name or by its first line.
shell_scripts() {
	local files
	mapfile -t files < <(git -C "$LAB_ROOT" ls-files --cached --others --exclude-standard -- . ':!results' |
		sed "s|^|$LAB_ROOT/|")
	printf '%s\n' "${files[@]}" | grep -E '\.sh$|/lab\.conf$' || true
	awk 'FNR == 1 && FILENAME !~ /\.sh$/ && /^#!.*bash/ { print FILENAME } { nextfile }' "${files[@]}"
}

t_lint_shellcheck() {
	local files
	mapfile -t files < <(shell_scripts)
	[ ${#files[@]} -gt 5 ] || fail "found only ${#files[@]} shell scripts"
	# in two halves, two at a time: shellcheck reads the files each sources
	# again in each call, so fewer calls cost less
	(cd "$LAB_ROOT" && printf '%s\0' "${files[@]}" | xargs -0 -n $(((${#files[@]} + 1) / 2)) -P 2 shellcheck)
}

# Every Python file (the analysis), found by name or by its first line:
# pyflakes (unused names, undefined names, shadowing).
t_lint_python() {
	local files
	mapfile -t files < <(cd "$LAB_ROOT" && git ls-files --cached --others --exclude-standard -- . ':!results' |
		xargs awk 'FNR == 1 && (FILENAME ~ /\.py$/ || /^#!.*python/) { print FILENAME } { nextfile }')
	[ ${#files[@]} -ge 4 ] || fail "found only ${#files[@]} Python files"
	(cd "$LAB_ROOT" && pyflakes3 "${files[@]}") || fail "pyflakes found the problems above"
}

t_lint_c_warnings() {
	local f out
	out=$(mktemp -d)
	for f in $(git -C "$LAB_ROOT" ls-files --cached --others --exclude-standard -- '*.c' | grep -v '^kernel-patch/'); do
		gcc -Wall -Wextra -Werror -O2 -I "$LAB_ROOT/workloads" -fsyntax-only "$LAB_ROOT/$f" || fail "$f does not compile cleanly"
	done
	rm -rf "$out"
}

# Analysis is a function of the run directory: no analysis file sources
# or calls the lab (lab/lib.sh, lab.conf, lab/*); the lab calls analysis.
t_lint_analysis_reads_no_lab() {
	local files hits
	mapfile -t files < <(cd "$LAB_ROOT" && git ls-files --cached --others --exclude-standard -- analysis ':!*.pyc')
	hits=$(cd "$LAB_ROOT" && grep -n -E '\.\./lab/|LAB_ROOT/lab/|LAB_BUILD' "${files[@]}" |
		grep -v -E '^[^:]+:[0-9]+:\s*#') || true
	[ -z "$hits" ] || fail "analysis reads the lab: $hits"
}

# Every jq module of the analysis compiles (jq checks a module only when a
# program includes it).
t_lint_jq() {
	local f n=0
	for f in "$LAB_ROOT"/analysis/*.jq; do
		jq -n -L "$LAB_ROOT/analysis" "include \"$(basename "$f" .jq)\"; empty" || fail "$f does not compile"
		n=$((n + 1))
	done
	[ "$n" -ge 3 ] || fail "found only $n jq modules"
}
