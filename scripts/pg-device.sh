#!/usr/bin/env bash
# scripts/pg-device.sh — PostgreSQL 17 or 18 with pg_mergepath on the GPU host, which has
# no PostgreSQL and no network (15 travels in ../shared/device's bundle instead).
#
#   here:    bash scripts/pg-device.sh pack VERSION
#            builds pg_mergepath for VERSION (scripts/build-pg.sh, installed into the
#            version's tree of scripts/install-pg.sh) and packs what a server, pg_regress
#            and the tests need into .device/pgVERSION.tar.xz (about 15 MB): the server's
#            programs and libraries (its modules: initdb needs some), pg_regress and
#            pg_isolation_regress, the extension,
#            the pg_config script and a real copy of PostgreSQL 15's psql (it runs against
#            the bundle's libpq). The tree keeps its path (/opt/pg_mergepath/pgVERSION), so
#            its pg_config answers there too.
#   device:  bash scripts/pg-device.sh up VERSION [SERVER OPTIONS]
#            unpacks .device/pgVERSION.tar.xz, creates user postgres, initialises
#            /opt/pgdataVERSION and starts the server on 127.0.0.1, port 5400 + VERSION
#            (5417, 5418), with shared_preload_libraries = pg_mergepath and the options
#            given; writes /opt/pg_mergepath/pgVERSION/env (PATH, PGHOST, PGPORT,
#            PG_CONFIG, PGMP_CLIENT_LIBS: the folder of the bundle's libpq, for a client
#            such as mp_bench) to source. A server of an earlier call is stopped and the
#            archive unpacked again (a warm host keeps /opt between calls).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:?usage: pg-device.sh pack|up VERSION [SERVER OPTIONS]}
version=${2:?usage: pg-device.sh pack|up VERSION [SERVER OPTIONS]}
prefix=${PGMP_PG_HOME:-/opt/pg_mergepath}/pg$version
tarball=$root/.device/pg$version.tar.xz
say() { echo "pg-device: $*" >&2; }

case "$cmd" in
pack)
  bash "$root/scripts/build-pg.sh" "$version" >/dev/null
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  tree=$work/tree$prefix
  mkdir -p "$tree" "$root/.device"
  (cd "$prefix" && cp -a --parents bin/postgres bin/initdb bin/pg_ctl bin/pg_config lib/*.so* \
      lib/postgresql/*.so lib/postgresql/pgxs/src/test/regress/pg_regress* \
      lib/postgresql/pgxs/src/test/isolation share "$tree/")
  # pg_regress and the isolation testers come wrapped with the bundle's libpq (install-pg.sh);
  # so does PostgreSQL 15's psql here (a real copy, not install-pg.sh's link: the host has
  # no PostgreSQL and no libpq), so that nothing else sees the bundle's libraries.
  cp /usr/lib/postgresql/15/bin/psql "$tree/bin/psql.bin"
  cat > "$tree/bin/psql" <<WRAP
#!/bin/sh
# PostgreSQL 15's psql with the libpq of the bundle in $prefix (scripts/pg-device.sh)
LD_LIBRARY_PATH="$prefix/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$0.bin" "\$@"
WRAP
  chmod +x "$tree/bin/psql"
  tar -C "$work/tree" -cf "$work/pg.tar" "${prefix#/}"
  xz -T0 -6 -c "$work/pg.tar" > "$tarball"
  say "$tarball: $(du -h "$tarball" | cut -f1) (carry limit 64 MiB in all)"
  ;;
up)
  shift 2
  [ -f "$tarball" ] || { say "no $tarball: run 'scripts/pg-device.sh pack $version' here first"; exit 2; }
  port=$((5400 + version))
  data=/opt/pgdata$version
  # a warm host may run the server of an earlier archive: stop it, unpack this one
  if [ -x "$prefix/bin/pg_ctl" ] && [ -f "$data/PG_VERSION" ]; then
    runuser -u postgres -- "$prefix/bin/pg_ctl" -D "$data" -w stop -m fast >/dev/null 2>&1 || true
  fi
  tar -C / --unlink-first -xJf "$tarball"
  cat > "$prefix/env" <<EOF
export PATH=$prefix/bin:\$PATH
export PGMP_CLIENT_LIBS=$prefix/lib
export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=postgres
export PG_CONFIG=$prefix/bin/pg_config
EOF
  # shellcheck disable=SC1090
  . "$prefix/env"
  id postgres >/dev/null 2>&1 || useradd -m -s /bin/bash postgres
  chmod 755 "$(dirname "$prefix")" "$prefix"
  as_pg=(runuser -u postgres --)  # the bundle's programs find its libraries themselves (RUNPATH)
  if [ ! -f "$data/PG_VERSION" ]; then
    mkdir -p "$data" && chown postgres "$data" && chmod 700 "$data"
    "${as_pg[@]}" "$prefix/bin/initdb" -D "$data" -A trust -U postgres >/tmp/pg$version-initdb.log
  fi
  opts="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=/tmp"
  opts+=" -c shared_preload_libraries=pg_mergepath $*"
  "${as_pg[@]}" "$prefix/bin/pg_ctl" -D "$data" -l "$data/server.log" -o "$opts" -w start >/dev/null
  say "$(psql -Atc 'select version()' | cut -c1-60) on port $port"
  ;;
*) say "unknown command $cmd (pack or up)"; exit 2 ;;
esac
