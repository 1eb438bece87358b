# shellcheck shell=bash
# Triton development shell functions. Source this file from bash (or zsh):
#
#     source /path/to/tritondev/shell/triton-dev.sh
#
# The functions run exactly the commands `tritondev setup` runs (it prints them with --dry-run),
# with the values `tritondev setup` wrote into the workspace (<workspace>/state/triton-dev.sh):
# the flags come from one place, tritondev's presets, so these functions, the CMakeUserPresets.json
# files in the checkouts and setup itself cannot disagree. Re-run `tritondev setup` after changing
# a setting and the functions follow.
#
#   triton-configure-mlir   configure the LLVM/MLIR build (cmake -G Ninja ... with Triton's flags)
#   triton-build-mlir       build LLVM/MLIR (ninja)
#                           (both refuse, exit 2, when setup used --llvm prebuilt or --llvm PATH)
#   triton-pip-install      install Triton's build requirements, then
#                           pip install --no-build-isolation -e <setup.py dir> with the build environment
#   triton-cmake            configure a hand-driven Triton build folder (then: ninja -C <folder>)
#
# Workspace: $TRITONDEV_WORKSPACE, else ~/tritondev. With TRITON_DEV_PRINT=1 the functions print
# each command (one shell-quoted line) instead of running it.

_triton_dev_values() {
    local ws="${TRITONDEV_WORKSPACE:-$HOME/tritondev}"
    local values="$ws/state/triton-dev.sh"
    if [ ! -r "$values" ]; then
        echo "triton-dev: $values not found; run \`tritondev setup\` (or set TRITONDEV_WORKSPACE)" >&2
        return 2
    fi
    # shellcheck source=/dev/null
    . "$values"
}

# Run (or with TRITON_DEV_PRINT=1 print) one command: [cd DIR &&] env [-uVAR ...] [VAR=value ...] argv.
_triton_dev_run() {
    if [ -n "${TRITON_DEV_PRINT:-}" ]; then
        local word line=""
        for word in "$@"; do
            line+="$(printf '%q' "$word") "
        done
        printf '%s\n' "${line% }"
        return 0
    fi
    "$@"
}

# With --llvm prebuilt or --llvm PATH the workspace has no LLVM source or build folder of its own:
# say where LLVM comes from instead of running cmake or ninja on folders that are not there.
_triton_dev_own_llvm() {
    if [ -n "${TRITON_DEV_LLVM_ELSEWHERE:-}" ]; then
        echo "triton-dev: $TRITON_DEV_LLVM_ELSEWHERE; this workspace has no LLVM build of its own" >&2
        echo "fix: tritondev setup --llvm source (builds the pinned LLVM in the workspace)" >&2
        return 2
    fi
}

triton-configure-mlir() {
    _triton_dev_values || return
    _triton_dev_own_llvm || return
    _triton_dev_run "${TRITON_DEV_LLVM_CONFIGURE[@]}"
}

triton-build-mlir() {
    _triton_dev_values || return
    _triton_dev_own_llvm || return
    _triton_dev_run "${TRITON_DEV_LLVM_BUILD[@]}"
}

triton-pip-install() {
    _triton_dev_values || return
    if [ "${#TRITON_DEV_PIP_REQUIREMENTS[@]}" -gt 0 ]; then
        _triton_dev_run "${TRITON_DEV_PIP_REQUIREMENTS[@]}" || return
    fi
    (
        cd "$TRITON_DEV_TRITON_SRC" || exit
        _triton_dev_run env "${TRITON_DEV_TRITON_ENV[@]}" "${TRITON_DEV_PIP_INSTALL[@]}"
    )
}

triton-cmake() {
    _triton_dev_values || return
    _triton_dev_run "${TRITON_DEV_TRITON_CMAKE[@]}"
}
