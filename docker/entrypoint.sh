#!/usr/bin/env bash
# Entrypoint of the tritondev development image (docker/Dockerfile); tini runs it as PID 1's child.
#
# 1. Started as root: the image's user 'triton' takes the ids that should own what it writes,
#    HOST_UID/HOST_GID when given, else the owner of /workspace; then root's privileges are dropped
#    with `setpriv --reuid --regid --init-groups` (util-linux), which execs in place (unlike
#    runuser/su, no parent process stays behind), so signals reach the command directly.
#    When those ids are 0 (a root-owned workspace, rootless engines) the command stays root.
#    Started as another user (docker --user, podman --userns=keep-id): nothing to map.
# 2. Dispatch, always with exec:
#      no arguments               a short `tritondev doctor` summary, then an interactive shell
#      first argument an option   tritondev "$@"            (entrypoint.sh --help)
#      first argument a program   the program as given      (entrypoint.sh bash -c 'echo hi')
#        found on PATH
#      anything else              tritondev "$@"            (entrypoint.sh setup --build-type Debug)
#    A program wins over a tritondev command of the same name (`env`): say `tritondev env` then.
set -euo pipefail

user=triton
workspace="${TRITONDEV_WORKSPACE:-/workspace}"
ccache_dir="${CCACHE_DIR:-/ccache}"
doctor_timeout="${DOCTOR_TIMEOUT:-30}"

say() { echo "entrypoint: $*" >&2; }
die() {
  say "error: $1"
  exit "${2:-2}"
}

is_id() { [[ "$1" =~ ^[0-9]+$ ]]; }

is_empty_dir() { [[ -d "$1" && -z "$(ls -A "$1")" ]]; }

# Give user $user the ids $1:$2 and move what the image itself owns along with it.
remap_user() {
  local uid="$1" gid="$2" old_uid old_gid home
  old_uid="$(id -u "$user")"
  old_gid="$(id -g "$user")"
  home="$(getent passwd "$user" | cut -d: -f6)"
  if [[ "$gid" != "$old_gid" ]]; then
    if ! getent group "$gid" >/dev/null; then
      if [[ "$(getent group "$user" | cut -d: -f3)" == "$old_gid" ]]; then
        groupmod -g "$gid" "$user"
      else
        groupadd -g "$gid" "$user-host"
      fi
    fi
    [[ "$(id -g "$user")" == "$gid" ]] || usermod -g "$gid" "$user"
  fi
  if [[ "$uid" != "$old_uid" ]]; then
    # -o: the id may belong to another account of the base image; the files decide, not the name.
    usermod -o -u "$uid" "$user"
  fi
  [[ -z "$home" || ! -d "$home" ]] || chown -R "$uid:$gid" "$home"
  # The ccache volume holds only cache files: it follows the user when it was triton's (made by the
  # image, or by an earlier container).
  if [[ -d "$ccache_dir" && "$(stat -c %u "$ccache_dir")" == "$old_uid" ]]; then
    chown -R "$uid:$gid" "$ccache_dir"
  fi
  # The workspace holds the user's data: only an empty one made by the image is handed over.
  if [[ "$(stat -c %u "$workspace")" == "$old_uid" ]] && is_empty_dir "$workspace"; then
    chown "$uid:$gid" "$workspace"
  fi
}

# As root: settle the ids, then run this script again as $user (or go on as root for id 0).
prepare_as_root() {
  local uid gid
  mkdir -p "$workspace" "$ccache_dir"
  uid="${HOST_UID:-$(stat -c %u "$workspace")}"
  gid="${HOST_GID:-$(stat -c %g "$workspace")}"
  is_id "$uid" || die "HOST_UID must be a number, got '$uid'"
  is_id "$gid" || die "HOST_GID must be a number, got '$gid'"
  if [[ "$uid" == 0 ]]; then
    return 0
  fi
  id "$user" >/dev/null 2>&1 || die "the image has no user '$user'; was it built from docker/Dockerfile?" 3
  if [[ "$uid" != "$(id -u "$user")" || "$gid" != "$(id -g "$user")" ]]; then
    remap_user "$uid" "$gid"
  fi
  if [[ "$(stat -c %u "$workspace")" != "$uid" ]]; then
    say "warning: $workspace belongs to uid $(stat -c %u "$workspace"), commands run as uid $uid;" \
      "set HOST_UID/HOST_GID to the owner of the mounted folder"
  fi
  export HOME
  HOME="$(getent passwd "$user" | cut -d: -f6)"
  export USER="$user" LOGNAME="$user"
  exec setpriv --reuid="$uid" --regid="$gid" --init-groups -- "${BASH_SOURCE[0]}" "$@"
}

# As any user other than root: a writable HOME and ccache directory, whatever the ids are.
prepare_as_user() {
  if [[ -z "${HOME:-}" || "$HOME" == / || ! -w "$HOME" ]]; then
    HOME="/tmp/home-$(id -u)"
    export HOME
    mkdir -p "$HOME"
  fi
  if [[ ! -w "$ccache_dir" ]]; then
    say "warning: $ccache_dir is not writable by uid $(id -u); ccache uses $HOME/.ccache instead"
    export CCACHE_DIR="$HOME/.ccache"
  fi
}

if [[ "$(id -u)" == 0 ]]; then
  prepare_as_root "$@"
else
  prepare_as_user
fi

# The problems `tritondev doctor` finds, one line each, and its counts; never fails, never hangs.
doctor_summary() {
  local python=/opt/tritondev/bin/python report
  [[ -x "$python" ]] || python=python3
  report="$(timeout "$doctor_timeout" tritondev doctor --json 2>/dev/null)" || true
  "$python" -c "$summarize" <<<"$report" >&2 2>/dev/null || say "tritondev doctor gave no report (run it for details)"
}
summarize="$(
  cat <<'PY'
import json, sys
data = json.load(sys.stdin)
for check in data["checks"]:
    if check["status"] in ("error", "warn"):
        print("  {status:5} {name}: {summary}".format(**check))
        if check.get("fix"):
            print("        fix: {}".format(check["fix"]))
print("tritondev doctor: {ok} ok, {warn} warnings, {error} errors, {skipped} skipped;"
      " 'tritondev doctor' shows every check".format(**data["summary"]))
PY
)"

if (($# == 0)); then
  doctor_summary
  exec bash
fi

if [[ "$1" != -* ]] && type -P -- "$1" >/dev/null 2>&1; then
  exec "$@"
fi
exec tritondev "$@"
