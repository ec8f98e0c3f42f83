#!/usr/bin/env bash
# Builds a small Debian bookworm device image for the device test suite and caches it.
#
# The image has systemd, udev, the stock kernel, python3 and the peer memory killers (earlyoom,
# nohang, systemd-oomd; all disabled until a job enables one), and no Swift: appwarden comes as its
# Debian package, installed by each job with apt. The device has no network, so the libraries the
# package depends on (libcgroup2, libsqlite3-0) wait in a local apt repository inside the image,
# /var/local/device-repo, the only source in its sources.list; whatever nothing else in the image
# needs (libcgroup2) is not installed, so that apt must resolve the package's Depends as on a real
# device. It is made with debootstrap and `mke2fs -d`, so no loop device and no mount of the image
# is needed. The kernel and initrd are copied out beside it, to be booted directly with qemu's
# -kernel/-initrd.
#
# Packages come from the Debian archive this machine's apt uses: the first enabled "deb" source in
# /etc/apt/sources.list and /etc/apt/sources.list.d/*.list and *.sources whose suites include a
# release (not -updates, -security or -backports), preferring one whose downloaded Release file
# says "Origin: Debian"; APPWARDEN_DEVICE_MIRROR overrides it.
#
# Output (printed on the last line): a directory holding rootfs.img, vmlinuz and initrd.img,
# under $APPWARDEN_DEVICE_CACHE (default /var/cache/appwarden-device), named after a hash of
# the package list and this script's layout version, so a second run reuses it. Beside them,
# `packages` (the list asked for) and `versions` (each installed package's version): a rebuild
# with the same list keeps the name but takes Debian's packages of its day, and the peers job
# prints the image's build date and a hash of its versions in each log.
#
#   sudo bash scripts/device/build-image.sh
set -euo pipefail

cache_root="${APPWARDEN_DEVICE_CACHE:-/var/cache/appwarden-device}"
suite=bookworm
packages=(
  systemd systemd-sysv udev dbus kmod procps util-linux iproute2
  linux-image-amd64 python3
  earlyoom nohang systemd-oomd
  curl
)
# The libraries of appwarden's package Depends beyond what every Debian system has; they are
# downloaded with the image into its local repository.
repo_packages=(libcgroup2 libsqlite3-0)
image_size=1536M
# Bump when the image's configuration below changes, so cached images built before are not reused.
layout_version=3

# Prints the URI of the Debian archive this machine's apt configuration names (see above).
apt_mirror() {
  local sources=() file
  [ -f /etc/apt/sources.list ] && sources+=(/etc/apt/sources.list)
  for file in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] && sources+=("$file")
  done
  [ "${#sources[@]}" -gt 0 ] || return 0
  # One "URI SUITE" line per enabled deb source and suite, in the order apt reads them.
  local candidates
  candidates=$(for file in "${sources[@]}"; do
    case "$file" in
      *.sources)
        awk 'BEGIN { RS = ""; FS = "\n" }
          {
            types = ""; uris = ""; suites = ""; enabled = "yes"
            for (i = 1; i <= NF; i++) {
              line = $i
              if (line ~ /^#/) continue
              split(line, kv, ":")
              key = tolower(kv[1]); value = substr(line, length(kv[1]) + 2)
              gsub(/^[ \t]+|[ \t]+$/, "", value)
              if (key == "types") types = value
              else if (key == "uris") uris = value
              else if (key == "suites") suites = value
              else if (key == "enabled") enabled = tolower(value)
            }
            if (enabled == "no" || (" " types " ") !~ / deb /) next
            n = split(uris, u, /[ \t]+/); m = split(suites, s, /[ \t]+/)
            for (a = 1; a <= n; a++) for (b = 1; b <= m; b++) print u[a], s[b]
          }' "$file"
        ;;
      *)
        awk '$1 == "deb" {
            i = 2
            if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
            if (i + 1 <= NF) print $i, $(i + 1)
          }' "$file"
        ;;
    esac
  done | awk '$2 !~ /[-\/]/')
  [ -n "$candidates" ] || return 0
  local uri suite_name list
  while read -r uri suite_name; do
    # apt keeps a source's Release file as URI-without-scheme, slashes as underscores.
    list=$(echo "${uri%/}" | sed -e 's#^[a-z+]*://##' -e 's#/#_#g')
    if grep -qsx 'Origin: Debian' /var/lib/apt/lists/"${list}_dists_${suite_name}_"{InRelease,Release}; then
      echo "$uri"
      return 0
    fi
  done <<<"$candidates"
  echo "${candidates%% *}" | head -1
}

