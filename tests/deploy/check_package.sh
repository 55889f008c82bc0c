#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package: builds it with CPack from the build tree, checks it
# with dpkg-deb --info/--contents and lintian (no error allowed), installs it
# with dpkg --root into an empty directory (maintainer scripts run
# chrootless, as DPKG_ROOT allows) and checks the layout, the conffile, the
# vkserve user and groups, the service enabled (not started), that the
# installed binary accepts the installed configs, then purges it.
# Fails when a Debian tool it needs is missing.
# Usage: tests/deploy/check_package.sh [REPO_ROOT] [BUILD_DIR]
set -euo pipefail
ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${2:-$ROOT/build}
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cpack dpkg-deb dpkg lintian systemd-sysusers deb-systemd-helper; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (scripts/setup.sh installs it)" >&2; exit 1; }
done
[ -x "$BUILD/vkserve" ] || fail "$BUILD/vkserve is not built"
grep -q '"/etc/vkserve"' "$BUILD/cmake_install.cmake" ||
  fail "the build was configured with CMAKE_INSTALL_PREFIX=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$BUILD/CMakeCache.txt"): the package needs /usr (cmake -DCMAKE_INSTALL_PREFIX=/usr $BUILD)"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack"; }
deb=$(ls "$tmp"/pkg/*.deb)
echo "package: $(basename "$deb") ($(stat -c %s "$deb") bytes)"

# Control data: dependencies from the linked libraries, the conffile, scripts.
dpkg-deb --info "$deb" >"$tmp/info"
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = vkserve ] || fail "Package: $(field Package)"
depends=$(field Depends)
for lib in libvulkan1 libgrpc++1 libprotobuf libabsl libsystemd0 libssl3 libstdc++6 systemd init-system-helpers; do
  [[ "$depends" == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
# /metrics is served by vkserve's own HTTP server: no civetweb at run time.
for lib in libcivetweb libprometheus-cpp-pull; do
  [[ "$depends" != *"$lib"* ]] || fail "Depends has $lib: $depends"
done
for member in conffiles postinst prerm postrm md5sums; do
  grep -q " $member" "$tmp/info" || fail "control archive lacks $member"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/vkserve/server.pbtxt ||
  fail "/etc/vkserve/server.pbtxt is not a conffile"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst >"$tmp/postinst"
if grep -Eq 'deb-systemd-invoke +(start|restart)|systemctl +(start|restart)|enable +--now' "$tmp/postinst"; then
  fail "postinst starts the service (it must only enable it)"
fi
echo "control: Depends has the linked libraries; conffile, postinst/prerm/postrm present"

# Contents: the FHS layout.
dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's#^\./#/#' >"$tmp/contents"
for path in /usr/bin/vkserve /etc/vkserve/server.pbtxt /lib/systemd/system/vkserve.service \
            /lib/systemd/system/vkserve@.service /usr/lib/sysusers.d/vkserve.conf \
            /usr/share/vkserve/examples/repository/tinynet/config.pbtxt \
            /usr/share/vkserve/examples/repository/tinynet/1/model.onnx \
            /usr/share/doc/vkserve/copyright /usr/share/doc/vkserve/changelog.gz /usr/share/man/man1/vkserve.1.gz \
            /var/lib/vkserve/models/; do
  grep -qx "$path" "$tmp/contents" || fail "the package lacks $path"
done
dpkg-deb --contents "$deb" | awk '$2 != "root/root" {print}' | grep . && fail "files not owned by root"
echo "contents: $(wc -l <"$tmp/contents") entries in the FHS layout, all root-owned"

# lintian: no errors (warnings are listed).
lintian --fail-on error --tag-display-limit 0 "$deb" >"$tmp/lintian" 2>&1 || { cat "$tmp/lintian"; fail "lintian"; }
grep -v "^running with root" "$tmp/lintian" || true
echo "lintian: $(grep -c '^E:' "$tmp/lintian" || true) errors, $(grep -c '^W:' "$tmp/lintian" || true) warnings"

# Install into an empty root (no chroot: the scripts honour DPKG_ROOT).
r="$tmp/root"
mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates" "$r/etc"
touch "$r/var/lib/dpkg/status" "$r/var/lib/dpkg/available"
printf 'root:x:0:0:root:/root:/bin/bash\n' >"$r/etc/passwd"
printf 'root:x:0:\nvideo:x:44:\n' >"$r/etc/group"
dpkgr() { dpkg --root="$r" --force-script-chrootless --force-depends --force-not-root --log=/dev/null "$@"; }
dpkgr -i "$deb" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "dpkg --root -i"; }
dpkg --root="$r" -s vkserve | grep -q "^Status: install ok installed" || fail "not installed"
grep -q '^ /etc/vkserve/server.pbtxt [0-9a-f]\{32\}$' "$r/var/lib/dpkg/status" || fail "conffile not registered"
grep -q '^vkserve:x:[0-9]*:[0-9]*:.*:/var/lib/vkserve:/usr/sbin/nologin$' "$r/etc/passwd" || fail "no vkserve user: $(cat "$r/etc/passwd")"
for g in render video; do
  grep -q "^$g:x:[0-9]*:.*vkserve" "$r/etc/group" || fail "vkserve is not in group $g"
done
[ "$(readlink "$r/etc/systemd/system/multi-user.target.wants/vkserve.service")" = /lib/systemd/system/vkserve.service ] ||
  fail "vkserve.service is not enabled"
[ -e "$r/etc/systemd/system/multi-user.target.wants/vkserve@0.service" ] && fail "the template is enabled too"
for path in usr/bin/vkserve etc/vkserve/server.pbtxt lib/systemd/system/vkserve@.service var/lib/vkserve/models; do
  [ -e "$r/$path" ] || fail "/$path not installed"
done
echo "dpkg --root: installed; user vkserve (groups render, video); vkserve.service enabled, not started"

# The installed binary takes the installed configs (paths moved into the root).
sed "s#/var/lib/vkserve#$r/var/lib/vkserve#g; s#/var/cache/vkserve#$tmp/cache#" "$r/etc/vkserve/server.pbtxt" >"$tmp/server.pbtxt"
"$r/usr/bin/vkserve" serve --config "$tmp/server.pbtxt" --check-config >/dev/null || fail "the installed config is rejected"
"$r/usr/bin/vkserve" serve --config "$r/usr/share/vkserve/examples/server.pbtxt" --check-config >/dev/null ||
  fail "the example config is rejected"
"$r/usr/bin/vkserve" serve --config "$tmp/server.pbtxt" --instance 2 --check-config | grep -q "config OK" ||
  fail "--instance 2 is rejected"

# Purge: files, the conffile and the enablement go.
dpkgr -P vkserve >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log"; fail "dpkg --root -P"; }
for path in usr/bin/vkserve etc/vkserve/server.pbtxt lib/systemd/system/vkserve.service \
            etc/systemd/system/multi-user.target.wants/vkserve.service; do
  [ -e "$r/$path" ] && fail "/$path left after purge"
done
echo "dpkg --root -P: purged cleanly"
echo "package: all checks passed"
