# Sourced by the tests that use a pinned PyPI venv cached under the build
# directory. Tests that run at once (JOBS=2, or two `make check`s of one
# checkout) share these venvs, so making, replacing or reinstalling into one
# happens under a lock (flock on DIR.lock): no test ever sees a venv that
# another is still making, or a package being replaced under it.
venv_lock() { exec {venv_lock_fd}>"$1.lock" && flock "$venv_lock_fd"; }
venv_unlock() { exec {venv_lock_fd}>&-; }
# venv_cached DIR STAMP PIP-ARGS...: a venv at DIR holding PIP-ARGS, made
# once; STAMP names what it holds (a new pin makes it anew)
venv_cached() {
  local dir=$1 stamp=$2; shift 2
  venv_lock "$dir"
  if [ ! -e "$dir/$stamp" ]; then
    rm -rf "$dir"
    "$PY" -m venv "$dir" || fail "python3 -m venv failed (Debian package python3-venv)"
    "$dir/bin/pip" install -q --disable-pip-version-check "$@" || fail "pip could not install $* (is PyPI reachable?)"
    "$dir/bin/pip" freeze > "$dir/.olive-freeze.txt"
    touch "$dir/$stamp"
  fi
  venv_unlock
}
