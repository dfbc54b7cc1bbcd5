# Debian packages the project needs, installed only when missing. Sourced by Scripts/run and
# Scripts/test, so a fresh machine with only the Swift toolchain gets set up by either.

# What every build links against (the C gateways' system libraries; libcurl4-openssl-dev for
# CCurl, the one outbound HTTP client).
LINK_PACKAGES=(libnghttp2-dev libsqlite3-dev libssl-dev libhttp-parser-dev libpq-dev libcurl4-openssl-dev pkg-config)

# as_root CMD...: run CMD as root, through sudo when we are not root and sudo exists.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else echo "need root to run: $*" >&2; return 1
    fi
}

deb_installed() { dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'; }

# install_missing PKG...: apt-get installs those not installed yet; quiet when all are.
install_missing() {
    local missing=() p
    for p in "$@"; do deb_installed "$p" || missing+=("$p"); done
    [ ${#missing[@]} -gt 0 ] || return 0
    echo "installing: ${missing[*]}" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 \
        && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}
