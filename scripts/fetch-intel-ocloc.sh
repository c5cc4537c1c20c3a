#!/usr/bin/env bash
# Fetches Intel's offline GPU compiler (ocloc with IGC 2.x) from Debian sid
# into a project-local folder, for the tests that compile the generated
# SPIR-V for pvc and bmg (test/Vendor, lit feature `ocloc`).
#
# Usage: scripts/fetch-intel-ocloc.sh [DIR]    (default: <repo>/.vendor/intel-ocloc)
#
# Bookworm's ocloc (intel-opencl-icd 22.43, IGC 1.0) is too old: it leaves
# the 2D block builtins unresolved and does not know bmg. Sid's packages are
# fetched by name from Debian's archive with a private apt state (own sources
# list, lists, cache and status; nothing of the system's apt state or its
# installed packages changes), unpacked with `dpkg -x`, and run through sid's
# own ld.so and libc by the wrapper DIR/bin/ocloc (sid's IGC needs glibc 2.43).
#
# Idempotent: a folder whose wrapper runs is kept (remove it to refresh).
# Sid moves and the network may be away: any failure leaves no wrapper and
# says why, and exits 0, so that the tests that need ocloc are UNSUPPORTED
# rather than the setup failing.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.vendor/intel-ocloc}
mirror=${XPU_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=(intel-ocloc libigc2 libigdfcl2 libigc2-tools
          libc6 libstdc++6 libgcc-s1 zlib1g)

unavailable() {
  echo "setup: ocloc unavailable ($*); the tests that need it will be UNSUPPORTED"
  rm -rf "$dest.tmp"
  exit 0
}

if [ -x "$dest/bin/ocloc" ] && "$dest/bin/ocloc" --version >/dev/null 2>&1; then
  echo "setup: ocloc present: $(cat "$dest/VERSION" 2>/dev/null)"
  exit 0
fi
[ "$(uname -m)" = x86_64 ] || unavailable "sid's packages are fetched for amd64 only"
for tool in apt-get dpkg; do
  command -v "$tool" >/dev/null || unavailable "no $tool"
done
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || unavailable "no $keyring"

echo "setup: fetching Intel's ocloc and IGC from Debian sid into $dest"
rm -rf "$dest" "$dest.tmp"
work=$dest.tmp
apt=$work/apt
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/etc/apt.conf.d" \
  "$apt/etc/preferences.d" "$apt/state" "$work/debs" "$work/root" ||
  unavailable "cannot create $work"
: >"$apt/state/status"
echo "deb [signed-by=$keyring] $mirror sid main" >"$apt/sources.list"
# The archive's signature is checked; the Valid-Until date is not (mirrors
# and snapshots serve Release files past it).
cat >"$apt/apt.conf" <<EOF
Dir::Etc "$apt/etc";
Dir::Etc::sourcelist "$apt/sources.list";
Dir::Etc::sourceparts "-";
Dir::State "$apt/state";
Dir::State::lists "$apt/lists";
Dir::State::status "$apt/state/status";
Dir::Cache "$apt/cache";
Dir::Cache::archives "$apt/archives";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Sandbox::User "$(id -un)";
Debug::NoLocking "true";
Acquire::Languages "none";
Acquire::Check-Valid-Until "false";
EOF
export APT_CONFIG=$apt/apt.conf
log=$work/apt.log
apt-get -q update >"$log" 2>&1 ||
  unavailable "apt-get update of sid failed: $(tail -1 "$log")"
(cd "$work/debs" && apt-get -q download "${packages[@]}") >>"$log" 2>&1 ||
  unavailable "apt-get download failed: $(tail -1 "$log")"
for deb in "$work"/debs/*.deb; do
  dpkg -x "$deb" "$work/root" || unavailable "dpkg -x $deb failed"
done
version=$(apt-cache policy intel-ocloc libigc2 |
  awk '/^[a-z]/ {p=$1} /Candidate:/ {printf "%s %s ", p, $2}')

# Only the compiler, its libraries and sid's loader and C/C++ runtime stay.
lib=$work/root/usr/lib/x86_64-linux-gnu
ocloc=$(ls "$work"/root/usr/bin/ocloc-* 2>/dev/null | head -1)
[ -n "$ocloc" ] && [ -e "$lib/ld-linux-x86-64.so.2" ] ||
  unavailable "the packages hold no ocloc or no ld.so"
mkdir -p "$dest/bin"
mv "$work/root" "$dest/root"
cat >"$dest/bin/ocloc" <<EOF
#!/bin/sh
# Sid's ocloc through sid's own loader and libraries ($(basename "$ocloc")).
root=\$(dirname "\$(readlink -f "\$0")")/../root
lib=\$root/usr/lib/x86_64-linux-gnu
exec "\$lib/ld-linux-x86-64.so.2" --library-path "\$lib" \
  "\$root/usr/bin/$(basename "$ocloc")" "\$@"
EOF
chmod +x "$dest/bin/ocloc"
echo "${version% }" >"$dest/VERSION"
rm -rf "$work" "$dest/root/usr/share"
if ! "$dest/bin/ocloc" --version >/dev/null 2>&1; then
  rm -rf "$dest"
  unavailable "the fetched ocloc does not run here"
fi
echo "setup: ocloc ready: $(cat "$dest/VERSION") ($dest/bin/ocloc)"