if [ "$(id -u)" -ne 0 ]; then
  echo "build-image.sh needs root (debootstrap creates device files and chroots)." >&2
  exit 1
fi
for tool in debootstrap mke2fs dpkg-scanpackages; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "build-image.sh needs $tool; install it with: apt-get install debootstrap e2fsprogs dpkg-dev" >&2
    exit 1
  }
done

key=$(echo "$suite" "${packages[*]}" "${repo_packages[*]}" "$image_size" "$layout_version" | sha256sum | cut -c1-16)
out="$cache_root/$suite-$key"
if [ -f "$out/rootfs.img" ] && [ -f "$out/vmlinuz" ] && [ -f "$out/initrd.img" ]; then
  echo "== image cached" >&2
  echo "$out"
  exit 0
fi

mkdir -p "$cache_root"
work=$(mktemp -d "$cache_root/build.XXXXXX")
cleanup() {
  # debootstrap may leave /proc and /sys mounted inside the tree when it fails.
  for m in proc sys dev/pts dev; do
    mountpoint -q "$work/root/$m" 2>/dev/null && umount -l "$work/root/$m" || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

mirror="${APPWARDEN_DEVICE_MIRROR:-$(apt_mirror)}"
if [ -z "$mirror" ]; then
  echo "build-image.sh found no Debian archive in this machine's apt sources (/etc/apt/sources.list," \
    "/etc/apt/sources.list.d); name one with APPWARDEN_DEVICE_MIRROR=URI." >&2
  exit 1
fi

started=$(date +%s)
root="$work/root"
echo "== debootstrap $suite from $mirror (${#packages[@]} + ${#repo_packages[@]} packages and their dependencies)" >&2
include=$(IFS=,; echo "${packages[*]},${repo_packages[*]}")
nice -n 19 ionice -c3 debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" \
  >"$work/debootstrap.log" 2>&1 || {
  tail -30 "$work/debootstrap.log" >&2
  echo "debootstrap failed; the log's end is above." >&2
  exit 1
}

echo "== configuring the image" >&2
echo device >"$root/etc/hostname"
# Root logs in on the serial console without a password (the image never has a network).
chroot "$root" passwd -d root >/dev/null
cat >"$root/etc/fstab" <<'EOF'
/dev/vda / ext4 rw,errors=remount-ro 0 1
EOF
mkdir -p "$root/opt/appwarden/bin" "$root/job"
echo 'PATH=/opt/appwarden/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  >"$root/etc/environment"
printf '9p\n9pnet_virtio\n' >"$root/etc/modules-load.d/device-9p.conf"

# The local repository: the repository packages' .debs, as debootstrap downloaded them, and an
# index; apt's only source. Those that nothing else in the image needs are removed again.
repo="$root/var/local/device-repo"
mkdir -p "$repo"
for name in "${repo_packages[@]}"; do
  found=$(ls "$root/var/cache/apt/archives/${name}_"*.deb 2>/dev/null | head -1)
  [ -n "$found" ] || {
    echo "build-image.sh: debootstrap left no .deb of $name in the image's apt cache." >&2
    exit 1
  }
  cp "$found" "$repo/"
