# shellcheck shell=bash
# Lint: the lab's shell and C code.

# Every shell script in the repository, found by name or shebang.
shell_scripts() {
	git -C "$LAB_ROOT" ls-files --cached --others --exclude-standard |
		while read -r f; do
			case $f in
			*.sh | */lab.conf) printf '%s\n' "$LAB_ROOT/$f" ;;
			*) head -c 64 "$LAB_ROOT/$f" 2>/dev/null | grep -q '^#!.*bash' &&
				printf '%s\n' "$LAB_ROOT/$f" ;;
			esac
		done
}

t_lint_shellcheck() {
	local files
	mapfile -t files < <(shell_scripts)
	[ ${#files[@]} -gt 5 ] || fail "found only ${#files[@]} shell scripts"
	(cd "$LAB_ROOT" && shellcheck "${files[@]}")
}

t_lint_c_warnings() {
	local f out
	out=$(mktemp -d)
	for f in $(git -C "$LAB_ROOT" ls-files --cached --others --exclude-standard -- '*.c' | grep -v '^kernel-patch/'); do
		gcc -Wall -Wextra -Werror -O2 -I "$LAB_ROOT/workloads" -fsyntax-only "$LAB_ROOT/$f" || fail "$f does not compile cleanly"
	done
	rm -rf "$out"
}
