#!/bin/sh
# A base image for the Dockerfile's BASE where no container registry is reachable: Debian's
# python3 and venv in a debootstrap tree, imported into podman (docs/deploying.md, "Building
# without a registry"). Run as root. Usage: deploy/podman-base.sh [IMAGE]
#
# Nothing is made twice: an image already in podman's store is kept, and the tree is kept as a
# tarball under ~/.cache/tg-durak, so that a second machine state (a wiped podman store) only
# imports it again. The host's certificate bundle goes into the base, and pip is told to use it:
# on a network that inspects TLS with its own authority pip inside the build trusts it too.
set -eu
image=${1:-localhost/durak-base:bookworm}
suite=${DURAK_BASE_SUITE:-bookworm}
mirror=${DURAK_BASE_MIRROR:-http://deb.debian.org/debian}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tg-durak
tarball=$cache/base-$suite.tar

if podman image exists "$image"; then
    exit 0
fi
if [ ! -s "$tarball" ]; then
    mkdir -p "$cache"
    root=$(mktemp -d /var/tmp/durak-base.XXXXXX)
    trap 'rm -rf "$root"' EXIT
    debootstrap --variant=minbase --include=python3,python3-venv "$suite" "$root" "$mirror" \
        >"$cache/debootstrap.log" 2>&1 || { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
    if [ -s /etc/ssl/certs/ca-certificates.crt ]; then
        cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
    fi
    # The apt lists and the downloaded packages are no use in an image (about 60 MB).
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -cf "$tarball.partial" .
    mv "$tarball.partial" "$tarball"
fi
podman import --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
    "$tarball" "$image" >/dev/null
