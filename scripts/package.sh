#!/usr/bin/env bash
# Builds the Debian package appwarden_VERSION_ARCH.deb and prints its path on the last line.
#
#   bash scripts/package.sh
#   sudo apt-get install ./.build-release/appwarden_0.1.0-1_amd64.deb    # on the device
#
# The executable is a static release build (scripts/build-static.sh): the Swift runtime, Foundation
# and Dispatch are inside it, so the device needs no Swift; libcgroup and SQLite stay shared and
# become the package's Depends, computed by dpkg-shlibdeps. The package holds:
#   /usr/bin/appwarden                               the daemon and its client, stripped
#   /usr/lib/appwarden/appwarden-relay               the program each app's log relay runs: C
#                                                    alone, compiled here with Debian's build
#                                                    flags (hardening=+all), without the Swift
#                                                    runtime that a static swift build links
#                                                    into every product
#   /lib/systemd/system/appwarden.service            contrib/appwarden.service
#   /lib/systemd/system/system.slice.d/appwarden.conf   contrib/system.slice.conf: the memory
#                                                    protection the unit asks for, given to its
#                                                    slice too, without which it would not hold
#   /etc/appwarden/policy.toml                       policies/default.toml, a conffile
#   /usr/share/man/man1/appwarden.1.gz               every command and subcommand, generated from
#                                                    the command's own help by swift-argument-parser's
#                                                    generate-manual tool, built from the local copy
#   /usr/share/bash-completion/completions/appwarden, /usr/share/zsh/vendor-completions/_appwarden,
#   /usr/share/fish/vendor_completions.d/appwarden.fish   from --generate-completion-script
#   /usr/share/doc/appwarden/copyright, changelog.Debian.gz   from contrib/debian
#   /usr/share/lintian/overrides/appwarden           the tags that do not apply, each with why
# and the maintainer scripts in contrib/debian (postinst enables and starts the unit, prerm stops
# the apps and the unit on removal, postrm forgets the unit and, on purge, the daemon's state).
#
# The version is WardenVersion.current (Sources/WardenAPI/WardenVersion.swift) with the Debian
# revision of contrib/debian/changelog, whose newest entry must name that version; the changelog's
# date stamps the files, the manual page and the archive (SOURCE_DATE_EPOCH), so the same tree
# gives the same package. The package is checked with lintian (installed with apt when missing)
# and the script fails on any error or warning it reports. Output: .build-release/ (or
# APPWARDEN_PACKAGE_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh >&2

need=()
command -v dpkg-shlibdeps >/dev/null 2>&1 || need+=(dpkg-dev)
command -v lintian >/dev/null 2>&1 || need+=(lintian)
command -v strip >/dev/null 2>&1 || need+=(binutils)
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "package.sh needs ${need[*]}; install them with apt-get, or run this once as root." >&2
    exit 1
  fi
  echo "== installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

version=$(sed -n 's/.*static let current = "\([^"]*\)".*/\1/p' Sources/WardenAPI/WardenVersion.swift)
[ -n "$version" ] || {
  echo "package.sh: no version found in Sources/WardenAPI/WardenVersion.swift (static let current = \"X.Y.Z\")." >&2
  exit 1
}
changelog=contrib/debian/changelog
debian_version=$(dpkg-parsechangelog -l "$changelog" -S Version)
if [ "${debian_version%-*}" != "$version" ]; then
  echo "package.sh: $changelog's newest entry is $debian_version, but appwarden is $version;" \
    "add an entry for $version-1 first." >&2
  exit 1
fi
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$changelog" -S Timestamp)
arch=$(dpkg --print-architecture)
out_dir="${APPWARDEN_PACKAGE_DIR:-.build-release}"
deb="$out_dir/appwarden_${debian_version}_${arch}.deb"

bin_dir=$(bash scripts/build-static.sh appwarden | tail -1)
scratch="${APPWARDEN_RELEASE_BUILD:-.build-release}"
echo "== generate-manual (swift-argument-parser's tool, from the resolved copy)" >&2
parser="$scratch/checkouts/swift-argument-parser"
manual_flags=(--package-path "$parser" --scratch-path "$scratch/generate-manual" -c release)
nice -n 10 swift build "${manual_flags[@]}" --product generate-manual >&2
generate_manual="$(swift build "${manual_flags[@]}" --show-bin-path)/generate-manual"