done
(cd "$repo" && dpkg-scanpackages --multiversion . /dev/null >Packages 2>/dev/null)
echo 'deb [trusted=yes] file:/var/local/device-repo ./' >"$root/etc/apt/sources.list"
rm -f "$root/etc/apt/sources.list.d/"*
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
chroot "$root" apt-get update -qq >/dev/null
for name in "${repo_packages[@]}"; do
  if chroot "$root" dpkg --purge "$name" >/dev/null 2>&1; then
    echo "   $name: only in the local repository" >&2
  else
    echo "   $name: installed (other packages of the image need it), and in the local repository" >&2
  fi
done

# The host's shares are mounted by the job's unit, not by fstab: the virtio-9p channels can
# appear after the first mount attempt of a boot ("9pnet_virtio: no channels available"), the
# more so on a busy host, and a failed fstab mount would keep the job from starting at all.
install -m 0755 /dev/stdin "$root/usr/local/sbin/device-mounts" <<'EOF'
#!/bin/sh
modprobe 9pnet_virtio 2>/dev/null
share() {
  tries=0
  until mountpoint -q "$2" || mount -t 9p -o "trans=virtio,version=9p2000.L,$3" "$1" "$2" 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -ge 240 ]; then
      echo "device-mounts: the share \"$1\" could not be mounted at $2 in 240 tries" >/dev/console
      return 1
    fi
    sleep 0.5
  done
}
share bin /opt/appwarden/bin ro && share job /job rw
EOF

# The job runner: runs /job/job.sh as a unit, keeps its output and status in /job/out, then
# powers the machine off.
install -m 0755 /dev/stdin "$root/usr/local/sbin/device-job" <<'EOF'
#!/bin/sh
mkdir -p /job/out
echo "device-job: starting $(date -u +%T)" >/dev/console
if [ -x /job/job.sh ]; then
  PATH=/opt/appwarden/bin:$PATH /job/job.sh >/job/out/log 2>&1
  status=$?
else
  echo "no executable /job/job.sh" >/job/out/log
  status=127
fi
sync
echo "$status" >/job/out/status
sync
echo "device-job: finished with status $status $(date -u +%T)" >/dev/console
systemctl --no-block poweroff
EOF
cat >"$root/etc/systemd/system/device-job.service" <<'EOF'
[Unit]
Description=Device test job from /job
After=local-fs.target systemd-modules-load.service
Requires=local-fs.target

[Service]
Type=oneshot
ExecStartPre=/usr/local/sbin/device-mounts
ExecStart=/usr/local/sbin/device-job
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
chroot "$root" systemctl enable device-job.service >/dev/null 2>&1
# Peers stay off until a job starts one; timers and services a test device does not need are masked.
chroot "$root" systemctl disable earlyoom.service nohang.service nohang-desktop.service \
  systemd-oomd.service systemd-oomd.socket >/dev/null 2>&1 || true
chroot "$root" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
  e2scrub_reap.service fstrim.timer systemd-timesyncd.service >/dev/null 2>&1 || true
chroot "$root" systemctl set-default multi-user.target >/dev/null 2>&1

cp "$(ls "$root"/boot/vmlinuz-* | sort -V | tail -1)" "$work/vmlinuz"
cp "$(ls "$root"/boot/initrd.img-* | sort -V | tail -1)" "$work/initrd.img"

echo "== making the ext4 image ($image_size)" >&2
nice -n 19 ionice -c3 mke2fs -q -t ext4 -L device -d "$root" "$work/rootfs.img" "$image_size"

mkdir -p "$out"
mv "$work/rootfs.img" "$work/vmlinuz" "$work/initrd.img" "$out/"
echo "${packages[*]} | repository: ${repo_packages[*]}" >"$out/packages"
# The versions the image was built with: its name stays when a rebuild takes newer packages.
chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' >"$out/versions"
echo "== image built in $(($(date +%s) - started)) s: $out ($(du -sh "$out/rootfs.img" | cut -f1) used)" >&2
echo "$out"