stage=$(mktemp -d "${TMPDIR:-/tmp}/appwarden-package.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
shlibs="$stage/shlibs"
mkdir -p "$root/DEBIAN" "$shlibs/debian"

echo "== staging appwarden $debian_version ($arch)" >&2
install -D -m 0755 "$bin_dir/appwarden" "$root/usr/bin/appwarden"
# As dh_strip does: no symbols or debug information, no .comment or .note sections.
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/appwarden"
# The relay is C only: built as a Swift product it would carry the Swift runtime (6 MiB stripped
# against 14 KiB), loaded at each relay's start for nothing.
relay_sources=(Sources/appwarden-relay/main.c Sources/CWardenSpawn/warden_log_relay.c)
buildflags() { DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1"; }
read -ra relay_cflags <<<"$(buildflags CPPFLAGS) $(buildflags CFLAGS)"
read -ra relay_ldflags <<<"$(buildflags LDFLAGS)"
mkdir -p "$root/usr/lib/appwarden"
clang -std=gnu11 -Wall -Werror "${relay_cflags[@]}" -I Sources/CWardenSpawn/include "${relay_sources[@]}" \
  "${relay_ldflags[@]}" -o "$root/usr/lib/appwarden/appwarden-relay"
chmod 0755 "$root/usr/lib/appwarden/appwarden-relay"
strip --remove-section=.comment --remove-section=.note "$root/usr/lib/appwarden/appwarden-relay"
install -D -m 0644 contrib/appwarden.service "$root/lib/systemd/system/appwarden.service"
grep -q '^ExecStart=/usr/bin/appwarden serve' "$root/lib/systemd/system/appwarden.service" || {
  echo "package.sh: contrib/appwarden.service does not start /usr/bin/appwarden." >&2
  exit 1
}
install -D -m 0644 contrib/system.slice.conf "$root/lib/systemd/system/system.slice.d/appwarden.conf"
install -D -m 0644 policies/default.toml "$root/etc/appwarden/policy.toml"
"$root/usr/bin/appwarden" policy check "$root/etc/appwarden/policy.toml" >&2

man_dir="$root/usr/share/man/man1"
mkdir -p "$man_dir"
"$generate_manual" "$root/usr/bin/appwarden" --output-directory "$man_dir" --section 1 \
  --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" \
  --authors "appwarden maintainers<maintainers@users.noreply.a-seed-3b934da5.example>"
[ -f "$man_dir/appwarden.1" ] || {
  echo "package.sh: generate-manual wrote no appwarden.1." >&2
  exit 1
}
gzip -9n "$man_dir/appwarden.1"

completions=(
  "bash:usr/share/bash-completion/completions/appwarden"
  "zsh:usr/share/zsh/vendor-completions/_appwarden"
  "fish:usr/share/fish/vendor_completions.d/appwarden.fish"
)
for entry in "${completions[@]}"; do
  shell=${entry%%:*}
  path="$root/${entry#*:}"
  mkdir -p "$(dirname "$path")"
  "$root/usr/bin/appwarden" --generate-completion-script "$shell" >"$path"
  # bash-completion sources the file; it is not run, so it has no #! line.
  [ "$shell" = bash ] && sed -i '1{/^#!/d}' "$path"
  chmod 0644 "$path"
  [ -s "$path" ] || {
    echo "package.sh: the $shell completion script is empty." >&2
    exit 1
  }
done

doc="$root/usr/share/doc/appwarden"
install -D -m 0644 contrib/debian/copyright "$doc/copyright"
gzip -9n -c "$changelog" >"$doc/changelog.Debian.gz"
chmod 0644 "$doc/changelog.Debian.gz"
install -D -m 0644 contrib/debian/lintian-overrides "$root/usr/share/lintian/overrides/appwarden"

# Every Swift package linked into the executable is named in the copyright file.
link_list="$bin_dir/appwarden.product/Objects.LinkFileList"
if [ -f "$link_list" ]; then
  missing=()
  for module in $(sed -n 's#.*/\([^/]*\)\.build/[^/]*$#\1#p' "$link_list" | sort -u); do
    for source in "$scratch"/checkouts/*/Sources/"$module" "$scratch"/checkouts/*/"$module"; do
      [ -d "$source" ] || continue
      package=${source#"$scratch"/checkouts/}
      package=${package%%/*}
      grep -q "^Package $package\b\|, package $package\b" contrib/debian/copyright || missing+=("$package")
    done
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "package.sh: contrib/debian/copyright does not name these packages linked into appwarden:" \
      "$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')" >&2
    exit 1
  fi
fi

# The shared libraries the executable loads, and the Debian packages that provide them.
printf 'Source: appwarden\n\nPackage: appwarden\nArchitecture: any\n' >"$shlibs/debian/control"
mkdir -p "$shlibs/debian/appwarden/DEBIAN"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O --warnings=0 -e"$root/usr/bin/appwarden" | sed -n 's/^shlibs:Depends=//p')
# Packed relative relocations (DT_RELR, scripts/build-static.sh) need glibc 2.36, a version the
# executable requires (GLIBC_ABI_DT_RELR) through no symbol, so dpkg-shlibdeps does not see it.
if readelf -V "$root/usr/bin/appwarden" | grep -q GLIBC_ABI_DT_RELR; then
  depends=$(echo "$depends" | sed -E 's/libc6 \(>= [0-9.]+\)/libc6 (>= 2.36)/')
fi
[ -n "$depends" ] || {
  echo "package.sh: dpkg-shlibdeps found no dependencies for /usr/bin/appwarden." >&2
  exit 1
}
installed_size=$(du -sk --apparent-size --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$debian_version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" \
  -e "s/@INSTALLED_SIZE@/$installed_size/" contrib/debian/control >"$root/DEBIAN/control"
echo /etc/appwarden/policy.toml >"$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
  install -m 0755 "contrib/debian/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
  >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +
find "$root" -newermt "@$SOURCE_DATE_EPOCH" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$out_dir"
echo "== dpkg-deb --build" >&2
nice -n 10 dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2

echo "== lintian" >&2
lintian --fail-on error,warning --display-info "$deb" >&2 || {
  echo "package.sh: lintian reports problems with $deb (above)." >&2
  exit 1
}
echo "== $deb: $(du -k --apparent-size "$deb" | cut -f1) KiB; /usr/bin/appwarden" \
  "$(du -k --apparent-size "$root/usr/bin/appwarden" | cut -f1) KiB; Depends: $depends" >&2
echo "$deb"
